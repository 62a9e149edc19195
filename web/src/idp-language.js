// IDP3 / FO(.) highlighting for CodeMirror 6: the tokenizer of idp-tokens.js as a StreamLanguage.
import { StreamLanguage } from "@codemirror/language";
import { copyState, startState, token } from "./idp-tokens.js";

export const idpLanguage = StreamLanguage.define({
  name: "idp",
  startState,
  copyState,
  token,
  languageData: { commentTokens: { line: "//", block: { open: "/*", close: "*/" } } },
});
