#!/usr/bin/env python3
"""Differential test of integer arithmetic against Z3 (issue 48).

Generates random FO(·) theories over unbounded `Int` constants and a function `f : T -> Int`
(linear comparisons, disequalities, disjunctions with a Boolean, absolute values, a sum over a
type, bounds on some numbers), as a user writes them, and asks both systems the same
questions: is there a model (`model_expand`), and, when Z3 finds the term bounded below, the
least value of a linear term (`minimize`). Z3 gets the same constraints through its Python API
(`z3-solver`, the package idp-engine installs), with mathematical integers. Every model that idp
prints is evaluated against the constraints here, independently of both solvers.

  bench/z3_differential.py CASES [IDP] [PYTHON]
      IDP     the idp binary (default target/release/idp)
      PYTHON  a python with z3 (default /tmp/z3venv/bin/python; make it with
              python3 -m venv /tmp/z3venv && /tmp/z3venv/bin/pip install z3-solver==4.11.2.0)

Prints a line per disagreement and a summary. Deterministic: case k uses the seed k. Run with
the z3 python itself when PYTHON is omitted and `import z3` works.
"""
import os
import random
import re
import subprocess
import sys
import tempfile

try:
    import z3
except ImportError:  # re-run under the python that has z3
    python = sys.argv[3] if len(sys.argv) > 3 else "/tmp/z3venv/bin/python"
    os.execv(python, [python] + sys.argv)

ELEMENTS = [1, 2, 3]
NUMBERS = ["x", "y", "z"]


def term(rng):
    """A random linear term: (idp text, evaluator, z3 builder)."""
    parts = []
    for v in rng.sample(NUMBERS, rng.randint(1, 3)):
        a = rng.choice([-3, -2, -1, 1, 1, 2, 3])
        parts.append((a, v))
    if rng.random() < 0.3:
        parts.append((rng.choice([-1, 1, 2]), "f(%d)" % rng.choice(ELEMENTS)))
    text = " + ".join("%d*%s" % (a, idp_name(v)) for a, v in parts)
    return text, lambda m: sum(a * m[v] for a, v in parts), lambda zv: z3.Sum([a * zv[v] for a, v in parts])


def idp_name(v):
    return v if v.startswith("f(") else v + "()"


OPS = {
    "=": (lambda a, b: a == b),
    "~=": (lambda a, b: a != b),
    "<": (lambda a, b: a < b),
    "=<": (lambda a, b: a <= b),
    ">": (lambda a, b: a > b),
    ">=": (lambda a, b: a >= b),
}


def comparison(rng):
    t, ev, zb = term(rng)
    op = rng.choice(list(OPS))
    k = rng.randint(-8, 8)
    f = OPS[op]
    return ("%s %s %d" % (t, op, k), lambda m: f(ev(m), k), lambda zv: f(zb(zv), k))


def sentence(rng):
    """A random sentence: (idp text, evaluator, z3 builder)."""
    kind = rng.random()
    if kind < 0.45:
        return comparison(rng)
    if kind < 0.6:
        a, b = comparison(rng), comparison(rng)
        return ("(%s) | (%s)" % (a[0], b[0]), lambda m: a[1](m) or b[1](m),
                lambda zv: z3.Or(a[2](zv), b[2](zv)))
    if kind < 0.7:
        a = comparison(rng)
        neg = rng.random() < 0.5
        text = "%sp() => (%s)" % ("~" if neg else "", a[0])
        return (text, lambda m: (m["p"] if neg else not m["p"]) or a[1](m),
                lambda zv: z3.Implies(z3.Not(zv["p"]) if neg else zv["p"], a[2](zv)))
    if kind < 0.8:
        u, w = rng.sample(NUMBERS, 2)
        k = rng.randint(0, 6)
        op = rng.choice([">=", "=<"])
        f = OPS[op]
        return ("abs(%s() - %s()) %s %d" % (u, w, op, k), lambda m: f(abs(m[u] - m[w]), k),
                lambda zv: f(z3.If(zv[u] >= zv[w], zv[u] - zv[w], zv[w] - zv[u]), k))
    if kind < 0.9:
        v = rng.choice(NUMBERS)
        op = rng.choice(["=", ">=", "=<"])
        f = OPS[op]
        return ("sum{{ f(i) | i in T }} %s %s()" % (op, v),
                lambda m: f(sum(m["f(%d)" % i] for i in ELEMENTS), m[v]),
                lambda zv: f(z3.Sum([zv["f(%d)" % i] for i in ELEMENTS]), zv[v]))
    return bound(rng, rng.choice(NUMBERS + ["f(%d)" % i for i in ELEMENTS]))


def bound(rng, v):
    """`lo =< v =< hi` for a number `v`."""
    lo = rng.randint(-10, 0)
    hi = lo + rng.randint(0, 12)
    return ("%d =< %s =< %d" % (lo, idp_name(v), hi), lambda m: lo <= m[v] <= hi,
            lambda zv: z3.And(lo <= zv[v], zv[v] <= hi))


def theory(rng):
    sentences = [sentence(rng) for _ in range(rng.randint(2, 5))]
    # Most numbers bounded in half of the theories, so that many objectives have a minimum.
    if rng.random() < 0.5:
        for v in NUMBERS + ["f(%d)" % i for i in ELEMENTS]:
            if rng.random() < 0.7:
                sentences.append(bound(rng, v))
    objective = term(rng)
    return sentences, objective


