//! Parsing throughput on generated structures with 10^6 tuples: `cargo bench --bench parse`.
//!
//! For each input, prints the size, then the best of a few runs of (1) parsing alone
//! (`syntax::load`: UTF-8 check, lexing, parsing into the AST) and (2) parsing plus resolution
//! (`sema::resolve`: name resolution, type checking, and closing the structure into tables),
//! in MB/s. Set `IDP_BENCH_TUPLES` to change the number of tuples, `IDP_BENCH_RUNS` the runs.

use std::time::{Duration, Instant};

use idp::diagnostics::Diagnostics;
use idp::source::SourceMap;

fn std_lib(_: &str) -> Option<String> {
    None
}

/// `P(T, T)` with `n` distinct integer pairs.
fn integer_structure(n: usize) -> String {
    let mut s = String::with_capacity(n * 16);
    s.push_str("vocabulary V {\n  type T isa int\n  P(T, T)\n}\n");
    s.push_str(&format!(
        "structure S : V {{\n  T = {{ 0..{} }}\n  P = {{\n",
        n - 1
    ));
    for i in 0..n {
        s.push_str(&format!("    {},{};\n", i, (i * 7919) % n));
    }
    s.push_str("  }\n}\n");
    s
}

/// `Edge(Node, Node)` over symbolic names, and a function `Colour(Node) : Colour`: `n` tuples
/// in all, with the types autocompleted from the tables.
fn symbolic_structure(n: usize) -> String {
    let nodes = n / 2;
    let mut s = String::with_capacity(n * 24);
    s.push_str("vocabulary V {\n  type Node\n  type Colour\n  Edge(Node, Node)\n  Paint(Node) : Colour\n}\n");
    s.push_str("structure S : V {\n  Edge = {\n");
    for i in 0..n - nodes {
        s.push_str(&format!(
            "    n{},n{};\n",
            i % nodes,
            (i * 7919 + 1) % nodes
        ));
    }
    s.push_str("  }\n  Paint = {\n");
    for i in 0..nodes {
        let c = ["red", "green", "blue"][i % 3];
        s.push_str(&format!("    n{i} -> {c};\n"));
    }
    s.push_str("  }\n}\n");
    s
}

fn parse(text: &str) -> (idp::syntax::Loaded, SourceMap, Diagnostics) {
    let mut sources = SourceMap::default();
    let mut diags = Diagnostics::default();
    let loaded = idp::syntax::load(
        vec![("bench.idp".into(), text.as_bytes().to_vec())],
        &std_lib,
        &mut sources,
        &mut diags,
    );
    (loaded, sources, diags)
}

fn best(runs: usize, mut f: impl FnMut() -> Duration) -> Duration {
    (0..runs).map(|_| f()).min().unwrap_or_default()
}

fn mb_per_s(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / 1e6 / d.as_secs_f64()
}

fn bench(name: &str, text: &str, runs: usize) {
    let mb = text.len() as f64 / 1e6;
    let parse_time = best(runs, || {
        let start = Instant::now();
        let (loaded, _, diags) = parse(text);
        let d = start.elapsed();
        assert!(!diags.has_errors(), "{:?}", diags.items.first());
        drop(loaded);
        d
    });
    let mut resolve_only = Duration::MAX;
    let total_time = best(runs, || {
        let start = Instant::now();
        let (loaded, sources, mut diags) = parse(text);
        let parsed = Instant::now();
        let program = idp::sema::resolve_with_sources(&loaded.file, Some(&sources), &mut diags);
        let d = start.elapsed();
        resolve_only = resolve_only.min(parsed.elapsed());
        assert!(!diags.has_errors(), "{:?}", diags.sorted().first());
        drop(program);
        d
    });
    println!(
        "{name:<10} {mb:7.1} MB   parse {:7.3} s {:7.1} MB/s   parse+resolve {:7.3} s {:7.1} MB/s   (resolve alone {:.3} s)",
        parse_time.as_secs_f64(),
        mb_per_s(text.len(), parse_time),
        total_time.as_secs_f64(),
        mb_per_s(text.len(), total_time),
        resolve_only.as_secs_f64(),
    );
}

/// Generates a structure with the given number of tuples.
type Generator = fn(usize) -> String;

fn main() {
    // `cargo bench` passes `--bench`; other arguments select inputs by name.
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let n: usize = std::env::var("IDP_BENCH_TUPLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let runs: usize = std::env::var("IDP_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    println!("structures with {n} tuples, best of {runs} runs");
    let inputs: [(&str, Generator); 2] = [
        ("integers", integer_structure),
        ("symbolic", symbolic_structure),
    ];
    for (name, make) in inputs {
        if filter.is_empty() || filter.iter().any(|f| name.contains(f.as_str())) {
            bench(name, &make(n), runs);
        }
    }
}
