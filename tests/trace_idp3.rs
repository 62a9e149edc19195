//! `stdoptions.trace` as IDP3 defines it (`LuaTraceMonitor.cpp`, `modelexpand.hpp`,
//! `minimize.hpp` and `idp_intern.idp` of IDP3): with the option on, `modelexpand`,
//! `onemodel` and `allmodels` return the solver's trace as their second value and `minimize`
//! as its fourth, an array of `{type="assign", dl, value, atom}` and `{type="backtrack", dl}`
//! entries. The trace is the search that produced the models: replayed, its last assignments
//! are the returned model, its levels are consistent, and tracing changes no model.

mod support;

use std::collections::BTreeSet;

use support::run;

/// A graph to colour, with a recursive definition (so loop formulas and model blocking go
/// through the traced solver) and a function.
const SPEC: &str = "vocabulary V {
  type N isa int
  type C constructed from { r, g, b }
  E(N, N)
  Col(N) : C
  Reach(N)
  Pick(N)
  k : N
}
theory Th : V {
  ! x y : E(x, y) => Col(x) ~= Col(y).
  { Reach(k). Reach(y) <- Reach(x) & E(x, y) & Pick(y). }
  Reach(3).
}
theory Un : V { ! x : Col(x) ~= r & Col(x) ~= g. Col(1) ~= Col(2). }
term Cost : V { #{ x : Pick(x) } + k }
structure S : V { N = { 1..3 } E = { 1,2; 2,3 } }
";

/// Lua that replays a trace: checks that every backtrack goes to a lower level and every
/// assignment is made at the current level or above, and prints `levels ok` (or what was
/// wrong), then the input atoms assigned at the end as `T atom` / `F atom`, sorted.
const REPLAY: &str = r#"
function replay(trace)
  local level, state, bad = 0, {}, nil
  for i, e in ipairs(trace) do
    if e.type == "assign" then
      if e.dl < level then bad = bad or ("assignment below level at " .. i) end
      if type(e.value) ~= "boolean" then bad = bad or ("value at " .. i) end
      local a = e.atom
      if type(a) == "formula" then
        state[tostring(a)] = { e.value, e.dl }
      elseif not string.match(a, "^tseitin_%d+$") then
        bad = bad or ("atom at " .. i)
      end
      level = e.dl
    elseif e.type == "backtrack" then
      if e.dl >= level then bad = bad or ("backtrack up at " .. i) end
      for k, v in pairs(state) do
        if v[2] > e.dl then state[k] = nil end
      end
      level = e.dl
    else
      bad = bad or ("type at " .. i)
    end
  end
  print(bad or "levels ok")
  local lines = {}
  for k, v in pairs(state) do
    lines[#lines + 1] = (v[1] and "T " or "F ") .. k
  end
  table.sort(lines)
  for _, l in ipairs(lines) do print(l) end
end
"#;

fn out(test: &str, chunk: &str) -> String {
    let r = run(test, SPEC, &format!("{REPLAY}\n{chunk}"));
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.stdout
}

/// The true atoms of a printed two-valued structure over `SPEC`'s vocabulary, written as the
/// trace writes atoms (`E(1,2)`, `Col(1)=r`, `k=3`); the types are left out.
fn true_atoms(structure: &str) -> BTreeSet<String> {
    let mut atoms = BTreeSet::new();
    for line in structure.lines() {
        let Some((name, value)) = line.trim().split_once(" = ") else {
            continue;
        };
        if name == "N" {
            continue;
        }
        match value.strip_prefix("{ ").and_then(|v| v.strip_suffix(" }")) {
            Some(tuples) => {
                for t in tuples.split("; ").filter(|t| !t.trim().is_empty()) {
                    atoms.insert(match t.split_once("->") {
                        Some((args, v)) => format!("{name}({args})={v}"),
                        None => format!("{name}({t})"),
                    });
                }
            }
            None if value == "{  }" => {}
            None => {
                atoms.insert(format!("{name}={value}"));
            }
        }
    }
    atoms
}

/// Checks a replay's output against the model printed after it: levels consistent, every
/// input atom the trace ends true is true in the model and every one it ends false is false.
/// Returns how many atoms the trace ends with.
fn agrees(replayed: &str, model: &str) -> usize {
    let mut lines = replayed.lines();
    assert_eq!(lines.next(), Some("levels ok"), "{replayed}");
    let truth = true_atoms(model);
    assert!(!truth.is_empty(), "{model}");
    let mut n = 0;
    for line in lines {
        let (v, atom) = line.split_once(' ').expect("T or F, then the atom");
        assert_eq!(v == "T", truth.contains(atom), "{atom} in\n{model}");
        n += 1;
    }
    n
}

#[test]
fn one_model_and_its_trace() {
    let o = out(
        "one",
        "stdoptions.trace = true\nlocal sols, trace = modelexpand(Th, S)\nreplay(trace)\nprint('---')\nprint(#sols)\nprint(sols[1])",
    );
    let (replayed, model) = o.split_once("---\n").expect("two parts");
    let model = model.strip_prefix("1\n").expect("one model");
    // Every atom the solver chose a value for: Reach (3), k (3), Pick (2 that a rule
    // mentions), Col (9).
    assert_eq!(agrees(replayed, model), 17, "{replayed}");
    assert!(replayed.contains("T Reach(3)\n"), "{replayed}");
}

#[test]
fn the_trace_starts_with_what_holds_without_decisions() {
    let o = out(
        "first",
        "stdoptions.trace = true\nlocal sols, trace = modelexpand(Th, S)\nlocal e = trace[1]\nprint(e.type, e.dl, e.value, tostring(e.atom), type(e.atom))\nlocal n = 0\nfor k in pairs(e) do n = n + 1 end\nprint(n)",
    );
    assert_eq!(o, "assign\t0\ttrue\tReach(3)\tformula\n4\n");
}

#[test]
fn without_the_option_there_is_no_trace() {
    let o = out(
        "off",
        "print(select('#', modelexpand(Th, S)))\nprint(select('#', onemodel(Th, S)))\nprint(select('#', allmodels(Th, S)))\nprint(select('#', minimize(Th, S, Cost)))",
    );
    // As in IDP3's Lua: modelexpand and minimize pass on a nil trace, onemodel and allmodels
    // only a trace that is there.
    assert_eq!(o, "2\n1\n1\n4\n");
}

#[test]
fn every_model_with_and_without_the_trace() {
    let chunk = "stdoptions.nbmodels = 0\nlocal sols, trace = modelexpand(Th, S)\nprint(#sols, type(trace))\nfor _, m in ipairs(sols) do print(m) end";
    let plain = out("plain", chunk);
    let traced = out("traced", &format!("stdoptions.trace = true\n{chunk}"));
    let models = |o: &str| -> (String, BTreeSet<String>) {
        let (head, rest) = o.split_once('\n').expect("a count");
        let set: BTreeSet<String> = rest
            .split("\n\n")
            .filter(|m| !m.trim().is_empty())
            .map(str::to_string)
            .collect();
        (head.to_string(), set)
    };
    let (n_plain, plain) = models(&plain);
    let (n_traced, traced) = models(&traced);
    assert_eq!(n_plain, "168\tnil");
    assert_eq!(n_traced, "168\ttable");
    assert_eq!(plain.len(), 168);
    assert_eq!(plain, traced);
}

#[test]
fn every_model_search_of_an_enumeration_is_in_the_trace() {
    // allmodels returns the trace too; the enumeration ends with a search that finds no
    // model, after one backtrack to level 0 per model found.
    let o = out(
        "all",
        "stdoptions.trace = true\nlocal sols, trace = allmodels(Th, S)\nlocal back0 = 0\nfor _, e in ipairs(trace) do if e.type == 'backtrack' and e.dl == 0 then back0 = back0 + 1 end end\nprint(#sols, back0 >= #sols)\nreplay(trace)",
    );
    let mut lines = o.lines();
    assert_eq!(lines.next(), Some("168\ttrue"));
    assert_eq!(lines.next(), Some("levels ok"));
}

#[test]
fn onemodel_returns_its_trace() {
    let o = out(
        "onemodel",
        "stdoptions.trace = true\nlocal m, trace = onemodel(Th, S)\nreplay(trace)\nprint('---')\nprint(m)",
    );
    let (replayed, model) = o.split_once("---\n").expect("two parts");
    assert_eq!(agrees(replayed, model), 17);
}

#[test]
fn minimize_returns_its_trace_fourth() {
    let o = out(
        "minimize",
        "stdoptions.trace = true\nlocal sols, optimal, value, trace = minimize(Th, S, Cost)\nprint(#sols, optimal, value)\nreplay(trace)\nprint('---')\nprint(sols[1])",
    );
    let (head, model) = o.split_once("---\n").expect("two parts");
    let (first, replayed) = head.split_once('\n').expect("a first line");
    // Reach(3) needs k = 3 (cost 3), or k = 2 and Pick(3) (cost 3), or k = 1 with Pick(2)
    // and Pick(3) (cost 3).
    assert_eq!(first, "1\ttrue\t3");
    // The cost term mentions Pick(1) too.
    assert_eq!(agrees(replayed, model), 18, "{replayed}");
}

#[test]
fn an_unsatisfiable_theory_gives_no_model_and_a_trace() {
    let o = out(
        "unsat",
        "stdoptions.trace = true\nlocal sols, trace = modelexpand(Un, S)\nprint(#sols, type(trace))\nreplay(trace)",
    );
    assert_eq!(
        o.lines().take(2).collect::<Vec<_>>(),
        ["0\ttable", "levels ok"]
    );
}

/// IDP3's `createMXIterator` hands its trace monitor to the iterator and returns only the
/// iterator (`modeliteration.hpp`); the trace is the Lua registry's `sat_trace_N`, as every
/// traced search's (`LuaTraceMonitor.cpp`), which `debug.getregistry()` reaches.
#[test]
fn model_iterator_keeps_its_trace_in_the_registry() {
    let o = out(
        "iterator",
        "stdoptions.trace = true\nlocal n = 0\nfor m in modelIterator(Th, S) do n = n + 1 end\nlocal t = debug.getregistry().sat_trace_1\nprint(n, type(t), #t > 0)\nreplay(t)",
    );
    let mut lines = o.lines();
    let head = lines.next().expect("a first line");
    let all = out(
        "iterator_all",
        "stdoptions.nbmodels = 0\nprint(#modelexpand(Th, S))",
    );
    assert_eq!(head, format!("{}\ttable\ttrue", all.trim()), "{o}");
    assert_eq!(lines.next(), Some("levels ok"), "{o}");
    // Without the option, no trace is kept.
    let o = out(
        "iterator_off",
        "for m in modelIterator(Th, S) do end\nprint(debug.getregistry().sat_trace_1)",
    );
    assert_eq!(o, "nil\n");
}

/// The trace `modelexpand` and `minimize` return is the registry's table, numbered in the
/// order of the searches.
#[test]
fn returned_traces_are_the_registry_entries() {
    let o = out(
        "registry",
        "stdoptions.trace = true\nlocal _, t1 = modelexpand(Th, S)\nlocal _, _, _, t2 = minimize(Th, S, Cost)\nlocal r = debug.getregistry()\nprint(t1 == r.sat_trace_1, t2 == r.sat_trace_2, r.sat_trace_3)",
    );
    assert_eq!(o, "true\ttrue\tnil\n");
}
