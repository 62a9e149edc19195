//! Issue 29: what stopped IDP3 files people wrote, each fixed as IDP3 behaves. Every test names
//! the IDP3 source (`KULeuven-KRR/IDP`) whose behaviour it follows.

use std::path::PathBuf;
use std::process::{Command, Output};

/// Writes `bytes` to a fresh file `name` in a directory of its own and runs `idp args... file`.
fn run_file(name: &str, bytes: &[u8], args: &[&str]) -> Output {
    let dir = std::env::temp_dir().join(format!("idp3_files_{}_{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path: PathBuf = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_idp"))
        .current_dir(&dir)
        .args(args)
        .arg(name)
        .output()
        .expect("the idp binary runs");
    let _ = std::fs::remove_dir_all(&dir);
    out
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// stdout, stderr and the exit code of a run.
fn outcome(o: &Output) -> (String, String, i32) {
    (
        text(&o.stdout),
        text(&o.stderr),
        o.status.code().unwrap_or(-1),
    )
}

/// IDP3's `char` is a finite type of 256 elements: `AllChars` in
/// `src/structure/StructureComponents.{hpp,cpp}` is `finite()`, its `size()` is the number of
/// `char` values, and `vocabulary.cpp` gives the builtin sort `char` that table.
#[test]
fn char_is_a_finite_type_of_256_elements() {
    let spec = "vocabulary V {
  A(char)
}
theory T : V {
  #{x[char] : A(x)} = 3.
  A(\"a\"). A(\"b\"). A(\"z\").
}
theory All : V {
  #{x[char] : x = x} = 256.
}
structure S : V { }
procedure main() {
  stdoptions.nbmodels = 0
  printmodels(modelexpand(T, S))
  print(sat(All, S))
}
";
    let o = run_file("char.idp", spec.as_bytes(), &[]);
    assert_eq!(
        outcome(&o),
        (
            "Number of models: 1\nModel 1\n=======\nstructure  : V {\n  A = { \"a\"; \"b\"; \"z\" }\n}\n\ntrue\n"
                .to_string(),
            String::new(),
            0
        )
    );
}
