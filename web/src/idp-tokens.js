// IDP3 / FO(.) highlighting for CodeMirror 6, the tokenizer (no imports, so that node runs its
// test, web/test/tokens.test.mjs): a stream tokenizer that knows the block keywords,
// the names they introduce, types, aggregates, connectives and quantifiers, comments, strings
// and numbers, and switches to Lua inside `procedure` bodies. IDP-Z3's FO(·) dialect is
// highlighted by the same rules: its words (`var`, `import`, `display`, `if`/`then`/`else`, `in`),
// types (`Bool`, `Int`, `Real`, `Date`, `𝔹`, `ℤ`, `ℝ`), signs (`:=`, `∀`, `∃`, `∧`, `⇒`, `≤`, ...),
// connectives in words (`are sufficient conditions for`, `is less than`, ...) and quoted names.

const BLOCKS = new Set([
  "vocabulary", "theory", "structure", "factlist", "procedure", "namespace", "term", "query",
  "LTCvocabulary", "Vocabulary", "Theory", "Structure",
]);
const KEYWORDS = new Set([
  "include", "using", "type", "isa", "contains", "constructed", "from", "partial", "extern",
  "define", "LFD", "fobdd",
  // IDP-Z3's FO(·)
  "var", "import", "display", "total", "if", "then", "else", "in", "not", "and", "or",
]);
const TYPES = new Set([
  "int", "nat", "float", "string", "char", "bool", "Bool", "Int", "Real", "Date", "Concept",
]);
const BUILTINS = new Set([
  "sum", "prod", "min", "max", "card", "abs", "MIN", "MAX", "SUCC", "PRED", "Start", "Next",
]);
const ATOMS = new Set(["true", "false"]);
// IDP-Z3's connectives and comparisons in words, matched as whole phrases so that the words
// alone (`is`, `all`, `a`) stay names in IDP3 files.
const PHRASES = new RegExp(
  "^(are\\s+necessary\\s+and\\s+sufficient\\s+conditions\\s+for" +
    "|are\\s+(necessary|sufficient)\\s+conditions\\s+for|is\\s+the\\s+same\\s+as" +
    "|is\\s+strictly\\s+(less|greater)\\s+than|is\\s+(less|greater)\\s+than|is\\s+not" +
    "|for\\s+all|there\\s+is\\s+a|such\\s+that|the\\s+(sum|minimum|maximum)\\s+of)\\b",
);
const LUA_KEYWORDS = new Set([
  "and", "break", "do", "else", "elseif", "end", "for", "function", "if", "in", "local", "not",
  "or", "repeat", "return", "then", "until", "while",
]);
const LUA_ATOMS = new Set(["nil", "true", "false"]);

export function startState() {
  // comment: inside /* */; name: the next word names a block; proc: a procedure's name or
  // header was read; depth: brace depth inside a procedure body (0: not in one);
  // luaLong: inside a Lua [[ ]] string or --[[ ]] comment ("string" or "comment").
  return { comment: false, name: false, proc: false, depth: 0, luaLong: null };
}

export function copyState(s) {
  return { ...s };
}

function blockComment(stream, state) {
  while (!stream.eol()) {
    if (stream.match("*/")) {
      state.comment = false;
      return "comment";
    }
    stream.next();
  }
  return "comment";
}

export function token(stream, state) {
  if (state.comment) return blockComment(stream, state);
  if (state.depth > 0) return luaToken(stream, state);
  if (stream.eatSpace()) return null;
  if (stream.match("//")) {
    stream.skipToEnd();
    return "comment";
  }
  if (stream.match("/*")) {
    state.comment = true;
    return blockComment(stream, state);
  }
  if (stream.match(/^"(?:[^"\\]|\\.)*"?/)) return "string";
  if (stream.match(/^<(ct|cf|u|mx)>/)) return "modifier";
  if (stream.match(/^-?\d+(\.\d+)?/)) return "number";
  if (stream.match(PHRASES)) return "keyword";
  if (stream.match(/^'[^'\n]*'/)) return "variableName";
  const word = stream.match(/^[A-Za-z_][A-Za-z0-9_']*/);
  if (word) return wordToken(word[0], state);
  if (stream.peek() === "{" && state.proc) {
    stream.next();
    state.proc = false;
    state.depth = 1;
    return "brace";
  }
  if (stream.match(/^(<=>|<=|=>|<-|~=|=<|>=|->|\.\.|::|:=|<:)/)) return "operator";
  if (stream.match(/^[𝔹ℤℝ]/u)) return "typeName";
  const ch = stream.next();
  if ("!?∀∃".includes(ch)) return "keyword";
  if ("¬∧∨⇒⇐⇔≠≤≥←→⨯≜∈⊆⊇".includes(ch)) return "operator";
  if ("&|~".includes(ch)) return "operator";
  if ("{}()[]".includes(ch)) return "bracket";
  if ("=<>+-*/%^#".includes(ch)) return "operator";
  return "punctuation";
}

function wordToken(w, state) {
  if (state.name) {
    state.name = false;
    return "variableName.definition";
  }
  if (BLOCKS.has(w)) {
    state.name = true;
    if (w === "procedure") state.proc = true;
    return "keyword";
  }
  if (KEYWORDS.has(w)) return "keyword";
  if (TYPES.has(w)) return "typeName";
  if (BUILTINS.has(w)) return "builtin";
  if (ATOMS.has(w)) return "atom";
  return "variableName";
}

function luaToken(stream, state) {
  if (state.luaLong) {
    const style = state.luaLong;
    if (stream.skipTo("]]")) {
      stream.match("]]");
      state.luaLong = null;
    } else stream.skipToEnd();
    return style;
  }
  if (stream.eatSpace()) return null;
  if (stream.match("--[[")) {
    state.luaLong = "comment";
    return luaToken(stream, state);
  }
  if (stream.match("--") || stream.match("//")) {
    stream.skipToEnd();
    return "comment";
  }
  if (stream.match("[[")) {
    state.luaLong = "string";
    return luaToken(stream, state);
  }
  if (stream.match(/^"(?:[^"\\]|\\.)*"?/) || stream.match(/^'(?:[^'\\]|\\.)*'?/)) return "string";
  if (stream.match(/^\d+(\.\d+)?/)) return "number";
  const word = stream.match(/^[A-Za-z_][A-Za-z0-9_]*/);
  if (word) {
    if (LUA_KEYWORDS.has(word[0])) return "keyword";
    if (LUA_ATOMS.has(word[0])) return "atom";
    return stream.peek() === "(" ? "variableName.function" : "variableName";
  }
  const ch = stream.next();
  if (ch === "{") {
    state.depth++;
    return "brace";
  }
  if (ch === "}") {
    state.depth--;
    return "brace";
  }
  if ("()[]".includes(ch)) return "bracket";
  return "operator";
}
