#!/usr/bin/env python3
"""Differential test of recursive definitions over open symbols against clingo (issue 27).

Generates random theories of the shape that tests/engine.rs checks against brute force on two
or three elements (R and Q defined together, linear and non-linear recursion, recursion through
a function, a count, a universal quantifier), here over 4 to 6 elements, where brute force
cannot go: E is partly given (some pairs unknown), O is open, F is given. Each theory is
written for idp (IDP3) and as the equivalent ASP program (Q open when no rule defines it); `idp --count` and `clingo -n 0` must
give the same number of models (the definitions are positive in the defined symbols, so the
well-founded model is the one stable model).

  bench/differential.py CASES [IDP] [PYTHON] [closures|params]
                      (default IDP target/release/idp; PYTHON a python with clingo, e.g.
                      /tmp/clingovenv; `closures`: R's rules are a transitive closure as users
                      write reachability, base rules, sometimes symmetry, transitivity in one of
                      its spellings, which idp grounds as linear rules; `params`: such closures
                      with a parameter, C(t, x, y) or C(x, y, t), one closure per t)
Prints a line per disagreement and a summary: cases, agreeing, models in all, time of each.
Deterministic: case k uses the seed k.
"""
import os
import random
import re
import subprocess
import sys
import tempfile
import time

R_RULES = [
    ("! x y: R(x, y) <- E(x, y).", "r(X, Y) :- e(X, Y)."),
    ("! x y: R(x, y) <- ? z: R(x, z) & R(z, y).", "r(X, Y) :- r(X, Z), r(Z, Y)."),
    ("! x y: R(x, y) <- ? z: E(x, z) & R(z, y).", "r(X, Y) :- e(X, Z), r(Z, Y)."),
    ("! x y: R(x, y) <- R(y, x) & O(x).", "r(X, Y) :- r(Y, X), o(X)."),
    ("! x: R(x, F(x)) <- Q(x).", "r(X, Y) :- q(X), f(X, Y)."),
    ("! x y: R(x, y) <- ~O(x) & R(F(x), y).", "r(X, Y) :- d(X), not o(X), f(X, Z), r(Z, Y)."),
]
Q_RULES = [
    ("! x: Q(x) <- O(x).", "q(X) :- o(X)."),
    ("! x: Q(x) <- ? y: R(x, y) & Q(y).", "q(X) :- r(X, Y), q(Y)."),
    ("! x: Q(x) <- #{y: R(x, y) & Q(y)} >= 2.", "q(X) :- d(X), #count{ Y : r(X, Y), q(Y) } >= 2."),
    ("! x: Q(x) <- (! y: E(x, y) => Q(y)) & (? y: E(x, y)).",
     "q(X) :- d(X), q(Y) : e(X, Y); e(X, _)."),
    ("! x: Q(x) <- Q(F(x)) | R(x, x).", "q(X) :- f(X, Y), q(Y).\nq(X) :- r(X, X)."),
    ("! x: Q(x) <- sum{y: R(y, x): 1} >= 2.", "q(X) :- d(X), #count{ Y : r(Y, X) } >= 2."),
]
# Transitive closures: bases (not reading R), symmetry, transitivity.
CLOSURE_BASES = [
    ("! x y: R(x, y) <- E(x, y).", "r(X, Y) :- e(X, Y)."),
    ("! x y: R(x, y) <- ? z: E(x, z) & O(z) & E(z, y).", "r(X, Y) :- e(X, Z), o(Z), e(Z, Y)."),
    ("! x y: R(y, x) <- O(x) & E(x, y) & x ~= y.", "r(Y, X) :- o(X), e(X, Y), X != Y."),
    ("! x y: R(x, y) <- F(x) = y & ~O(y).", "r(X, Y) :- f(X, Y), not o(Y), d(Y)."),
]
CLOSURE_STEPS = [
    ("! x y: R(x, y) <- ? z: R(x, z) & R(z, y).", "r(X, Y) :- r(X, Z), r(Z, Y)."),
    ("! x y z: R(x, y) <- R(z, y) & R(x, z).", "r(X, Y) :- r(Z, Y), r(X, Z)."),
]
SYMMETRY = ("! x y: R(x, y) <- R(y, x).", "r(X, Y) :- r(Y, X).")

