//! A reader that closes the pipe (`idp ... | head`) ends `idp` quietly and at once, as it ends
//! any Unix tool: by SIGPIPE, with nothing on stderr; also in the middle of an enumeration, and
//! while a search prints nothing.

use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, ExitStatus, Stdio};
use std::time::{Duration, Instant};

mod support;

/// 2^40 models: an enumeration that never ends.
const MANY_MODELS: &str = "vocabulary V {\n  type D isa int\n  P(D)\n}\n\
    theory T : V {\n}\nstructure S : V {\n  D = { 1..40 }\n}\n";

fn spawn(text: &str, args: &[&str]) -> Child {
    let path = support::write_file("spec.idp", text);
    support::idp_command()
        .arg(&path)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the idp binary runs")
}

/// Reads `lines` lines of the child's stdout, then closes it as `head` does; returns how the
/// child ended, its stderr and how long it took after the pipe was closed.
fn read_and_close(mut child: Child, lines: usize) -> (ExitStatus, String, Duration) {
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    for _ in 0..lines {
        line.clear();
        assert!(
            reader.read_line(&mut line).unwrap() > 0,
            "idp printed fewer lines"
        );
    }
    drop(reader);
    let closed = Instant::now();
    let deadline = closed + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("idp went on for 10 s after its reader had gone");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = closed.elapsed();
    let err = child.wait_with_output().unwrap().stderr;
    (status, String::from_utf8_lossy(&err).into_owned(), took)
}

/// Ended by SIGPIPE, quietly, within a second of the reader closing the pipe.
fn assert_ended_by_the_closed_pipe(status: ExitStatus, err: &str, took: Duration) {
    assert_eq!(status.signal(), Some(libc::SIGPIPE), "{status:?}\n{err}");
    assert_eq!(err, "", "idp said something");
    assert!(took < Duration::from_secs(1), "it took {took:?}");
}

#[test]
fn an_enumeration_ends_when_its_reader_is_gone() {
    // `idp -n 0 big.idp | head`: the models come as they are found, head takes ten lines.
    let child = spawn(MANY_MODELS, &["-n", "0"]);
    let (status, err, took) = read_and_close(child, 10);
    assert_ended_by_the_closed_pipe(status, &err, took);
}

#[test]
fn a_search_that_prints_nothing_ends_when_its_reader_is_gone() {
    // The reader goes before anything is printed; the search would never end.
    let main = "procedure main() {\n  stdoptions.nbmodels = 0\n  \
                print(#modelexpand(T, S))\n}\n";
    let child = spawn(&format!("{MANY_MODELS}{main}"), &[]);
    std::thread::sleep(Duration::from_millis(300));
    let (status, err, took) = read_and_close(child, 0);
    assert_ended_by_the_closed_pipe(status, &err, took);
}

#[test]
fn a_procedure_that_prints_ends_when_its_reader_is_gone() {
    let main = "procedure main() {\n  for i = 1, 1000000000 do print(i) end\n}\n";
    let child = spawn(main, &[]);
    let (status, err, took) = read_and_close(child, 1);
    assert_ended_by_the_closed_pipe(status, &err, took);
}

#[test]
fn a_dump_ends_when_its_reader_is_gone() {
    // `idp --dump program spec | head -1`, with a dump larger than a pipe holds.
    let mut spec = String::from("vocabulary V {\n  type D isa int\n");
    for k in 0..20000 {
        spec.push_str(&format!("  Predicate{k}(D)\n"));
    }
    spec.push_str("}\n");
    let child = spawn(&spec, &["--dump", "program"]);
    let (status, err, took) = read_and_close(child, 1);
    assert_ended_by_the_closed_pipe(status, &err, took);
}

#[test]
fn idp_fmt_ends_when_its_reader_is_gone() {
    // `idp fmt < big.idp | head -1`: the formatted text is longer than a pipe holds.
    let one =
        std::fs::read_to_string(support::crate_dir().join("specs/maze/construction.idp")).unwrap();
    let big = support::write_file("big.idp", &one.repeat(40));
    let child = support::idp_command()
        .arg("fmt")
        .stdin(std::fs::File::open(&big).unwrap())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the idp binary runs");
    let (status, err, took) = read_and_close(child, 1);
    assert_ended_by_the_closed_pipe(status, &err, took);
}
