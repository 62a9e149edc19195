// The consultant: the theory and structure chosen become a form, one field per symbol of the
// vocabulary (a predicate's tuples true or false, a function's or constant's values), on a
// live `idp consult` child of the server. A click makes a choice and shows at once what now
// follows (forced), what has become impossible and which open values no longer matter
// (irrelevant); clicking a forced value says why, clicking
// an impossible one says which choices to retract (why-not). Choices can be undone and redone,
// saved as a structure block in the file, and shared as a link that restores them. Every
// value says its state in words (its label), so the form works with a screen reader and by
// keyboard alone (Tab to a value, Enter or Space to choose). An IDP-Z3 file's display block
// is followed: its introduction shown, hidden symbols left out (and named), symbols grouped
// under their headings, units beside values, goal symbols marked.

// The states a value can be in, and the words that say so.
const WORDS = {
  given: "given by the structure",
  chosen: "chosen",
  forced: "follows from the choices",
  environment: "follows from the environment",
  impossible: "impossible",
  excluded: "chosen false",
  unsettled: "not settled in time",
  open: "open",
  irrelevant: "open, and it does not matter",
};

export function createConsultant(helpers) {
  const { api, el, jumpTo, markLines, onHash } = helpers;
  const s = {
    id: null,
    request: null,
    symbols: [],
    buttons: new Map(), // positive literal -> [{ button, truth }]
    numbers: new Map(), // a number's application `f(a)` -> { input, mark }
    undecidedNumbers: new Set(), // the applications whose value was not settled in time
    given: { true: new Set(), false: new Set() },
    forced: { true: new Set(), false: new Set() },
    environment: new Set(), // forced atoms that the environment theory alone makes certain
    undecided: new Set(),
    irrelevant: new Set(), // open atoms whose value matters to nothing undecided
    choices: [], // signed literal texts, in order
    undo: [],
    redo: [],
    busy: false,
    settling: 0, // bumped by every action: a settling round that sees it changed stops
    root: null,
  };

  // Rounds of `forced` asked between clicks for one set of choices (each goes on where the
  // last stopped, within the consultation's budget) before the page leaves the rest unsettled.
  const SETTLING_ROUNDS = 120;

  // ---- the literals ----

  // The atom a signed literal is about, and its truth: `~P(a)` and `f(a) ~= v` are false.
  function atomOf(text) {
    if (text.startsWith("~")) return { atom: text.slice(1), truth: false };
    const i = text.indexOf(" ~= ");
    if (i >= 0) return { atom: `${text.slice(0, i)} = ${text.slice(i + 4)}`, truth: false };
    return { atom: text, truth: true };
  }

  function literalOf(atom, truth) {
    if (truth) return atom;
    const i = atom.lastIndexOf(" = ");
    return i >= 0 ? `${atom.slice(0, i)} ~= ${atom.slice(i + 3)}` : `~${atom}`;
  }

  // Where the atom stands: `given`, `chosen`, `forced` or `open`, and its value if known.
  function stateOf(atom) {
    if (s.given.true.has(atom)) return { state: "given", value: true };
    if (s.given.false.has(atom)) return { state: "given", value: false };
    const chosen = s.choices.map(atomOf).find((c) => c.atom === atom);
    if (chosen) return { state: "chosen", value: chosen.truth };
    const forced = s.environment.has(atom) ? "environment" : "forced";
    if (s.forced.true.has(atom)) return { state: forced, value: true };
    if (s.forced.false.has(atom)) return { state: forced, value: false };
    if (s.undecided.has(atom)) return { state: "unsettled", value: null };
    if (s.irrelevant.has(atom)) return { state: "irrelevant", value: null };
    return { state: "open", value: null };
  }

  // ---- talking to the server ----

  async function ask(question) {
    if (!s.id) throw new Error("no consultation is open");
    return api("POST", `/api/consult/${s.id}`, question);
  }

  function say(text, kind = "") {
    const node = s.root && s.root.querySelector(".consult-status");
    if (!node) return;
    node.textContent = text;
    node.className = `consult-status ${kind}`;
  }

  async function busy(what, work) {
    if (s.busy) return;
    s.settling++; // what the user does next replaces any settling under way
    s.busy = true;
    s.root.dataset.busy = "true";
    try {
      await work();
    } catch (e) {
      say(`${what}: ${e.message}`, "bad");
      if (/consultation (is over|ended)|took longer/.test(e.message)) ended();
    } finally {
      s.busy = false;
      if (s.root) delete s.root.dataset.busy;
    }
  }

  // ---- opening and closing ----

  async function open(request, container, restore = []) {
    await close();
    s.request = request;
    s.root = el("section", { id: "consultant", "aria-label": "consultation" });
    container.replaceChildren(s.root);
    s.root.append(el("p", { class: "consult-status", role: "status", "aria-live": "polite", text: "opening…" }));
    let opened;
    try {
      opened = await api("POST", "/api/consult", request);
    } catch (e) {
      s.root.replaceChildren(el("p", { class: "consult-status bad", text: "the consultation could not start" }),
        el("pre", { class: "stderr", text: e.message }));
      return;
    }
    s.id = opened.id;
    const head = opened.open;
    if (!head.ok) {
      say(head.error, "bad");
      return;
    }
    const [symbols, given] = [await ask({ op: "symbols" }), await ask({ op: "given" })];
    s.symbols = symbols.symbols;
    s.given = { true: new Set(given.true), false: new Set(given.false) };
    s.choices = head.choices || [];
    s.hasEnvironment = Boolean(head.environment);
    s.undo = [];
    s.redo = [];
    render(head);
    if (!head.has_model) {
      say("the theory has no model with this structure: nothing to choose (Run with model expansion says why)", "bad");
      return;
    }
    if (restore.length) {
      await busy("restoring the choices", async () => {
        await goTo(restore);
      });
    } else {
      await refresh();
    }
  }

  async function close() {
    if (!s.id) return;
    const id = s.id;
    s.id = null;
    try {
      await api("POST", `/api/consult/${id}/close`, {});
    } catch (e) {
      // Closed already (idle, or the server restarted): nothing to do.
    }
  }

  function ended() {
    s.id = null;
    if (s.root) s.root.dataset.ended = "true";
  }

  // ---- the form ----

  function render(head) {
    const bar = el("div", { class: "consult-bar", role: "toolbar", "aria-label": "consultation" },
      button("undo", "Undo", "undo the last change of the choices", undo),
      button("redo", "Redo", "redo what was undone", redo),
      button("reset", "Reset", "retract every choice", () => change([])),
      button("model", "Show a model", "a model with the choices (again: the next one)", showModel),
      button("save-choices", "Save choices", "add the choices to the file as a structure block", saveChoices),
      button("link", "Copy link", "a link to this page that restores the choices", copyLink),
      el("label", {}, "term ", el("input", {
        class: "consult-term", type: "text", list: "consult-terms", size: 10, spellcheck: "false",
        "aria-label": "a term block or a constant to minimise or maximise",
      })),
      button("minimize", "Minimise", "the least value of the term with the choices", () => optimum("minimize")),
      button("maximize", "Maximise", "the largest value of the term with the choices", () => optimum("maximize")),
    );
    const terms = el("datalist", { id: "consult-terms" },
      ...(helpers.terms() || []).map((t) => el("option", { value: t })));
    const status = s.root.querySelector(".consult-status");
    const notes = el("div", { class: "consult-notes" });
    for (const w of head.warnings || []) notes.append(el("pre", { class: "warning", text: w }));
    if (head.skipped) notes.append(el("p", { class: "note", text: `not shown (their types are infinite or too large): ${head.skipped.join(", ")}` }));
    if (head.refused) notes.append(el("p", { class: "bad", text: `choices refused: ${head.refused.join("; ")}` }));
    const display = head.display || {};
    if (display.introduction) notes.prepend(el("p", { class: "consult-introduction", text: display.introduction }));
    const hidden = s.symbols.filter((sym) => sym.view === "hidden").map((sym) => sym.name);
    if (hidden.length) notes.append(el("p", { class: "note", text: `hidden by the display block: ${hidden.join(", ")}` }));
    const why = el("div", { class: "consult-why", "aria-live": "polite" });
    const form = el("div", { class: "consult-form" });
    s.buttons = new Map();
    s.numbers = new Map();
    const goals = new Set(display.goals || []);
    // Symbols without a heading first, then each heading of the display block over its own.
    const shown = s.symbols.filter((sym) => sym.view !== "hidden");
    for (const sym of shown.filter((sym) => !sym.heading)) form.append(renderSymbol(sym, goals));
    for (const { heading } of display.headings || []) {
      const under = shown.filter((sym) => sym.heading === heading);
      if (!under.length) continue;
      const section = el("section", { class: "consult-heading", "aria-label": heading }, el("h3", { text: heading }));
      const fields = el("div", { class: "consult-form" });
      for (const sym of under) fields.append(renderSymbol(sym, goals));
      section.append(fields);
      form.append(section);
    }
    const legend = el("p", { class: "consult-legend" },
      ...["chosen", "forced", "environment", "given", "impossible", "open", "irrelevant"].filter((k) => k !== "environment" || s.hasEnvironment).map((k) => el("span", { class: `v ${k}`, text: WORDS[k] })));
    s.root.replaceChildren(status, bar, terms, notes, why, el("div", { class: "consult-model" }), legend, form);
  }

  function button(name, text, title, action) {
    return el("button", { class: `c-${name}`, title, text, onclick: () => action() });
  }

  // A symbol's field; `goals`: the display block's goal symbols, marked as such.
  function renderSymbol(sym, goals) {
    const types = sym.args.length ? `(${sym.args.join(", ")})` : "";
    const unit = sym.unit ? ` (${sym.unit})` : "";
    const header = sym.kind === "function" ? `${sym.name}${types} : ${sym.result}${unit}` : `${sym.name}${types}`;
    const box = el("fieldset", { class: `consult-symbol ${sym.kind}`, "data-symbol": sym.name });
    const legend = el("legend", { text: header });
    if (goals.has(sym.name)) {
      box.classList.add("goal");
      legend.append(el("span", { class: "goal-mark", title: "a goal symbol of the display block: relevance is measured against it", text: " goal" }));
    }
    box.append(legend);
    const table = el("table");
    for (const row of sym.rows) {
      const tr = el("tr");
      const name = sym.args.length ? `${sym.name}(${row.args.join(",")})` : sym.name;
      tr.append(el("th", { scope: "row", text: name }));
      const cell = el("td");
      if (sym.kind === "predicate") {
        for (const truth of [true, false]) cell.append(valueButton(row.literal, truth, truth ? "true" : "false"));
      } else if (row.number) {
        cell.append(numberField(row.number));
      } else {
        for (const v of row.values) cell.append(valueButton(v.literal, true, v.value));
      }
      tr.append(cell);
      table.append(tr);
    }
    // A symbol the structure gives whole is folded away: nothing of it can be chosen.
    const allGiven = sym.rows.every((row) => !row.number && (sym.kind === "predicate" ? [row] : row.values)
      .every((v) => s.given.true.has(v.literal) || s.given.false.has(v.literal)));
    if (!allGiven) {
      box.append(table);
      return box;
    }
    box.classList.add("given-whole");
    box.append(el("details", {}, el("summary", { text: "given by the structure" }), table));
    return box;
  }

  // A value of an atom: `truth` true for `P(a)` or `f(a) = v`, false for `~P(a)`.
  function valueButton(atom, truth, text) {
    const b = el("button", { class: "v", "data-literal": literalOf(atom, truth), text });
    b.addEventListener("click", () => clicked(atom, truth));
    if (!s.buttons.has(atom)) s.buttons.set(atom, []);
    s.buttons.get(atom).push({ button: b, truth });
    return b;
  }

  // A number the search chooses (an integer or a real without a listed type): a field where
  // its value is typed, and beside it its state (chosen, follows, open), which explains a
  // value that follows and retracts a chosen one.
  function numberField(applied) {
    const input = el("input", {
      class: "num", type: "text", inputmode: "decimal", size: 8, spellcheck: "false",
      "aria-label": `the value of ${applied}`, "data-number": applied,
    });
    const mark = el("button", { class: "v num-state open", type: "button", text: WORDS.open });
    input.addEventListener("change", () => numberTyped(applied, input.value.trim()));
    mark.addEventListener("click", () => numberClicked(applied));
    s.numbers.set(applied, { input, mark });
    return el("span", { class: "number" }, input, " ", mark);
  }

  // The literal `f(a) = v` among `literals` that gives number `applied` its value, if any.
  function numberLiteral(applied, literals) {
    const prefix = `${applied} = `;
    for (const l of literals) if (l.startsWith(prefix)) return l;
    return null;
  }

  // Where a number stands: `chosen` or `forced` with its value, `unsettled` or `open`.
  function numberState(applied) {
    const chosen = numberLiteral(applied, s.choices);
    if (chosen) return { state: "chosen", literal: chosen };
    const forced = numberLiteral(applied, s.forced.true);
    if (forced) return { state: s.environment.has(forced) ? "environment" : "forced", literal: forced };
    return { state: s.undecidedNumbers.has(applied) ? "unsettled" : "open", literal: null };
  }

  // A value typed (empty: the choice retracted): it replaces the number's earlier choice,
  // which comes back when the new value is refused (one undoable step, as `change`).
  async function numberTyped(applied, text) {
    const before = numberLiteral(applied, s.choices);
    const others = s.choices.filter((c) => c !== before);
    const literal = text === "" ? null : `${applied} = ${text}`;
    await busy("the choice", async () => {
      const prior = [...s.choices];
      const ok = await goTo(literal ? [...others, literal] : others, literal);
      if (ok) {
        s.undo.push(prior);
        s.redo = [];
      } else if (before && !s.choices.includes(before)) {
        const refusal = s.root.querySelector(".consult-status").textContent;
        await goTo([...s.choices, before]);
        say(refusal, "bad");
      }
    });
    paint();
  }

  function numberClicked(applied) {
    const { state, literal } = numberState(applied);
    if (state === "chosen") return numberTyped(applied, "");
    if (state === "forced" || state === "environment") return explain(literal);
    s.numbers.get(applied).input.focus();
  }

  function paintNumbers() {
    for (const [applied, { input, mark }] of s.numbers) {
      const { state, literal } = numberState(applied);
      const value = literal ? literal.slice(applied.length + 3) : "";
      if (document.activeElement !== input || state === "chosen") input.value = state === "chosen" ? value : "";
      input.placeholder = state === "chosen" ? "" : value;
      mark.className = `v num-state ${state}`;
      mark.dataset.state = state;
      mark.textContent = state === "forced" || state === "environment" ? `= ${value}` : WORDS[state];
      mark.setAttribute("aria-label", `${applied}${value ? ` = ${value}` : ""}: ${WORDS[state]}`);
      mark.title = state === "chosen" ? "chosen: click to retract" : hint(state);
    }
  }

  // The state of one value button: its atom's state seen from the value it stands for.
  function valueState(atom, truth) {
    const { state, value } = stateOf(atom);
    if (value === null) return state;
    if (value === truth) return state;
    if (state === "chosen") return "excluded";
    return "impossible";
  }

  function paint() {
    for (const [atom, list] of s.buttons) {
      for (const { button: b, truth } of list) {
        const state = valueState(atom, truth);
        b.className = `v ${state}`;
        b.dataset.state = state;
        b.setAttribute("aria-pressed", state === "chosen" ? "true" : "false");
        b.setAttribute("aria-label", `${literalOf(atom, truth)}: ${WORDS[state]}`);
        b.title = hint(state);
      }
    }
    paintNumbers();
    s.root.querySelector(".c-undo").disabled = !s.undo.length;
    s.root.querySelector(".c-redo").disabled = !s.redo.length;
  }

  function hint(state) {
    return {
      chosen: "chosen: click to retract",
      forced: "follows from the choices: click for why",
      environment: "follows from the environment (its theory and choices alone): click for why",
      given: "given by the structure: click for why",
      impossible: "impossible with the choices: click for which to retract",
      excluded: "chosen false: click to retract",
      unsettled: "not settled within the time budget: click to choose it",
      open: "click to choose",
      irrelevant: "does not matter with the choices (any value will do): click to choose",
    }[state];
  }

  // ---- clicks ----

  function clicked(atom, truth) {
    const state = valueState(atom, truth);
    const literal = literalOf(atom, truth);
    if (state === "chosen") return change(s.choices.filter((c) => c !== literal));
    if (state === "excluded") return change(s.choices.filter((c) => atomOf(c).atom !== atom));
    if (state === "forced" || state === "environment" || state === "given") return explain(literal);
    if (state === "impossible") return whyNot(literal);
    // Choosing a value replaces the other value of the same atom, if chosen.
    return change([...s.choices.filter((c) => atomOf(c).atom !== atom), literal], literal);
  }

  // Moves to the choices `target` (an undoable step).
  async function change(target, added = null) {
    await busy("the choice", async () => {
      const before = [...s.choices];
      const ok = await goTo(target, added);
      if (ok) {
        s.undo.push(before);
        s.redo = [];
        paint();
      }
    });
  }

  // Undo (`from` the undo stack, `to` the redo stack) or redo (the other way round).
  async function step(what, from, to) {
    if (!from.length) return;
    await busy(what, async () => {
      const target = from.pop();
      to.push([...s.choices]);
      await goTo(target);
    });
  }

  const undo = () => step("undo", s.undo, s.redo);
  const redo = () => step("redo", s.redo, s.undo);

  // Retracts the choices not in `target`, makes those missing (in order), then shows what
  // follows; false when a choice was refused (the choices are then as before it).
  async function goTo(target, added = null) {
    const started = performance.now();
    for (const c of s.choices.filter((c) => !target.includes(c))) {
      await ask({ op: "retract", literal: c });
    }
    s.choices = s.choices.filter((c) => target.includes(c));
    for (const c of target.filter((c) => !s.choices.includes(c))) {
      const reply = await ask({ op: "assume", literal: c });
      if (!reply.ok) {
        await refresh();
        say(reply.error, "bad");
        if (reply.inconsistent) showRefusal(c, reply);
        return false;
      }
      s.choices.push(c);
    }
    await refresh(added ? `${added} chosen` : null, started);
    clearWhy();
    return true;
  }

  // While what follows is not settled, asks again between the user's clicks: each round
  // shows what the last one settled, without another click.
  function settleLater(round) {
    const mine = s.settling;
    setTimeout(async () => {
      if (mine !== s.settling || s.busy || !s.id) return;
      try {
        await refresh(null, performance.now(), { round, mine });
      } catch (e) {
        if (mine === s.settling) say(`settling: ${e.message}`, "bad");
      }
    }, 0);
  }

  // Asks what follows from the choices and repaints. `settling`: a round of settleLater
  // (whose answer is dropped when the user acted meanwhile).
  async function refresh(what = null, started = performance.now(), settling = null) {
    const forced = await ask({ op: "forced" });
    if (settling && settling.mine !== s.settling) return;
    if (!forced.ok) {
      say(forced.error, "bad");
      return;
    }
    const choiceAtoms = new Set(s.choices.map((c) => atomOf(c).atom));
    s.forced = {
      true: new Set(forced.true.filter((a) => !choiceAtoms.has(a))),
      false: new Set(forced.false.filter((a) => !choiceAtoms.has(a))),
    };
    s.undecided = new Set(forced.undecided || []);
    s.undecidedNumbers = new Set(forced.undecided_numbers || []);
    const env = forced.environment || { true: [], false: [] };
    s.environment = new Set([...env.true, ...env.false]);
    const relevance = await ask({ op: "relevant" });
    if (settling && settling.mine !== s.settling) return;
    s.irrelevant = new Set(relevance.ok ? relevance.irrelevant : []);
    paint();
    const round = settling ? settling.round + 1 : 1;
    const goesOn = !forced.complete && round < SETTLING_ROUNDS;
    const ms = Math.round(performance.now() - started);
    const follows = s.forced.true.size + s.forced.false.size;
    const n = s.choices.length;
    const parts = [
      what,
      `${n} choice${n === 1 ? "" : "s"}`,
      `${follows} value${follows === 1 ? "" : "s"} follow${follows === 1 ? "s" : ""}`,
      forced.complete
        ? null
        : goesOn
          ? `settling ${s.undecided.size + s.undecidedNumbers.size} more…`
          : `${s.undecided.size + s.undecidedNumbers.size} not settled in time (choose again to go on)`,
      settling ? null : `${ms} ms`,
    ];
    say(parts.filter((p) => p).join(" — "), forced.complete ? "good" : "");
    s.root.dataset.choices = String(n);
    s.root.dataset.settled = String(forced.complete);
    if (!settling) onHash(linkState());
    if (goesOn) settleLater(round);
  }

  // ---- explanations ----

  function whyBox() {
    return s.root.querySelector(".consult-why");
  }

  function clearWhy() {
    whyBox().replaceChildren();
  }

  // Shows `parts` in the explanation panel, with a button that closes it.
  function showWhy(...parts) {
    const close = el("button", { class: "c-close-why", text: "×", "aria-label": "close the explanation", onclick: clearWhy });
    whyBox().replaceChildren(el("div", { class: "why" }, close, ...parts));
  }

  async function explain(literal) {
    await busy("why", async () => {
      const reply = await ask({ op: "explain", literal });
      if (!reply.ok) return say(reply.error, "bad");
      if (!reply.forced) {
        showWhy(el("p", { class: "why-head", text: `${literal} does not follow from the choices` }));
        return;
      }
      showWhy(el("p", { class: "why-head", text: `Why ${literal}:` }), reasonList(reply.reasons || []));
    });
  }

  async function whyNot(literal) {
    await busy("why not", async () => {
      const reply = await ask({ op: "why_not", literal });
      if (!reply.ok) return say(reply.error, "bad");
      if (reply.possible) {
        showWhy(el("p", { class: "why-head", text: `${literal} is possible` }));
        return;
      }
      const parts = [el("p", { class: "why-head", text: `Why not ${literal}:` })];
      const sets = reply.retract || [];
      if (sets.length) {
        const list = el("ul", { class: "retract-sets" });
        for (const set of sets) {
          list.append(el("li", {}, `retract ${set.join(", ")} `,
            el("button", {
              class: "c-retract-set", text: "retract",
              onclick: () => change(s.choices.filter((c) => !set.includes(c))),
            })));
        }
        parts.push(el("p", { text: "It becomes possible when you retract one of these:" }), list);
      } else {
        parts.push(el("p", { text: "No choice of yours excludes it: the theory and the structure do." }));
      }
      parts.push(el("p", { text: "Because:" }), reasonList(reply.reasons || []));
      showWhy(...parts);
    });
  }

  function showRefusal(literal, reply) {
    const with_ = reply.conflicts_with || [];
    const parts = [el("p", { class: "why-head", text: `${literal} cannot be chosen` })];
    if (with_.length) {
      parts.push(el("p", {}, `It is impossible with ${with_.join(", ")}. `,
        el("button", {
          class: "c-retract-set", text: "retract them and choose it",
          onclick: () => change([...s.choices.filter((c) => !with_.includes(c)), literal], literal),
        })));
    }
    showWhy(...parts);
  }

  // The reasons of an explanation: choices (each can be retracted), facts, sentences and
  // definitions (each a link to its line, marked in the editor), what the types give.
  function reasonList(reasons) {
    const list = el("ul", { class: "reasons" });
    const marks = [];
    for (const r of reasons) {
      if (r.kind === "choice") {
        list.append(el("li", { class: "reason choice" }, `your choice ${r.literal} `,
          el("button", { class: "c-retract", text: "retract", onclick: () => change(s.choices.filter((c) => c !== r.literal)) })));
      } else if (r.kind === "fact") {
        list.append(el("li", { class: "reason fact", text: `the structure: ${r.literal}` }));
      } else if (r.kind === "sentence" || r.kind === "definition") {
        const at = /^(.*):(\d+):(\d+)$/.exec(r.at || "");
        const here = at && at[1] === "stdin" ? { line: Number(at[2]), col: Number(at[3]) } : null;
        const item = el("li", { class: `reason ${r.kind}` },
          el("span", { class: "where", text: here ? `line ${here.line}` : r.at || "" }),
          el("code", { text: r.text }));
        if (r.instance) item.append(el("div", { class: "instance", text: `here: ${r.instance}` }));
        if (here) {
          item.classList.add("located");
          item.tabIndex = 0;
          item.addEventListener("click", () => jumpTo(here));
          item.addEventListener("keydown", (e) => { if (e.key === "Enter") jumpTo(here); });
          marks.push({ ...here, message: `part of the explanation: ${r.text}` });
        }
        list.append(item);
      } else {
        list.append(el("li", { class: "reason given", text: r.text || "" }));
      }
    }
    if (marks.length) markLines(marks, "info");
    return list;
  }

  // ---- models, optima, saving, links ----

  async function showModel() {
    await busy("model", async () => {
      const reply = await ask({ op: "model" });
      const box = s.root.querySelector(".consult-model");
      if (!reply.ok) return say(reply.error, "bad");
      if (!reply.structure) {
        box.replaceChildren(el("p", { class: "note", text: "no other model has the choices" }));
        return;
      }
      box.replaceChildren(el("pre", { class: "text model-text", text: reply.structure }));
      say(`a model with the choices (${Math.round(reply.ms)} ms); again for the next one`, "good");
    });
  }

  async function optimum(op) {
    const term = s.root.querySelector(".consult-term").value.trim();
    if (!term) return say("name a term block or a constant to optimise", "bad");
    await busy(op, async () => {
      const reply = await ask({ op, term });
      if (!reply.ok) return say(reply.error, "bad");
      const box = s.root.querySelector(".consult-model");
      const word = op === "minimize" ? "least" : "largest";
      if (reply.value === null) {
        box.replaceChildren(el("p", { class: "note", text: `no model has the choices` }));
        return;
      }
      box.replaceChildren(el("p", { class: "optimum", text: `the ${word} ${term} with the choices: ${reply.value}${reply.proven ? "" : " (not proven optimal)"}` }),
        reply.structure ? el("pre", { class: "text model-text", text: reply.structure }) : null);
    });
  }

  async function saveChoices() {
    await busy("saving the choices", async () => {
      const names = helpers.structures();
      let name = "Choices";
      for (let k = 2; names.includes(name); k++) name = `Choices${k}`;
      const reply = await ask({ op: "choices", name });
      helpers.appendText(`\n// Choices saved by a consultation: consult with "choices from ${name}" (idp consult --choices ${name}).\n${reply.structure}`);
      say(`the choices are in the file as structure ${name} (save the file to keep them)`, "good");
    });
  }

  function linkState() {
    return { theory: s.request.theory, structure: s.request.structure, choices: s.choices };
  }

  async function copyLink() {
    const link = location.href;
    try {
      await navigator.clipboard.writeText(link);
      say("the link is copied: it opens this file and makes these choices", "good");
    } catch (e) {
      say(`the link (copy it yourself): ${link}`);
    }
  }

  return {
    open,
    close,
    isOpen: () => s.id !== null,
    state: () => ({ choices: [...s.choices], forced: s.forced, id: s.id }),
  };
}
