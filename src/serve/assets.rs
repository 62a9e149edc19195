//! The page: `web/index.html`, `web/style.css` and the bundle `web/dist/app.js` (CodeMirror 6
//! and the page's code, built by `web/build.sh` and committed), embedded in the binary so that
//! `cargo build` needs no npm and `idp` stays one file. With `IDP_SERVE_WEB=DIR` set, the files
//! are read from DIR instead (for working on the page without rebuilding `idp`).

use std::path::Path;

/// One embedded file.
pub struct Asset {
    pub path: &'static str,
    pub content_type: &'static str,
    pub body: &'static [u8],
}

/// The page's files, by URL path.
pub const ASSETS: [Asset; 3] = [
    Asset {
        path: "/",
        content_type: "text/html; charset=utf-8",
        body: include_bytes!("../../web/index.html"),
    },
    Asset {
        path: "/style.css",
        content_type: "text/css; charset=utf-8",
        body: include_bytes!("../../web/style.css"),
    },
    Asset {
        path: "/app.js",
        content_type: "text/javascript; charset=utf-8",
        body: include_bytes!("../../web/dist/app.js"),
    },
];

/// The file served at `path` (its type and bytes): from the folder `web` when it is given and
/// has it (`IDP_SERVE_WEB`), else the one built in.
pub fn find(path: &str, web: Option<&Path>) -> Option<(&'static str, Vec<u8>)> {
    let path = if path == "/index.html" { "/" } else { path };
    let asset = ASSETS.iter().find(|a| a.path == path)?;
    if let Some(dir) = web {
        let file = match asset.path {
            "/" => "index.html",
            "/app.js" => "dist/app.js",
            other => other.trim_start_matches('/'),
        };
        if let Ok(bytes) = std::fs::read(dir.join(file)) {
            return Some((asset.content_type, bytes));
        }
    }
    Some((asset.content_type, asset.body.to_vec()))
}

/// Where `docs/build.sh` puts the guide: the checkout this binary was built from.
const BOOK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/book");

/// The guide's file at `/docs/...` (its type and bytes), from the book built in the checkout
/// (`docs/build.sh`); a page that says how to build it when it is not built. `None` for a
/// path outside `/docs` or one that leaves the book's folder.
pub fn book_file(path: &str) -> Option<(&'static str, Vec<u8>)> {
    book_file_in(Path::new(BOOK), path)
}

fn book_file_in(book: &Path, path: &str) -> Option<(&'static str, Vec<u8>)> {
    let rest = match path {
        "/docs" => "",
        _ => path.strip_prefix("/docs/")?,
    };
    let parts: Vec<&str> = rest.split('/').filter(|p| !p.is_empty()).collect();
    if parts
        .iter()
        .any(|p| *p == ".." || *p == "." || p.contains('\\'))
    {
        return None;
    }
    if !book.join("index.html").is_file() {
        let page = "<!doctype html><title>idp: the guide</title><p>The guide is not built in \
                    this checkout: run <code>docs/build.sh</code>, or read its pages in \
                    <code>docs/src</code>.</p>";
        return Some(("text/html; charset=utf-8", page.as_bytes().to_vec()));
    }
    let mut file = parts
        .iter()
        .fold(book.to_path_buf(), |p, part| p.join(part));
    if file.is_dir() {
        file = file.join("index.html");
    }
    let bytes = std::fs::read(&file).ok()?;
    Some((content_type(&file), bytes))
}

/// The content type of a file of the book, by its extension.
fn content_type(file: &Path) -> &'static str {
    match file
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
    {
        "html" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "ttf" => "font/ttf",
        _ => "text/plain; charset=utf-8",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_book_is_served_from_its_folder_only() {
        let dir = std::env::temp_dir().join(format!("idp-book-{}", std::process::id()));
        let unbuilt = book_file_in(&dir, "/docs/").unwrap();
        assert!(String::from_utf8(unbuilt.1)
            .unwrap()
            .contains("docs/build.sh"));
        std::fs::create_dir_all(dir.join("tutorial")).unwrap();
        std::fs::write(dir.join("index.html"), "<p>guide</p>").unwrap();
        std::fs::write(dir.join("tutorial/index.html"), "<p>tutorial</p>").unwrap();
        std::fs::write(dir.join("book.css"), "p {}").unwrap();
        let index = book_file_in(&dir, "/docs").unwrap();
        assert_eq!(
            index,
            ("text/html; charset=utf-8", b"<p>guide</p>".to_vec())
        );
        let nested = book_file_in(&dir, "/docs/tutorial/").unwrap();
        assert_eq!(nested.1, b"<p>tutorial</p>");
        assert_eq!(
            book_file_in(&dir, "/docs/book.css").unwrap().0,
            "text/css; charset=utf-8"
        );
        assert_eq!(book_file_in(&dir, "/docs/../Cargo.toml"), None);
        assert_eq!(book_file_in(&dir, "/docs/missing.html"), None);
        assert_eq!(book_file_in(&dir, "/docsx"), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
