//! The standard library files available with `include <name>`: `mx` (empty, kept for
//! compatibility), `table_utils`, `LTC` and `createStructureFromFile`; with `-d DIR` a file of
//! `DIR/share/std` comes first. Written for this implementation from the
//! descriptions in the IDP3 manual.

const MX: &str = include_str!("mx.idp");
const TABLE_UTILS: &str = include_str!("table_utils.idp");
const LTC: &str = include_str!("LTC.idp");
const CREATE_STRUCTURE_FROM_FILE: &str = include_str!("createStructureFromFile.idp");

/// `include <name>` with `-d DIR` (IDP3's data directory): `DIR/share/std/name.idp` when that
/// file exists, else the built-in file.
pub fn source_in(dir: Option<&str>, name: &str) -> Option<String> {
    if let Some(dir) = dir {
        let path = std::path::Path::new(dir)
            .join("share/std")
            .join(format!("{name}.idp"));
        if let Ok(text) = std::fs::read_to_string(path) {
            return Some(text);
        }
    }
    source(name)
}

/// The text of the standard library file `<name>`, if there is one.
pub fn source(name: &str) -> Option<String> {
    match name {
        "mx" => Some(MX.to_string()),
        "table_utils" => Some(TABLE_UTILS.to_string()),
        "LTC" => Some(LTC.to_string()),
        "createStructureFromFile" => Some(CREATE_STRUCTURE_FROM_FILE.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn known_libraries() {
        assert!(super::source("mx").is_some());
        assert!(super::source("table_utils")
            .unwrap()
            .contains("procedure totable"));
        assert!(super::source("LTC").unwrap().contains("procedure simulate"));
        assert!(super::source("nope").is_none());
    }
}
