//! `idp --dump program` prints the resolved program as IDP text (not a Rust debug dump): the
//! blocks in declaration order, variables with their derived types, sentences in full
//! parentheses, structures completed; and the text reads back.

use std::path::Path;
use std::process::Output;

mod support;

fn idp(args: &[&str], dir: &Path) -> Output {
    support::idp_command()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("the idp binary runs")
}

#[test]
fn the_dump_is_idp_text() {
    let spec = "vocabulary V {
  type T isa int
  P(T)
  F(T) : T
}
theory Th : V {
  ! x: P(x) => F(x) ~= x.
  { P(x) <- x > 1. }
}
term Total : V {
  sum{ x : P(x) : F(x) }
}
query Q : V {
  { x : P(x) }
}
structure S : V {
  T = { 1..3 }
}
namespace N {
  procedure helper(a) {
    return a + 1
  }
}
procedure main() {
  print(N.helper(1))
}
";
    let path = support::write_file("d.idp", spec);
    let o = idp(&["--dump", "program", "d.idp"], path.parent().unwrap());
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "// The program as idp resolved it: variables with their types, sentences in full
// parentheses, structures completed.

vocabulary V {
  type T isa int
  P(T)
  F(T) : T
}

theory Th : V {
  (! x[T] : (P(x) => (F(x) ~= x))).
  {
    ! x[T] : P(x) <- (x > 1).
  }
}

term Total : V {
  sum{ x[T] : P(x) : F(x) }
}

query Q : V {
  { x[T] : P(x) }
}

structure S : V {
  T = { 1..3 }
  P<ct> = {  }
  P<cf> = {  }
  F<ct> = {  }
  F<cf> = {  }
}

namespace N {
  procedure helper(a) {
      return a + 1
    }
}

procedure main() {
  print(N.helper(1))
}
"
    );
}

#[test]
fn the_dump_of_every_example_reads_back() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(root.join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "idp"))
        .collect();
    files.push(root.join("specs/maze/construction.idp"));
    for file in files {
        let o = idp(&["--dump", "program", file.to_str().unwrap()], root);
        assert_eq!(o.status.code(), Some(0), "{}", file.display());
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(!text.contains("Program {"), "a Rust debug dump");
        let dumped = support::write_file("dumped.idp", &text);
        let back = idp(&["--check", dumped.to_str().unwrap()], root);
        let err = String::from_utf8_lossy(&back.stderr);
        assert_eq!(
            back.status.code(),
            Some(0),
            "{}:\n{err}\n{text}",
            file.display()
        );
        assert!(!err.contains("Error"), "{}:\n{err}", file.display());
    }
}
