// The workbench's tokenizer (web/src/idp-tokens.js) on lines of both dialects: each line's
// tokens as `style:text`, compared with what they must be. Run by tests/web_tokens.rs
// (`node web/test/tokens.test.mjs`); exits 1 and prints the lines that differ.
import { startState, token } from "../src/idp-tokens.js";

// The part of CodeMirror's StringStream the tokenizer uses.
class Stream {
  constructor(line) {
    this.string = line;
    this.pos = 0;
    this.start = 0;
  }
  eol() {
    return this.pos >= this.string.length;
  }
  peek() {
    return this.string.charAt(this.pos) || undefined;
  }
  next() {
    if (this.pos < this.string.length) return this.string.charAt(this.pos++);
    return undefined;
  }
  eatSpace() {
    const start = this.pos;
    while (/[\s\u00a0]/.test(this.string.charAt(this.pos))) this.pos++;
    return this.pos > start;
  }
  skipToEnd() {
    this.pos = this.string.length;
  }
  skipTo(ch) {
    const found = this.string.indexOf(ch, this.pos);
    if (found > -1) {
      this.pos = found;
      return true;
    }
    return false;
  }
  match(pattern) {
    if (typeof pattern === "string") {
      if (this.string.startsWith(pattern, this.pos)) {
        this.pos += pattern.length;
        return true;
      }
      return null;
    }
    const found = this.string.slice(this.pos).match(pattern);
    if (found && found.index > 0) return null;
    if (found) this.pos += found[0].length;
    return found;
  }
}

// Every token of `lines` (one state across them) as `style:text`, spaces left out.
function tokens(lines) {
  const state = startState();
  const out = [];
  for (const line of lines) {
    const stream = new Stream(line);
    while (!stream.eol()) {
      stream.start = stream.pos;
      const style = token(stream, state);
      const text = line.slice(stream.start, stream.pos);
      if (style) out.push(`${style}:${text}`);
    }
  }
  return out.join(" ");
}

const cases = [
  [
    ["theory T : V {", "  ! x : P(x) <=> ~Q(x)."],
    "keyword:theory variableName.definition:T punctuation:: variableName:V bracket:{ " +
      "keyword:! variableName:x punctuation:: variableName:P bracket:( variableName:x " +
      "bracket:) operator:<=> operator:~ variableName:Q bracket:( variableName:x bracket:) " +
      "punctuation:.",
  ],
  [
    ["end_time() is less than 8 are necessary conditions for activity() is not Sport."],
    "variableName:end_time bracket:( bracket:) keyword:is less than number:8 " +
      "keyword:are necessary conditions for variableName:activity bracket:( bracket:) " +
      "keyword:is not variableName:Sport punctuation:.",
  ],
  [
    ["for all a in Activity: 3 is the sum of cost(a) for all a in Activity such that a is x."],
    "keyword:for all variableName:a keyword:in variableName:Activity punctuation:: " +
      "number:3 variableName:is keyword:the sum of variableName:cost bracket:( " +
      "variableName:a bracket:) keyword:for all variableName:a keyword:in " +
      "variableName:Activity keyword:such that variableName:a variableName:is " +
      "variableName:x punctuation:.",
  ],
  [
    ["type Activity := {Sport, '(No activity)'}", "island: () -> Bool"],
    "keyword:type variableName:Activity operator::= bracket:{ variableName:Sport " +
      "punctuation:, variableName:'(No activity)' bracket:} variableName:island " +
      "punctuation:: bracket:( bracket:) operator:-> typeName:Bool",
  ],
];

let failed = 0;
for (const [lines, want] of cases) {
  const got = tokens(lines);
  if (got !== want) {
    failed++;
    console.log(`lines: ${JSON.stringify(lines)}\n  want: ${want}\n  got:  ${got}`);
  }
}
console.log(`${cases.length - failed} of ${cases.length} cases agree`);
process.exit(failed ? 1 : 0);
