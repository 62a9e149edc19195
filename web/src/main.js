// The page of `idp serve`: the editor (CodeMirror 6 with IDP highlighting and diagnostics as
// you type, from the server's `idp --check`), the file list, drafts kept in the browser
// (localStorage), New, Save, Save as and Download, and the run panel (main or an expression,
// model expansion or minimisation; Stop; a progress line; models as tables, grids as SVG
// pictures, frames of a run behind a slider; errors as links to their lines), or the
// consultant (consult.js: choose values, see what follows and why). Every request
// carries the launch's token (from the address, `?token=...`) and the page's own name, which
// owns its runs; closing the page ends them.
import { EditorState } from "@codemirror/state";
import {
  EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection,
} from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import {
  syntaxHighlighting, defaultHighlightStyle, bracketMatching, indentOnInput,
} from "@codemirror/language";
import { linter, lintGutter, setDiagnostics } from "@codemirror/lint";
import { searchKeymap, highlightSelectionMatches } from "@codemirror/search";
import { idpLanguage } from "./idp-language.js";
import { createConsultant } from "./consult.js";

const $ = (id) => document.getElementById(id);

const page = {
  path: "",
  saved: "",
  summary: null,
  run: null, // { id, mode, timer }
  lastCheck: null,
  folder: "",
  modeChosen: false, // the mode was chosen by hand: checks no longer change it
  draftTimer: null,
};

// ---- the server ----

const TOKEN = new URLSearchParams(location.search).get("token") || "";

function randomName() {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return "page-" + [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// This page's name: it owns the runs it starts.
const PAGE = randomName();

function headers() {
  return { "X-Idp-Token": TOKEN, "X-Idp-Page": PAGE };
}

async function api(method, url, body) {
  const init = { method, headers: headers() };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(url, init);
  let data;
  try {
    data = await response.json();
  } catch (e) {
    throw new Error(`${response.status} ${response.statusText}`);
  }
  if (!response.ok) throw new Error(data.error || `${response.status}`);
  return data;
}

// ---- small DOM helpers ----

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c != null) node.append(c);
  return node;
}

function setStatus(id, text, kind = "") {
  const node = $(id);
  node.textContent = text;
  node.className = kind;
}

// ---- diagnostics as you type ----

function toDiagnostic(d, length) {
  let from = Math.min(d.from ?? 0, length);
  let to = Math.min(Math.max(d.to ?? from, from), length);
  if (to === from && to < length) to += 1;
  const message = `${d.message} [${d.code}]${d.hint ? `\nhint: ${d.hint}` : ""}`;
  return { from, to, severity: d.severity === "error" ? "error" : "warning", message, source: d.code };
}

async function checkBuffer(view) {
  const text = view.state.doc.toString();
  let result;
  try {
    result = await api("POST", "/api/check", { path: page.path, text });
  } catch (e) {
    setStatus("check-status", `check failed: ${e.message}`, "bad");
    return [];
  }
  if (view.state.doc.toString() !== text) return [];
  page.lastCheck = result;
  showDiagnostics(result, view);
  if (result.summary && result.summary.theories) updateChoices(result.summary);
  return result.diagnostics.filter((d) => d.from != null).map((d) => toDiagnostic(d, text.length));
}

function showDiagnostics(result, view) {
  const list = $("diagnostics");
  list.replaceChildren();
  const errors = result.diagnostics.filter((d) => d.severity === "error").length;
  const warnings = result.diagnostics.length - errors;
  setStatus(
    "check-status",
    errors || warnings ? `${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}` : "no problems",
    errors ? "bad" : "good",
  );
  for (const d of result.diagnostics) {
    const item = el(
      "li",
      { class: d.severity, "data-code": d.code, "data-line": d.line ?? "" },
      el("span", { class: "where", text: d.line ? `${d.line}:${d.col}` : "" }),
      el("span", { class: "code", text: `[${d.code}]` }),
      el("span", { class: "message", text: d.message }),
      d.hint ? el("div", { class: "hint", text: `hint: ${d.hint}` }) : null,
    );
    item.addEventListener("click", () => {
      const pos = Math.min(d.from ?? 0, view.state.doc.length);
      view.dispatch({ selection: { anchor: pos }, scrollIntoView: true });
      view.focus();
    });
    list.append(item);
  }
  if (result.other && result.other.trim()) list.append(el("li", { class: "other", text: result.other }));
}

