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
