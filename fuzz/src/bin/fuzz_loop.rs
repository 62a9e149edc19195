//! A blackbox companion to the libFuzzer targets: the same checks in a plain loop, with no
//! coverage instrumentation, so that a shared machine runs many more executions per second.
//! Inputs are mutants of the libFuzzer corpus (token-level as in `mutate_idp`, or byte-level)
//! for the text targets, and random bytes read by `arbitrary` for `pipeline`. A panic is
//! caught, its input saved under `artifacts/loop-<target>/`, and the loop goes on.
//!
//! Build with stable Rust: `cargo build --release --features loop --bin fuzz_loop` (in fuzz/);
//! run: `fuzz_loop TARGET EXECUTIONS [SEED]` from fuzz/, TARGET one of parse_resolve,
//! mutate_idp, grammar_diff, pipeline.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::Instant;

use arbitrary::{Arbitrary, Unstructured};
use idp_fuzz::mutate::{mutate_text, mutate_text_with, Rng, GRAMMAR_DICTIONARY};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: fuzz_loop TARGET EXECUTIONS [SEED]");
        std::process::exit(2);
    }
    let target = args[1].as_str();
    let runs: u64 = args[2].parse().expect("EXECUTIONS is a number");
    let seed: u32 = args
        .get(3)
        .map_or(1, |s| s.parse().expect("SEED is a number"));
    let corpus = read_corpus(&format!("corpus/{target}"));
    let mut rng = Rng::new(seed);
    let start = Instant::now();
    let mut crashes = 0u64;
    for n in 1..=runs {
        let input = next_input(target, &corpus, &mut rng);
        if catch_unwind(AssertUnwindSafe(|| execute(target, &input))).is_err() {
            crashes += 1;
            save_crash(target, &input);
        }
        if n % 100_000 == 0 || n == runs {
            let secs = start.elapsed().as_secs_f64();
            eprintln!(
                "#{n} {target} {:.0} exec/s, {secs:.0}s, crashes {crashes}",
                n as f64 / secs
            );
        }
    }
    println!("{target}: {runs} executions, {crashes} crashes");
    std::process::exit(i32::from(crashes > 0));
}

/// The files of a corpus directory (empty when it does not exist).
fn read_corpus(dir: &str) -> Vec<Vec<u8>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| std::fs::read(e.ok()?.path()).ok())
        .collect()
}

/// A token-level mutant (mostly) or a byte-level mutant of a corpus entry; random bytes for
/// `pipeline` or an empty corpus.
fn next_input(target: &str, corpus: &[Vec<u8>], rng: &mut Rng) -> Vec<u8> {
    if target == "pipeline" || corpus.is_empty() {
        let len = 16 + rng.below(512);
        return (0..len).map(|_| rng.next_u64() as u8).collect();
    }
    let base = &corpus[rng.below(corpus.len())];
    if rng.below(4) == 0 {
        return mutate_bytes(base, rng);
    }
    let text = String::from_utf8_lossy(base);
    if target == "grammar_diff" {
        return mutate_text_with(&text, rng, &GRAMMAR_DICTIONARY).into_bytes();
    }
    mutate_text(&text, rng).into_bytes()
}

/// Flips, inserts or deletes a few bytes.
fn mutate_bytes(base: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut out = base.to_vec();
    for _ in 0..1 + rng.below(4) {
        let i = rng.below(out.len() + 1);
        match rng.below(3) {
            0 if i < out.len() => out[i] ^= 1 << rng.below(8),
            1 => out.insert(i, rng.next_u64() as u8),
            _ if i < out.len() => {
                out.remove(i);
            }
            _ => out.push(rng.next_u64() as u8),
        }
    }
    out
}

/// One execution of a target's body (the same as the libFuzzer target's).
fn execute(target: &str, input: &[u8]) {
    match target {
        "parse_resolve" => {
            if let Some(front) = idp_fuzz::front::load_and_resolve(input) {
                if !front.has_errors {
                    idp_fuzz::front::print_components(&front.program);
                }
            }
        }
        "mutate_idp" => {
            if let Some(front) = idp_fuzz::front::load_and_resolve(input) {
                if !front.has_errors {
                    idp_fuzz::front::print_components(&front.program);
                    idp_fuzz::front::expand_small(&front.program);
                }
            }
        }
        "grammar_diff" => idp_fuzz::diff::check(input),
        "pipeline" => {
            let mut u = Unstructured::new(input);
            if let Ok(spec) = idp_fuzz::gen::Spec::arbitrary(&mut u) {
                idp_fuzz::gen::check_spec(&spec);
            }
        }
        other => panic!("unknown target {other}"),
    }
}

/// Saves a crashing input as `artifacts/loop-<target>/crash-<hash>`.
fn save_crash(target: &str, input: &[u8]) {
    let dir = format!("artifacts/loop-{target}");
    let _ = std::fs::create_dir_all(&dir);
    let hash = input.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let path = Path::new(&dir).join(format!("crash-{hash:016x}"));
    let _ = std::fs::write(&path, input);
    eprintln!("crash saved to {}", path.display());
}
