//! Grammar-aware mutation of IDP text: the input is split into tokens (identifiers, numbers,
//! strings, operators, blanks) and tokens are deleted, duplicated, swapped, replaced by IDP
//! keywords and operators, or renamed to other identifiers of the same input. Mutants stay
//! close to valid IDP, so they get past the parser and exercise the resolver deeply.

/// Pieces to splice into inputs besides IDP3's own words (`idp::syntax::IDP_WORDS`):
/// numbers at the edges of the integers, strings, names and Lua words of procedures.
const OTHERS: &[&str] = &[
    "0",
    "1",
    "2",
    "-1",
    "1.5",
    "2147483647",
    "9223372036854775807",
    "\"s\"",
    "'c'",
    "x",
    "y",
    "V",
    "T",
    "S",
    "P",
    "f",
    "end",
    "local",
    "return",
    "function",
    "\n",
    " ",
];

/// IDP3's words and the other pieces, in one list.
pub static DICTIONARY: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
    idp::syntax::IDP_WORDS
        .iter()
        .chain(OTHERS)
        .copied()
        .collect()
});

/// More pieces for the grammar target (`grammar_diff`): IDP3's multi-word and state-dependent
/// tokens, comment openers, and characters whose lexing differs between IDP3's lexer states.
const GRAMMAR_EXTRAS: &[&str] = &[
    "/**",
    "/**/",
    "*",
    "'",
    "\"",
    "using vocabulary ",
    "using namespace ",
    "using  vocabulary ",
    "extern vocabulary ",
    "constructed from ",
    "EXISTS:",
    "FALSE BRANCH:",
    "TRUE BRANCH:",
    "GFD",
    "stdin",
    "...",
    "\r",
    "\t",
    "in",
    "sat",
    "generate",
    "true",
    "-1.5",
    ".5",
    "'\u{e9}'",
    "'}'",
    "\"}\"",
    "--}",
    "a",
    "z",
    "::",
    "(",
    ")",
    ",",
    "{",
    "}",
];

/// The dictionary of `grammar_diff`: [`DICTIONARY`] and the grammar's extra pieces.
pub static GRAMMAR_DICTIONARY: std::sync::LazyLock<Vec<&'static str>> =
    std::sync::LazyLock::new(|| DICTIONARY.iter().chain(GRAMMAR_EXTRAS).copied().collect());

/// A small deterministic generator (xorshift), seeded by libFuzzer.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u32) -> Rng {
        Rng(u64::from(seed).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Splits text into tokens; concatenating them gives the text back.
pub fn tokenize(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let len = token_len(rest, c);
        out.push(&rest[..len]);
        rest = &rest[len..];
    }
    out
}

/// The byte length of the token that starts `s` (whose first character is `c`).
fn token_len(s: &str, c: char) -> usize {
    let run = |pred: &dyn Fn(char) -> bool| -> usize {
        s.char_indices()
            .find(|&(_, ch)| !pred(ch))
            .map_or(s.len(), |(i, _)| i)
    };
    if c.is_alphabetic() || c == '_' {
        run(&|ch| ch.is_alphanumeric() || ch == '_' || ch == '\'')
    } else if c.is_ascii_digit() {
        run(&|ch| ch.is_ascii_digit())
    } else if c.is_whitespace() {
        run(&char::is_whitespace)
    } else if c == '"' {
        s[1..].find('"').map_or(s.len(), |i| i + 2)
    } else {
        operator_len(s).unwrap_or(c.len_utf8())
    }
}

/// The longest IDP operator that starts `s`.
fn operator_len(s: &str) -> Option<usize> {
    const OPS: &[&str] = &[
        "<=>", "::", "..", "~=", "=<", ">=", "<-", "->", "=>", "<=", "/*", "*/", "//",
    ];
    OPS.iter().find(|op| s.starts_with(*op)).map(|op| op.len())
}

/// Applies one to three token-level mutations to `text`.
pub fn mutate_text(text: &str, rng: &mut Rng) -> String {
    mutate_text_with(text, rng, &DICTIONARY)
}

