//! The standard library files available with `include <name>`: `mx` (empty, kept for
//! compatibility), `table_utils` and `LTC`. Written for this implementation from the
//! descriptions in the IDP3 manual.

const MX: &str = include_str!("mx.idp");
const TABLE_UTILS: &str = include_str!("table_utils.idp");
const LTC: &str = include_str!("LTC.idp");

/// The text of the standard library file `<name>`, if there is one.
pub fn source(name: &str) -> Option<String> {
    match name {
        "mx" => Some(MX.to_string()),
        "table_utils" => Some(TABLE_UTILS.to_string()),
        "LTC" => Some(LTC.to_string()),
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