# Closures with a parameter: C(t, x, y) over t in P.
PARAM_BASES = [
    ("! t x y: C(t, x, y) <- E(x, y) & G(t, x).", "c(T, X, Y) :- e(X, Y), g(T, X)."),
    ("! t x y: C(t, y, x) <- E(x, y) & ~G(t, y).", "c(T, Y, X) :- e(X, Y), not g(T, Y), p(T)."),
    ("! t x y: C(t, x, y) <- G(t, x) & G(t, y) & x ~= y.", "c(T, X, Y) :- g(T, X), g(T, Y), X != Y."),
]
PARAM_STEPS = [
    ("! t x y: C(t, x, y) <- ? z: C(t, x, z) & C(t, z, y).", "c(T, X, Y) :- c(T, X, Z), c(T, Z, Y)."),
    ("! t x y z: C(t, x, y) <- C(t, z, y) & C(t, x, z).", "c(T, X, Y) :- c(T, Z, Y), c(T, X, Z)."),
]
PARAM_SYMMETRY = ("! t x y: C(t, x, y) <- C(t, y, x).", "c(T, X, Y) :- c(T, Y, X).")
PARAM_SENTENCES = [
    ("! t: ~C(t, a, a).", ":- c(T, a, a)."),
    ("? t: C(t, a, b).", "ab :- c(T, a, b).\n:- not ab."),
    ("#{t x y: C(t, x, y)} =< 8.", ":- #count{ T, X, Y : c(T, X, Y) } > 8."),
    ("! x: G(s0, x) => C(s1, x, b).", ":- g(s0, X), not c(s1, X, b)."),
]

SENTENCES = [
    ("? x: Q(x).", "someq :- q(X).\n:- not someq."),
    ("~R(a, a).", ":- r(a, a)."),
    ("! x: O(x) => ~Q(x) | R(x, a).", ":- o(X), q(X), not r(X, a)."),
    ("#{x y: R(x, y)} =< 6.", ":- #count{ X, Y : r(X, Y) } > 6."),
    ("Q(a) | ~E(a, b).", ":- not q(a), e(a, b)."),
    ("! x: ~Q(x) => R(x, b).", ":- d(X), not q(X), not r(X, b)."),
]


def subset(rng, items, percent):
    return [item for item in items if rng.randrange(100) < percent]


def case(k, closures=False):
    """The idp text and the ASP text of case k (a closure case with `closures`)."""
    rng = random.Random(k)
    names = "abcdef"[: rng.choice([4, 5, 6])]
    pairs = [(x, y) for x in names for y in names]
    unknown = set(rng.sample(pairs, rng.randint(2, 5)))
    true = {p for p in pairs if p not in unknown and rng.randrange(100) < 30}
    false = [p for p in pairs if p not in unknown and p not in true]
    f = {x: rng.choice(names) for x in names}
    q_rules = subset(rng, Q_RULES, 45)
    if closures:
        r_rules = [rng.choice(CLOSURE_BASES)] + subset(rng, CLOSURE_BASES, 25)
        r_rules += [SYMMETRY] * (rng.randrange(2)) + [rng.choice(CLOSURE_STEPS)]
        q_rules = [r for r in q_rules if "R(x, F(x))" not in r[0]]
        rules = list(dict.fromkeys(r_rules)) + q_rules
    else:
        rules = [R_RULES[rng.choice([0, 2])]] + subset(rng, R_RULES[1:], 45) + q_rules
    sentences = subset(rng, SENTENCES, 30)
    tuples = lambda ps: "; ".join(f"{x},{y}" for x, y in sorted(ps))
    idp = f"""vocabulary V {{
    type D constructed from {{ {", ".join(names)} }}
    E(D, D)
    O(D)
    F(D) : D
    R(D, D)
    Q(D)
}}
theory T : V {{
    {{
        {chr(10).join("        " + r[0] for r in rules).strip()}
    }}
    {chr(10).join("    " + s[0] for s in sentences).strip()}
}}
structure S : V {{
    E<ct> = {{ {tuples(true)} }}
    E<cf> = {{ {tuples(false)} }}
    F = {{ {"; ".join(f"{x}->{y}" for x, y in f.items())} }}
}}
"""
    asp = "".join(f"d({x}).\n" for x in names)
    asp += "".join(f"e({x},{y}).\n" for x, y in sorted(true))
    asp += "".join(f"{{ e({x},{y}) }}.\n" for x, y in sorted(unknown))
    asp += "".join(f"f({x},{y}).\n" for x, y in f.items())
    asp += "{ o(X) } :- d(X).\n"
    if not q_rules:  # Q has no rule: it is not defined, so open as O is
        asp += "{ q(X) } :- d(X).\n"
    asp += "\n".join(r[1] for r in rules) + "\n"
    asp += "\n".join(s[1] for s in sentences) + "\n"
    return idp, asp