// ---- theory / structure / term choices ----

function fill(select, names, first = null) {
  const keep = select.value;
  const options = names.map((n) => el("option", { value: n, text: n }));
  if (first) options.unshift(el("option", { value: "", text: first }));
  select.replaceChildren(...options);
  if (names.includes(keep) || (first && keep === "")) select.value = keep;
  select.disabled = names.length === 0;
}

// The theories to choose from; a consultation of a file with IDP-Z3's environment and decision
// theories may take both together (first, and chosen unless one is: no --theory then).
function fillTheories() {
  const theories = (page.summary && page.summary.theories) || [];
  const written = theories.map((n) => n.replace(/ \(theory\)$/, ""));
  const both = written.includes("environment") && written.includes("decision");
  const consulting = $("mode").value === "consult";
  const select = $("theory");
  const had = [...select.options].some((o) => o.value === "");
  fill(select, theories, both && consulting ? "environment + decision" : null);
  if (both && consulting && !had) select.value = "";
}

// Until the mode is chosen by hand, a specification with `main` runs it, and one without
// runs model expansion (as `idp FILE` and `idp -n 1 FILE` would).
function updateChoices(summary) {
  page.summary = summary;
  fillTheories();
  fill($("structure"), summary.structures || []);
  fill($("term"), summary.terms || []);
  const choices = $("choices");
  const keep = choices.value;
  choices.replaceChildren(el("option", { value: "", text: "(none)" }),
    ...(summary.structures || []).map((n) => el("option", { value: n, text: n })));
  if ([...choices.options].some((o) => o.value === keep)) choices.value = keep;
  const hasMain = (summary.procedures || []).includes("main");
  if (!page.modeChosen) $("mode").value = hasMain || !(summary.theories || []).length ? "main" : "expand";
  modeChanged();
}

function modeChanged() {
  const mode = $("mode").value;
  document.body.dataset.mode = mode;
  $("run").textContent = mode === "consult" ? "Consult" : "Run";
  fillTheories();
  if (mode !== "consult" && consultant.isOpen()) {
    consultant.close();
    clearResults();
  }
}

// ---- files ----

async function loadFileList() {
  const files = await api("GET", "/api/files");
  const select = $("file");
  select.replaceChildren();
  const groups = [["opened", files.opened]];
  for (const g of ["examples", "specs"]) {
    groups.push([g, files.gallery.filter((e) => e.group === g).map((e) => e.path)]);
  }
  for (const [label, paths] of groups) {
    if (!paths.length) continue;
    const group = el("optgroup", { label });
    for (const p of paths) group.append(el("option", { value: p, text: p }));
    select.append(group);
  }
  $("folder").textContent = files.folder || "";
  page.folder = files.folder || "";
  $("limits").textContent = `runs: ${files.limits.max_runs} at once, each ${files.limits.timeout} s, ${files.limits.max_memory} MB`;
  const fromHash = hashParts().path;
  return fromHash || files.opened[0] || (files.gallery[0] && files.gallery[0].path) || "";
}

async function openFile(path) {
  if (!path) return newFile();
  let file;
  try {
    file = await api("GET", `/api/file?path=${encodeURIComponent(path)}`);
  } catch (e) {
    setStatus("save-status", e.message, "bad");
    return;
  }
  showBuffer(file.path, file.text);
}

// Shows `text`, the file `path` as saved ("" for a new buffer), or its draft when the
// browser keeps one.
function showBuffer(path, text) {
  consultant.close();
  page.path = path;
  page.saved = text;
  page.summary = null;
  page.modeChosen = false;
  const select = $("file");
  if (path && ![...select.options].some((o) => o.value === path)) {
    select.append(el("option", { value: path, text: path }));
  }
  select.value = path;
  history_replace(path);
  $("expr").value = stored(exprKey(path)) || "";
  const draft = readDraft(path);
  const shown = draft !== null && draft !== text ? draft : text;
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: shown } });
  setStatus("save-status", shown === text ? "" : "your unsaved draft (kept by this browser)", shown === text ? "" : "draft");
  document.title = `${path || "untitled"} — idp`;
  showDirty();
  clearResults();
}

