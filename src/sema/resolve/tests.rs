//! Unit tests of the resolver, written as small IDP texts.

use crate::diagnostics::Diagnostics;
use crate::sema::program::Program;
use crate::syntax::source::SourceMap;

fn resolve_text(text: &str) -> (Program, Diagnostics) {
    let mut sources = SourceMap::default();
    let mut diags = Diagnostics::default();
    let file = crate::syntax::parse_text("test.idp", text, &mut sources, &mut diags);
    let prog = super::resolve_with_sources(&file, Some(&sources), &mut diags);
    (prog, diags)
}

#[test]
#[ignore]
fn big_range_timing() {
    let text = std::fs::read_to_string("/tmp/slow.idp").unwrap_or_default();
    let t = std::time::Instant::now();
    let (_p, d) = resolve_text(&text);
    println!("{:?} {}", t.elapsed(), d.items.len());
}