def param_case(k):
    """The idp text and the ASP text of case k of the closures with a parameter."""
    rng = random.Random(k)
    names = "abcde"[: rng.choice([3, 4, 5])]
    pairs = [(x, y) for x in names for y in names]
    unknown = set(rng.sample(pairs, rng.randint(1, 3)))
    true = {p for p in pairs if p not in unknown and rng.randrange(100) < 35}
    false = [p for p in pairs if p not in unknown and p not in true]
    bases = [rng.choice(PARAM_BASES)] + subset(rng, PARAM_BASES, 30)
    rules = list(dict.fromkeys(bases + [PARAM_SYMMETRY] * rng.randrange(2)
                               + [rng.choice(PARAM_STEPS)]))
    sentences = subset(rng, PARAM_SENTENCES, 40)
    tuples = lambda ps: "; ".join(f"{x},{y}" for x, y in sorted(ps))
    idp = f"""vocabulary V {{
    type P constructed from {{ s0, s1 }}
    type D constructed from {{ {", ".join(names)} }}
    E(D, D)
    G(P, D)
    C(P, D, D)
}}
theory T : V {{
    {{
        {chr(10).join("        " + r[0] for r in rules).strip()}
    }}
    {chr(10).join("    " + s[0] for s in sentences).strip()}
}}
structure S : V {{
    E<ct> = {{ {tuples(true)} }}
    E<cf> = {{ {tuples(false)} }}
}}
"""
    asp = "p(s0). p(s1).\n" + "".join(f"d({x}).\n" for x in names)
    asp += "".join(f"e({x},{y}).\n" for x, y in sorted(true))
    asp += "".join(f"{{ e({x},{y}) }}.\n" for x, y in sorted(unknown))
    asp += "{ g(T, X) } :- p(T), d(X).\n"
    asp += "\n".join(r[1] for r in rules) + "\n"
    asp += "\n".join(s[1] for s in sentences) + "\n"
    if rng.randrange(2):  # the parameter last: C(x, y, t)
        idp = re.sub(r"C\((\w+), (\w+), (\w+)\)", r"C(\2, \3, \1)", idp)
        asp = re.sub(r"c\((\w+), ?(\w+), ?(\w+)\)", r"c(\2, \3, \1)", asp)
    return idp, asp


def run(cmd):
    started = time.time()
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    return out, time.time() - started


def main(argv):
    cases = int(argv[1]) if len(argv) > 1 else 100
    idp = argv[2] if len(argv) > 2 else "target/release/idp"
    python = argv[3] if len(argv) > 3 else "/tmp/clingovenv/bin/python"
    mode = argv[4] if len(argv) > 4 else ""
    agree, models, empty, idp_secs, clingo_secs = 0, 0, 0, 0.0, 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(cases):
            idp_text, asp_text = param_case(k) if mode == "params" else case(k, mode == "closures")
            idp_file, asp_file = os.path.join(tmp, "t.idp"), os.path.join(tmp, "t.lp")
            open(idp_file, "w").write(idp_text)
            open(asp_file, "w").write(asp_text)
            o, secs = run([idp, "--count", idp_file])
            idp_secs += secs
            mine = next((l.split(": ")[1] for l in o.stdout.splitlines()
                         if l.startswith("Number of models: ")), None)
            o2, secs = run([python, "-m", "clingo", asp_file, "-n", "0", "-q"])
            clingo_secs += secs
            theirs = next((l.split(":")[1].strip() for l in o2.stdout.splitlines()
                           if l.startswith("Models")), None)
            if mine is not None and mine == theirs:
                agree += 1
                models += int(mine)
                empty += mine == "0"
            else:
                print(f"case {k}: idp {mine} ({o.stderr.strip()[:200]}), clingo {theirs}")
                print(idp_text)
                print(asp_text)
    print(f"{cases} cases, {agree} agree ({empty} without a model), {models} models in all; "
          f"idp {idp_secs:.1f} s, "
          f"clingo {clingo_secs:.1f} s (wall, with process start)")
    return 0 if agree == cases else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
