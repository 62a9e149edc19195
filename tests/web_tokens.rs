//! The workbench's highlighting: `node web/test/tokens.test.mjs` runs the tokenizer of
//! `web/src/idp-tokens.js` (the one `idp serve` embeds) on lines of IDP3 and of IDP-Z3's FO(·),
//! English connectives and quoted names among them, and compares every token's style. Without
//! node on the PATH the test says on stderr that it skipped and why.

use std::io::Write;
use std::path::Path;
use std::process::Command;

#[test]
fn the_highlighter_tokenizes_both_dialects() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = match Command::new("node")
        .arg(root.join("web/test/tokens.test.mjs"))
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED web_tokens::the_highlighter_tokenizes_both_dialects: node could not \
                 be run ({e}); install Node.js (Debian's nodejs package) to run it"
            );
            return;
        }
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("4 of 4 cases agree"), "{stdout}");
}