// The address's part after `#`: the file's path, then `&consult=` and the consultation's
// theory, structure and choices (JSON) when one is open, so that the link restores it.
function history_replace(path, consultation = null) {
  const file = encodeURIComponent(path).replace(/%2F/g, "/");
  const state = consultation ? `&consult=${encodeURIComponent(JSON.stringify(consultation))}` : "";
  window.history.replaceState(null, "", `${location.search}#${file}${state}`);
}

function hashParts() {
  const hash = location.hash.slice(1);
  const at = hash.indexOf("&consult=");
  const path = decodeURIComponent(at < 0 ? hash : hash.slice(0, at));
  let consultation = null;
  if (at >= 0) {
    try {
      consultation = JSON.parse(decodeURIComponent(hash.slice(at + 9)));
    } catch (e) {
      consultation = null;
    }
  }
  return { path, consultation };
}

// ---- drafts: every edit is kept in the browser until the file is saved ----

function draftKey(path) {
  return `idp-draft:${page.folder}:${path || "(untitled)"}`;
}

function readDraft(path) {
  return stored(draftKey(path));
}

// The expression last run with a file, kept as its draft is.
function exprKey(path) {
  return `idp-expr:${page.folder}:${path || "(untitled)"}`;
}

function stored(key) {
  try {
    return localStorage.getItem(key);
  } catch (e) {
    return null;
  }
}

function keepDraft() {
  const text = view.state.doc.toString();
  try {
    if (text === page.saved) localStorage.removeItem(draftKey(page.path));
    else localStorage.setItem(draftKey(page.path), text);
  } catch (e) {
    setStatus("save-status", `the draft could not be kept: ${e.message}`, "bad");
  }
}

function draftSoon() {
  clearTimeout(page.draftTimer);
  page.draftTimer = setTimeout(keepDraft, 300);
}

// ---- New, Save, Save as, Download ----

const NEW_TEXT = "vocabulary V {\n    \n}\n\ntheory T : V {\n    \n}\n\nstructure S : V {\n    \n}\n";

// A new buffer (its draft, if one was kept), saved with Save as.
function newFile() {
  showBuffer("", "");
  if (!view.state.doc.length) view.dispatch({ changes: { from: 0, insert: NEW_TEXT } });
  view.focus();
}

// Only the .idp files the page opened or created are saved; anything else is saved as a new
// .idp file (or downloaded).
function canSave() {
  return page.path.endsWith(".idp");
}

async function save() {
  if (!canSave()) return saveAs();
  await write(page.path, false);
}

async function saveAs() {
  const base = page.path ? page.path.replace(/\.[^./]*$/, "") + "-copy.idp" : "untitled.idp";
  let path = window.prompt("Save as a new .idp file (a path inside the server's folder):", base);
  if (!path) return;
  if (!path.endsWith(".idp")) path += ".idp";
  await write(path, true);
}

async function write(path, isNew) {
  const text = view.state.doc.toString();
  try {
    const r = await api("POST", "/api/save", { path, text, new: isNew });
    const oldDraft = draftKey(page.path);
    page.path = r.saved;
    page.saved = text;
    localStorage.removeItem(oldDraft);
    localStorage.removeItem(draftKey(page.path));
    if (isNew) showBuffer(r.saved, text);
    setStatus("save-status", `saved ${r.saved} (${r.bytes} bytes)`, "good");
  } catch (e) {
    setStatus("save-status", `not saved: ${e.message}`, "bad");
  }
  showDirty();
}

