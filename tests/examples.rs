//! Golden tests: every teaching example in `examples/` prints exactly its `.expected` file.

mod support;

use std::path::Path;

#[test]
fn examples_print_their_expected_output() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).expect("examples folder") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("idp") {
            continue;
        }
        let expected = std::fs::read_to_string(path.with_extension("expected"))
            .unwrap_or_else(|_| panic!("{} has no .expected file", path.display()));
        let out = support::idp_command()
            .arg("--nowarnings")
            .arg(&path)
            .output()
            .expect("run idp");
        assert!(
            out.status.success(),
            "{} failed: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            expected,
            "output of {}",
            path.display()
        );
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} examples found");
}
