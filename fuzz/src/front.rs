//! The front end as the command line runs it (`cli::run_with`): load the bytes, resolve them,
//! and render every diagnostic in both styles. None of it may panic, whatever the input.

use idp::diagnostics::{self, Diagnostics, RenderStyle};
use idp::sema::Program;
use idp::source::SourceMap;

/// What loading and resolving one input gave.
pub struct Front {
    pub program: Program,
    pub has_errors: bool,
}

/// Whether the input names a file to include: the fuzzer must not read (or block on) arbitrary
/// files such as `/dev/stdin`, so such inputs are skipped. `include <name>` stays allowed.
pub fn includes_a_file(data: &[u8]) -> bool {
    data.windows(7).any(|w| w == b"include") && data.contains(&b'"')
}

/// The widest integer range `a..b` the harness lets through. Wider ranges (up to the resolver's
/// own limit of 10^7 elements) are valid but take long to enumerate, which only slows fuzzing.
pub const MAX_FUZZ_RANGE: u64 = 256;

/// Whether the input contains an integer range `a..b` wider than [`MAX_FUZZ_RANGE`] (or with
/// a bound of more than 5 digits), judged on the bytes.
pub fn has_wide_range(data: &[u8]) -> bool {
    let text = String::from_utf8_lossy(data);
    let number_before = |s: &str| -> Option<u64> {
        let digits: String = s.chars().rev().take_while(char::is_ascii_digit).collect();
        digits.chars().rev().collect::<String>().parse().ok()
    };
    let number_after = |s: &str| -> Option<u64> {
        let s = s.trim_start_matches(|c: char| c.is_whitespace() || c == '-');
        let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    };
    text.match_indices("..").any(|(i, _)| {
        let before = text[..i].trim_end_matches(|c: char| c.is_whitespace());
        let before = before.trim_end_matches(|c: char| c.is_whitespace());
        let a = number_before(before).unwrap_or(0);
        let b = number_after(&text[i + 2..]).unwrap_or(0);
        a.abs_diff(b) > MAX_FUZZ_RANGE || a > 99_999 || b > 99_999
    })
}

/// Loads `data` as the single input `fuzz.idp`, resolves it and renders all diagnostics, as
/// `idp --check` does. `None` when the input was skipped (see [`includes_a_file`] and
/// [`has_wide_range`]).
pub fn load_and_resolve(data: &[u8]) -> Option<Front> {
    if includes_a_file(data) || has_wide_range(data) {
        return None;
    }
    let mut sources = SourceMap::default();
    let mut diags = Diagnostics::default();
    let inputs = vec![("fuzz.idp".to_string(), data.to_vec())];
    let loaded = idp::syntax::load(inputs, &idp::stdlib::source, &mut sources, &mut diags);
    let program =
        idp::sema::resolve_with_sources(&loaded.file, Some(&sources), &mut diags);
    render_all(&diags, &sources);
    Some(Front {
        has_errors: diags.has_errors(),
        program,
    })
}

/// Renders every diagnostic plainly and with ariadne (which may panic on a bad span).
fn render_all(diags: &Diagnostics, sources: &SourceMap) {
    for d in diags.sorted() {
        let plain = diagnostics::render(&d, sources, RenderStyle::Plain);
        let fancy = diagnostics::render(&d, sources, RenderStyle::Fancy);
        assert!(plain.ends_with('\n') && !fancy.is_empty());
    }
}

/// Prints every vocabulary, theory and structure of a program that resolved without errors,
/// as `print(...)` in a procedure would (Lua-free).
pub fn print_components(program: &Program) -> usize {
    let mut total = 0;
    for v in &program.vocabularies {
        total += idp::print::vocabulary_to_string(program, v).len();
    }
    for t in &program.theories {
        total += idp::print::theory_to_string(program, t).len();
    }
    for s in &program.structures {
        total += idp::print::structure_to_string(program, s).len();
    }
    total
}

/// Runs a small model expansion (at most two models, a small grounding limit and a short time
/// limit) for the first few theory/structure pairs over the same vocabulary. Errors and limits
/// are fine answers; panics are not.
pub fn expand_small(program: &Program) -> usize {
    let options = idp::infer::Options {
        nbmodels: 2,
        timeout: 0.5,
        max_ground_size: 20_000,
        ..idp::infer::Options::default()
    };
    let mut found = 0;
    let pairs = program.theories.iter().flat_map(|t| {
        program
            .structures
            .iter()
            .filter(move |s| s.vocabulary == t.vocabulary)
            .map(move |s| (t, s))
    });
    for (theory, structure) in pairs.take(2) {
        if let Ok(models) = idp::infer::modelexpand(program, theory, structure, None, &options) {
            found += models.value.len();
        }
    }
    found
}