def idp_text(sentences, objective):
    body = "\n".join("    %s." % s[0] for s in sentences)
    return """vocabulary V {
    type T := {1, 2, 3}
    x, y, z : () -> Int
    f : T -> Int
    p : () -> Bool
}
theory T : V {
%s
}
structure S : V {}
procedure main() {
    pretty_print(model_expand(T, S, max=1))
    print("---")
    pretty_print(minimize(T, S, term="%s"))
}
""" % (body, objective[0])


def z3_vars():
    zv = {v: z3.Int(v) for v in NUMBERS}
    for i in ELEMENTS:
        zv["f(%d)" % i] = z3.Int("f%d" % i)
    zv["p"] = z3.Bool("p")
    return zv


def z3_answers(sentences, objective):
    """Z3's satisfiability and the objective's minimum (None: unsatisfiable or unbounded)."""
    zv = z3_vars()
    s = z3.Solver()
    for sen in sentences:
        s.add(sen[2](zv))
    sat = s.check() == z3.sat
    if not sat:
        return False, None
    o = z3.Optimize()
    o.set("timeout", 20000)
    for sen in sentences:
        o.add(sen[2](zv))
    h = o.minimize(objective[2](zv))
    if o.check() != z3.sat:
        return True, "unknown"
    low = o.lower(h)
    if not z3.is_int_value(low):
        return True, None  # unbounded below
    return True, low.as_long()


def parse_models(text):
    """The two answers idp printed: its model (or None) and its optimal model (or None)."""
    first, _, second = text.partition("---")

    def model(part):
        if "No models" in part or ":=" not in part:
            return None
        m = {}
        for name, value in re.findall(r"^(\w+) := ([^.\n]+|\{[^}]*\})\.", part, re.M):
            if name == "f":
                for i, v in re.findall(r"(\d+) -> (-?\d+)", value):
                    m["f(%s)" % i] = int(v)
            elif name == "p":
                m["p"] = value.strip() == "true"
            else:
                m[name] = int(value)
        return m

    return model(first), model(second)


def run_case(k, idp):
    rng = random.Random(k)
    sentences, objective = theory(rng)
    text = idp_text(sentences, objective)
    with tempfile.NamedTemporaryFile("w", suffix=".idp", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        out = subprocess.run([idp, path], capture_output=True, text=True, timeout=60)
    finally:
        os.unlink(path)
    problems = []
    sat, low = z3_answers(sentences, objective)
    gave_up = out.returncode == 3 and "gave up" in out.stderr
    if out.returncode != 0 and not gave_up:
        return ["exit %d: %s" % (out.returncode, out.stderr.strip()[:300])], text, None
    model, optimal = parse_models(out.stdout)
    if gave_up and "---" not in out.stdout:
        # Model expansion itself stopped without an answer (and said so).
        return problems, text, (sat, "gave up")
    if gave_up:
        # idp stopped the optimisation without a proof (exit 3) and said so; its best model is
        # still checked, and must not be better than Z3's minimum.
        if low not in (None, "unknown") and optimal is not None and objective[1](optimal) < low:
            problems.append("idp's best %d is below Z3's minimum %d" % (objective[1](optimal), low))
        low = "gave up"
    for name, m in (("model", model), ("optimal model", optimal)):
        if m is None:
            continue
        for s in sentences:
            if not s[1](m):
                problems.append("%s violates %s: %s" % (name, s[0], m))
    if (model is not None) != sat:
        problems.append("idp %s, Z3 %s" % ("sat" if model else "unsat", "sat" if sat else "unsat"))
    if sat and low is None and optimal is not None:
        # Z3: no minimum. idp searches FO(·)'s Int within 32 bits (IDP3's integers), so its
        # minimum puts a number at that bound.
        at_bound = any(isinstance(v, int) and abs(v) >= 2**30 for v in optimal.values())
        if not at_bound:
            problems.append("idp's minimum %d, Z3 finds no minimum" % objective[1](optimal))
        low = "at the 32-bit bound"
    if sat and isinstance(low, int):
        if optimal is None:
            problems.append("idp has no optimum, Z3's minimum is %d" % low)
        elif objective[1](optimal) != low:
            problems.append("idp's minimum %d, Z3's %d" % (objective[1](optimal), low))
    return problems, text, (sat, low)


def main():
    cases = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    idp = sys.argv[2] if len(sys.argv) > 2 else "target/release/idp"
    agree = sat_count = bounded = gave_up = at_bound = 0
    for k in range(cases):
        problems, text, answer = run_case(k, idp)
        if problems:
            print("case %d disagrees:\n  %s\n%s" % (k, "\n  ".join(problems), text))
            continue
        agree += 1
        sat_count += answer[0]
        bounded += isinstance(answer[1], int)
        gave_up += answer[1] == "gave up"
        at_bound += answer[1] == "at the 32-bit bound"
    print("%d cases, %d agree (%d satisfiable; minima: %d equal to Z3's, %d where idp stopped "
          "without a proof and said so, %d unbounded for Z3 that idp puts at the 32-bit bound)"
          % (cases, agree, sat_count, bounded, gave_up, at_bound))
    sys.exit(0 if agree == cases else 1)


if __name__ == "__main__":
    main()