/// [`mutate_text`] with the words of `dictionary`.
pub fn mutate_text_with(text: &str, rng: &mut Rng, dictionary: &[&str]) -> String {
    let mut tokens: Vec<String> = tokenize(text).into_iter().map(str::to_string).collect();
    let rounds = 1 + rng.below(3);
    for _ in 0..rounds {
        mutate_tokens(&mut tokens, rng, dictionary);
    }
    tokens.concat()
}

/// One mutation of a token list.
fn mutate_tokens(tokens: &mut Vec<String>, rng: &mut Rng, dictionary: &[&str]) {
    if tokens.is_empty() {
        tokens.push(dictionary[rng.below(dictionary.len())].to_string());
        return;
    }
    let n = tokens.len();
    let i = rng.below(n);
    match rng.below(7) {
        0 => {
            let end = (i + 1 + rng.below(3)).min(n);
            tokens.drain(i..end);
        }
        1 => {
            let end = (i + 1 + rng.below(8)).min(n);
            let copy: Vec<String> = tokens[i..end].to_vec();
            let at = rng.below(n + 1);
            tokens.splice(at..at, copy);
        }
        2 => tokens.swap(i, rng.below(n)),
        3 => tokens[i] = dictionary[rng.below(dictionary.len())].to_string(),
        4 => {
            let word = format!(" {} ", dictionary[rng.below(dictionary.len())]);
            tokens.insert(i, word);
        }
        5 => rename(tokens, i, rng),
        _ => {
            let end = (i + 1 + rng.below(16)).min(n);
            tokens.drain(i..end);
        }
    }
}

/// Replaces the identifier at (or after) `i` by another identifier of the input.
fn rename(tokens: &mut [String], i: usize, rng: &mut Rng) {
    let is_ident = |t: &String| t.starts_with(|c: char| c.is_alphabetic() || c == '_');
    let idents: Vec<usize> = (0..tokens.len())
        .filter(|&k| is_ident(&tokens[k]))
        .collect();
    if idents.is_empty() {
        return;
    }
    let target = idents
        .iter()
        .copied()
        .find(|&k| k >= i)
        .unwrap_or(idents[0]);
    let source = idents[rng.below(idents.len())];
    tokens[target] = tokens[source].clone();
}

/// The libFuzzer custom mutator: a token-level mutation most of the time, libFuzzer's own
/// byte-level mutation otherwise (given as `fallback`). Returns the new size.
pub fn mutate_buffer(
    data: &mut [u8],
    size: usize,
    max_size: usize,
    seed: u32,
    fallback: impl FnOnce(&mut [u8], usize, usize) -> usize,
) -> usize {
    mutate_buffer_with(data, size, max_size, seed, &DICTIONARY, fallback)
}

/// [`mutate_buffer`] with the words of `dictionary`.
pub fn mutate_buffer_with(
    data: &mut [u8],
    size: usize,
    max_size: usize,
    seed: u32,
    dictionary: &[&str],
    fallback: impl FnOnce(&mut [u8], usize, usize) -> usize,
) -> usize {
    let mut rng = Rng::new(seed);
    if rng.below(5) == 0 {
        return fallback(data, size, max_size);
    }
    let text = String::from_utf8_lossy(&data[..size]).into_owned();
    let mutant = mutate_text_with(&text, &mut rng, dictionary);
    let bytes = mutant.as_bytes();
    let len = bytes.len().min(max_size).min(data.len());
    data[..len].copy_from_slice(&bytes[..len]);
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_concatenate_to_the_text() {
        let text = "vocabulary V { P(x) <=> ~Q. \"a b\" 12 ?=1 }";
        assert_eq!(tokenize(text).concat(), text);
    }

    #[test]
    fn mutation_changes_something_eventually() {
        let mut rng = Rng::new(7);
        let text = "theory T : V { ! x : P(x) => Q(x). }";
        assert!((0..10).any(|_| mutate_text(text, &mut rng) != text));
    }
}