function download() {
  const name = (page.path.split("/").pop() || "untitled.idp");
  const url = URL.createObjectURL(new Blob([view.state.doc.toString()], { type: "text/plain" }));
  const link = el("a", { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function dirty() {
  return view.state.doc.toString() !== page.saved;
}

function showDirty() {
  $("dirty").textContent = dirty() ? "●" : "";
  $("save").disabled = !canSave();
  $("save").title = canSave() ? "Ctrl-S" : "only .idp files the page opened or created are saved: use Save as or Download";
}

// ---- runs ----

// `instead`: fields of the request that the page sets itself (the Why button's model
// expansion of the theory and structure that `main()` found without a model).
async function startRun(instead = {}) {
  if (page.run) return;
  const mode = instead.mode || $("mode").value;
  if (mode === "consult") return startConsultation();
  const request = {
    path: page.path,
    text: view.state.doc.toString(),
    mode,
    expression: $("expr").value || null,
    theory: $("theory").value || null,
    structure: $("structure").value || null,
    term: $("term").value || null,
    models: Number($("models").value || 1),
    grid: $("grid").value || null,
    ...instead,
  };
  clearResults();
  let started;
  try {
    started = await api("POST", "/api/run", request);
  } catch (e) {
    setStatus("status", `not started: ${e.message}`, "bad");
    return;
  }
  page.run = { id: started.id, mode, timer: null };
  $("run").disabled = true;
  $("stop").disabled = false;
  document.body.dataset.running = "true";
  setStatus("progress", "started", "running");
  poll();
}

// ---- the consultant ----

const consultant = createConsultant({
  api,
  el,
  jumpTo: (where) => jumpTo(where),
  markLines: (marks, severity) => markLines(marks, severity),
  onHash: (state) => history_replace(page.path, state),
  terms: () => page.summary?.terms || [],
  structures: () => page.summary?.structures || [],
  appendText: (text) => {
    const end = view.state.doc.length;
    view.dispatch({ changes: { from: end, insert: text }, scrollIntoView: true });
  },
});

// Opens a consultation of the buffer; `restore`: the choices to make first (from a link).
async function startConsultation(restore = [], names = null) {
  clearResults();
  delete $("results").dataset.stale;
  const request = {
    path: page.path,
    text: view.state.doc.toString(),
    theory: names ? names.theory : $("theory").value || null,
    structure: names ? names.structure : $("structure").value || null,
    expression: $("expr").value || null,
    choices: $("choices").value || null,
  };
  await consultant.open(request, $("results"), restore);
}

async function poll() {
  const run = page.run;
  if (!run) return;
  let status;
  try {
    status = await api("GET", `/api/runs/${run.id}`);
  } catch (e) {
    setStatus("progress", `lost the run: ${e.message}`, "bad");
    endRun();
    return;
  }
  if (status.running && status.queued) {
    setStatus("progress", "waiting for a free slot (other runs are going on)", "running");
    run.timer = setTimeout(poll, 250);
    return;
  }
  if (status.running) {
    const what = status.progress ? ` — ${status.progress.replace(/^\[idp\] /, "")}` : "";
    const stopping = status.stops ? " — stopping" : "";
    setStatus("progress", `running ${status.elapsed.toFixed(1)} s${what}${stopping}`, "running");
    $("live").textContent = status.stdout;
    run.timer = setTimeout(poll, 250);
    return;
  }
  $("live").textContent = "";
  setStatus("progress", "");
  showResults(status, run.mode);
  endRun();
}

function endRun() {
  page.run = null;
  $("run").disabled = false;
  $("stop").disabled = true;
  delete document.body.dataset.running;
}

async function stopRun() {
  if (!page.run) return;
  try {
    await api("POST", `/api/runs/${page.run.id}/stop`, {});
  } catch (e) {
    setStatus("progress", `could not stop: ${e.message}`, "bad");
  }
}

function clearResults() {
  $("results").replaceChildren();
  $("live").textContent = "";
  setStatus("status", "");
}

function showResults(status, mode) {
  const kind = status.exit_code === 0 || status.exit_code === 10 ? "good" : "bad";
  const results = $("results");
  const segments = status.segments;
  const counted = segments.filter((seg) => seg.kind === "text")
    .map((seg) => /^Number of models: (\d+)$/m.exec(seg.text)).filter((m) => m).pop();
  const none = counted && counted[1] === "0";
  const count = !counted ? "" : none ? " — no model" : ` — ${counted[1]} model${counted[1] === "1" ? "" : "s"}`;
  // A run that ends well but finds no model is not a success to show in green.
  setStatus("status", `${status.outcome} in ${status.elapsed.toFixed(2)} s${count}`, none && kind === "good" ? "none" : kind);
  const models = segments.filter((s) => s.kind === "model");
  const pictures = segments.filter((s) => s.kind === "picture");
  // A model expansion prints the models, then the pictures of the first ones: pair them.
  // Otherwise a picture printed right after a model (as `print(m) visualize(m)`) joins it.
  const paired = mode !== "main" && pictures.length > 0 && pictures.length <= models.length;
  let modelIndex = 0;
  let open = null; // the last model's section while it has no picture yet
  for (const seg of segments) {
    if (seg.kind === "text") {
      appendText(results, seg.text);
      open = null;
    } else if (seg.kind === "model") {
      const section = renderModel(seg, modelIndex);
      open = section;
      if (paired && pictures[modelIndex]) {
        attachPicture(section, pictures[modelIndex]);
        open = null;
      }
      results.append(section);
      modelIndex++;
    } else if (seg.kind === "picture" && !paired) {
      if (open) attachPicture(open, seg);
      else results.append(renderPicture(seg));
      open = null;
    }
  }
  if (status.stdout_truncated) results.append(el("p", { class: "note", text: "(the middle of the output, past 8 MB, was not kept)" }));
  const why = mode === "main" && none ? unexplained(status.stderr) : null;
  const stderr = why ? status.stderr.replace(COMMAND_LINE_WHY, "") : status.stderr;
  if (stderr.trim()) results.append(renderStderr(stderr));
  if (why) results.append(whyButton(why));
  if (!segments.length && !status.stderr.trim()) {
    results.append(el("p", { class: "note", text: "(the run printed nothing)" }));
  }
}

// What `printmodels` says of a theory without a model, and the command line it names (which
// the page replaces by its Why button).
const NO_MODEL = /theory (\S+) has no model with structure (\S+);/;
const COMMAND_LINE_WHY = / \(from the command line: idp --explain FILE\)/g;

// The theory and structure that a `main()` run found no model of, when it says which.
function unexplained(stderr) {
  const m = NO_MODEL.exec(stderr);
  return m ? { theory: m[1], structure: m[2] } : null;
}

// Runs the model expansion of that theory and structure, whose answer says why (the parts
// of the theory and the facts that have no model together, marked in the editor).
function whyButton({ theory, structure }) {
  const button = el("button", { id: "why-run", type: "button", text: `Why has ${theory} no model in ${structure}?` });
  button.addEventListener("click", () => startRun({ mode: "expand", theory, structure, models: 1 }));
  return el("p", { class: "why-ask" }, button);
}

// Text of the run; from a line `Why: ...` on (the explanation of a run without a model),
// the parts it names are listed with their positions, clickable, and marked in the editor.
function appendText(results, text) {
  const lines = text.split("\n");
  const at = lines.findIndex((l) => l.startsWith("Why: "));
  const before = at < 0 ? text : lines.slice(0, at).join("\n");
  if (before.trim()) results.append(el("pre", { class: "text", text: before }));
  if (at >= 0) results.append(renderWhy(lines.slice(at)));
}

// The run's messages; each `line N` (`line N:C`) is a link that puts the cursor there and
// marks the line in the editor with the message.
const LINE_REF = /\bline (\d+)(?::(\d+))?/g;

function renderStderr(text) {
  const box = el("pre", { class: "stderr" });
  const marks = [];
  for (const line of text.replace(/\n+$/, "").split("\n")) {
    let at = 0;
    for (const m of line.matchAll(LINE_REF)) {
      box.append(line.slice(at, m.index));
      const where = { line: Number(m[1]), col: Number(m[2] || 1) };
      const link = el("a", { class: "line-link", href: "#", "data-line": where.line, text: m[0] });
      link.addEventListener("click", (e) => {
        e.preventDefault();
        jumpTo(where);
      });
      box.append(link);
      marks.push({ ...where, message: line.trim() });
      at = m.index + m[0].length;
    }
    box.append(`${line.slice(at)}\n`);
  }
  if (marks.length) markLines(marks, "error");
  return box;
}

const LOCATED = /^ {2}(\S+):(\d+):(\d+): (.*)$/;

function renderWhy(lines) {
  const box = el("div", { class: "why" }, el("p", { class: "why-head", text: lines[0] }));
  const list = el("ul");
  const marks = [];
  let item = null;
  for (const line of lines.slice(1)) {
    const m = LOCATED.exec(line);
    if (m) {
      const [, file, row, col, what] = m;
      const here = file === "stdin" ? { line: Number(row), col: Number(col) } : null;
      item = el("li", { class: here ? "located" : "" },
        el("span", { class: "where", text: here ? `${row}:${col}` : `${file}:${row}:${col}` }),
        el("span", { class: "what", text: what }));
      if (here) {
        marks.push({ ...here, what });
        item.addEventListener("click", () => jumpTo(here));
      }
      list.append(item);
    } else if (line.startsWith("      ") && item) {
      // An instance of the sentence above (indented under it).
      item.append(el("div", { class: "instance", text: line.trim() }));
    } else if (line.trim()) {
      // What the types and functions give, what stayed whole, another conflict: lines of
      // their own, not instances of the part above.
      item = null;
      list.append(el("li", { class: "given", text: line.trim() }));
    }
  }
  box.append(list);
  markWhy(marks);
  return box;
}

function offsetOf(where) {
  const doc = view.state.doc;
  if (where.line < 1 || where.line > doc.lines) return null;
  const line = doc.line(where.line);
  return { from: Math.min(line.from + where.col - 1, line.to), to: line.to };
}

function jumpTo(where) {
  const range = offsetOf(where);
  if (!range) return;
  view.dispatch({ selection: { anchor: range.from }, scrollIntoView: true });
  view.focus();
}

// The explanation's parts join the check's diagnostics as notes; the next check (after an
// edit) replaces them all.
function markWhy(marks) {
  markLines(marks.map((m) => ({ ...m, message: `part of why there is no model: ${m.what}` })), "info");
}

// Marks each place `{ line, col, message }` from its column to the end of its line, with the
// check's diagnostics.
function markLines(marks, severity) {
  const text = view.state.doc.toString();
  const checked = (page.lastCheck?.diagnostics ?? [])
    .filter((d) => d.from != null)
    .map((d) => toDiagnostic(d, text.length));
  const notes = marks.flatMap((m) => {
    const range = offsetOf(m);
    if (!range) return [];
    const to = range.to > range.from ? range.to : Math.min(range.from + 1, text.length);
    return [{ from: range.from, to, severity, source: "run", message: m.message }];
  });
  view.dispatch(setDiagnostics(view.state, [...checked, ...notes]));
}

function renderModel(model, index) {
  const title = model.title || `Structure ${index + 1}`;
  const section = el("section", { class: "model", "data-index": index });
  section.append(el("h3", { text: `${title}${model.vocabulary ? ` : ${model.vocabulary}` : ""}` }));
  const tables = el("div", { class: "symbols" });
  for (const s of model.symbols) tables.append(renderSymbol(s));
  section.append(tables);
  return section;
}

// The picture goes above the model's tables.
function attachPicture(section, picture) {
  section.insertBefore(renderPicture(picture), section.querySelector(".symbols"));
}

function renderSymbol(s) {
  const name = s.name + s.part;
  const table = el("table", { class: "symbol", "data-symbol": name });
  table.append(el("caption", { text: name }));
  if (s.value !== null && s.value !== undefined) {
    table.append(el("tbody", {}, el("tr", {}, el("td", { text: s.value }))));
    return table;
  }
  const width = s.rows.reduce((w, r) => Math.max(w, r.length), 0);
  if (width > 1 || s.function) {
    const head = el("tr");
    for (let i = 0; i < width; i++) {
      const last = s.function && i === width - 1;
      head.append(el("th", { text: last ? "value" : `${i + 1}` }));
    }
    table.append(el("thead", {}, head));
  }
  const body = el("tbody");
  for (const row of s.rows) body.append(el("tr", {}, ...row.map((x) => el("td", { text: x }))));
  if (!s.rows.length) body.append(el("tr", { class: "empty" }, el("td", { text: "(empty)" })));
  table.append(body);
  return table;
}

function renderPicture(picture) {
  const figure = el("figure", { class: "picture", "data-frames": picture.frames });
  const holder = el("div", { class: "svg" });
  holder.innerHTML = picture.svg;
  figure.append(holder);
  if (picture.frames > 1) {
    const label = el("span", { class: "frame-label" });
    const slider = el("input", {
      type: "range", class: "frame-slider", min: 0, max: picture.frames - 1, value: 0, step: 1,
    });
    const all = el("button", { class: "frame-all", text: "all frames" });
    figure.append(el("div", { class: "frames" }, slider, label, all));
    requestAnimationFrame(() => setupFrames(holder, slider, label, all));
  }
  return figure;
}

// Frames of a run (one per time point) are groups side by side in the SVG; the slider shows
// one at a time by moving the viewBox, "all frames" shows the whole picture again.
function setupFrames(holder, slider, label, all) {
  const svg = holder.querySelector("svg");
  if (!svg) return;
  const whole = svg.getAttribute("viewBox");
  const boxes = [...svg.querySelectorAll("g.frame")].map((g) => {
    const b = g.getBBox();
    const m = /translate\(\s*([-\d.]+)[ ,]+([-\d.]+)\s*\)/.exec(g.getAttribute("transform") || "");
    const [tx, ty] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
    return { x: b.x + tx - 4, y: b.y + ty - 4, w: b.width + 8, h: b.height + 8 };
  });
  const show = (k) => {
    const b = boxes[k];
    svg.setAttribute("viewBox", `${b.x} ${b.y} ${b.w} ${b.h}`);
    svg.setAttribute("width", b.w * 1.5);
    svg.setAttribute("height", b.h * 1.5);
    label.textContent = `frame ${k + 1} of ${boxes.length}`;
    holder.dataset.frame = k;
  };
  slider.addEventListener("input", () => show(Number(slider.value)));
  all.addEventListener("click", () => {
    svg.setAttribute("viewBox", whole);
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    label.textContent = `all ${boxes.length} frames`;
    delete holder.dataset.frame;
  });
  show(0);
}

// ---- the editor ----

const view = new EditorView({
  parent: $("editor"),
  state: EditorState.create({
    doc: "",
    extensions: [
      lineNumbers(),
      highlightActiveLineGutter(),
      history(),
      drawSelection(),
      indentOnInput(),
      bracketMatching(),
      highlightActiveLine(),
      EditorView.lineWrapping,
      highlightSelectionMatches(),
      idpLanguage,
      syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
      linter(checkBuffer, { delay: 400 }),
      lintGutter(),
      keymap.of([
        indentWithTab,
        ...defaultKeymap,
        ...historyKeymap,
        ...searchKeymap,
      ]),
      EditorView.updateListener.of((u) => {
        if (!u.docChanged) return;
        showDirty();
        draftSoon();
        if (consultant.isOpen()) $("results").dataset.stale = "true";
      }),
    ],
  }),
});

// For tests and the console: the editor view, the page's state and its requests.
window.idpEditor = view;
window.idpPage = page;
window.idpApi = api;
window.idpConsultant = consultant;

// Ctrl-Enter runs and Ctrl-S saves wherever the focus is (Cmd on a Mac).
function shortcuts(e) {
  if (!(e.ctrlKey || e.metaKey) || e.altKey) return;
  if (e.key === "Enter") {
    e.preventDefault();
    startRun();
  } else if (e.key === "s" || e.key === "S") {
    e.preventDefault();
    if (e.shiftKey) saveAs();
    else save();
  }
}

// The page is going away: its runs end (a request that outlives the page).
function closing() {
  keepDraft();
  fetch("/api/close", {
    method: "POST",
    keepalive: true,
    headers: { ...headers(), "Content-Type": "application/json" },
    body: "{}",
  }).catch(() => {});
}

async function main() {
  if (!TOKEN) {
    setStatus("status", "open the address that idp serve printed: it ends in ?token=...", "bad");
    return;
  }
  $("mode").addEventListener("change", () => {
    page.modeChosen = true;
    modeChanged();
  });
  $("run").addEventListener("click", () => startRun());
  $("stop").addEventListener("click", stopRun);
  $("expr").addEventListener("input", () => {
    try {
      localStorage.setItem(exprKey(page.path), $("expr").value);
    } catch (e) {
      // Without storage the expression is only not kept.
    }
  });
  $("save").addEventListener("click", save);
  $("save-as").addEventListener("click", saveAs);
  $("new").addEventListener("click", () => {
    keepDraft();
    newFile();
  });
  $("download").addEventListener("click", download);
  // Edits are kept as drafts, so a file can be left unsaved: its draft comes back.
  $("file").addEventListener("change", (e) => {
    keepDraft();
    openFile(e.target.value);
  });
  document.addEventListener("keydown", shortcuts, true);
  window.addEventListener("pagehide", closing);
  const first = await loadFileList();
  const linked = hashParts().consultation;
  await openFile(first);
  document.body.dataset.ready = "true";
  if (linked) {
    $("mode").value = "consult";
    page.modeChosen = true;
    modeChanged();
    await startConsultation(linked.choices || [], linked);
  }
}

main().catch((e) => setStatus("status", `could not start: ${e.message}`, "bad"));
