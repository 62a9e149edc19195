// The page of `idp serve`: the editor (CodeMirror 6 with IDP highlighting and diagnostics as
// you type, from the server's `idp --check`), the file list, Save, and the run panel (main,
// model expansion or minimisation; Stop; a progress line; models as tables, grids as SVG
// pictures, frames of a run behind a slider).
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

const $ = (id) => document.getElementById(id);

const page = {
  path: "",
  saved: "",
  summary: null,
  run: null, // { id, mode, timer }
  lastCheck: null,
};

// ---- the server ----

async function api(method, url, body) {
  const init = { method, headers: {} };
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

function fill(select, names) {
  const keep = select.value;
  select.replaceChildren(...names.map((n) => el("option", { value: n, text: n })));
  if (names.includes(keep)) select.value = keep;
  select.disabled = names.length === 0;
}

function updateChoices(summary) {
  const first = page.summary === null;
  page.summary = summary;
  fill($("theory"), summary.theories || []);
  fill($("structure"), summary.structures || []);
  fill($("term"), summary.terms || []);
  const hasMain = (summary.procedures || []).includes("main");
  $("mode").querySelector('option[value="main"]').disabled = !hasMain;
  if (first || ($("mode").value === "main" && !hasMain)) {
    $("mode").value = hasMain ? "main" : "expand";
  }
  modeChanged();
}

function modeChanged() {
  const mode = $("mode").value;
  document.body.dataset.mode = mode;
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
  $("limits").textContent = `runs: ${files.limits.timeout} s, ${files.limits.max_memory} MB`;
  const fromHash = decodeURIComponent(location.hash.slice(1));
  return fromHash || files.opened[0] || (files.gallery[0] && files.gallery[0].path) || "";
}

async function openFile(path) {
  if (!path) return;
  let file;
  try {
    file = await api("GET", `/api/file?path=${encodeURIComponent(path)}`);
  } catch (e) {
    setStatus("save-status", e.message, "bad");
    return;
  }
  page.path = file.path;
  page.saved = file.text;
  page.summary = null;
  const select = $("file");
  if (![...select.options].some((o) => o.value === file.path)) {
    select.append(el("option", { value: file.path, text: file.path }));
  }
  select.value = file.path;
  history_replace(file.path);
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: file.text } });
  setStatus("save-status", "");
  document.title = `${file.path} — idp`;
  clearResults();
}

function history_replace(path) {
  window.history.replaceState(null, "", `#${encodeURIComponent(path).replace(/%2F/g, "/")}`);
}

async function save() {
  let path = page.path;
  if (!path) {
    path = window.prompt("Save as (a path inside the server's folder):", "untitled.idp");
    if (!path) return;
  }
  const text = view.state.doc.toString();
  try {
    const r = await api("POST", "/api/save", { path, text });
    page.path = r.saved;
    page.saved = text;
    setStatus("save-status", `saved ${r.saved} (${r.bytes} bytes)`, "good");
  } catch (e) {
    setStatus("save-status", `not saved: ${e.message}`, "bad");
  }
}

function dirty() {
  return view.state.doc.toString() !== page.saved;
}

// ---- runs ----

async function startRun() {
  if (page.run) return;
  const mode = $("mode").value;
  const request = {
    path: page.path,
    text: view.state.doc.toString(),
    mode,
    theory: $("theory").value || null,
    structure: $("structure").value || null,
    term: $("term").value || null,
    models: Number($("models").value || 1),
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
  setStatus("status", `${status.outcome} in ${status.elapsed.toFixed(2)} s`, kind);
  const results = $("results");
  const segments = status.segments;
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
  if (status.stdout_truncated) results.append(el("p", { class: "note", text: "(the output was cut at 8 MB)" }));
  if (status.stderr.trim()) results.append(el("pre", { class: "stderr", text: status.stderr }));
  if (!segments.length && !status.stderr.trim()) {
    results.append(el("p", { class: "note", text: "(the run printed nothing)" }));
  }
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
    } else if (line.trim() && item) {
      item.append(el("div", { class: "instance", text: line.trim() }));
    } else if (line.trim()) {
      list.append(el("li", { text: line.trim() }));
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
  const text = view.state.doc.toString();
  const checked = (page.lastCheck?.diagnostics ?? [])
    .filter((d) => d.from != null)
    .map((d) => toDiagnostic(d, text.length));
  const notes = marks.flatMap((m) => {
    const range = offsetOf(m);
    if (!range) return [];
    const to = range.to > range.from ? range.to : Math.min(range.from + 1, text.length);
    return [{ from: range.from, to, severity: "info", source: "why",
      message: `part of why there is no model: ${m.what}` }];
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
        { key: "Mod-s", run: () => { save(); return true; } },
        { key: "Mod-Enter", run: () => { startRun(); return true; } },
        indentWithTab,
        ...defaultKeymap,
        ...historyKeymap,
        ...searchKeymap,
      ]),
      EditorView.updateListener.of((u) => {
        if (u.docChanged) $("dirty").textContent = dirty() ? "●" : "";
      }),
    ],
  }),
});

// For tests and the console: the editor view.
window.idpEditor = view;

async function main() {
  $("mode").addEventListener("change", modeChanged);
  $("run").addEventListener("click", startRun);
  $("stop").addEventListener("click", stopRun);
  $("save").addEventListener("click", save);
  $("file").addEventListener("change", (e) => {
    if (dirty() && !window.confirm("Discard the changes to this file?")) {
      e.target.value = page.path;
      return;
    }
    openFile(e.target.value);
  });
  const first = await loadFileList();
  await openFile(first);
  document.body.dataset.ready = "true";
}

main().catch((e) => setStatus("status", `could not start: ${e.message}`, "bad"));
