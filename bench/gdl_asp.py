#!/usr/bin/env python3
"""Writes a PlayID game's GDL rules as an ASP planning program, for gringo's ground size.

Usage:  bench/gdl_asp.py GAME.kif HORIZON > game.lp

The program plans the single-player game the way PlayID's IDP3 translation asks (a model with
`Score = 100`): from the `init` state, each role makes exactly one legal move per step while
the game is not terminal, `next` gives the following state, and the goal at the first terminal
step is 100. Time points are 0..HORIZON (PlayID's structures give `Time = {0..20}`).

Written the plain way for ASP: predicates that depend on `true` or `does` get a time argument
(`true(F, T)`, `does(R, M, T)`), `next` becomes `true(F, T+1)`, `distinct` becomes `!=`, and
the static predicates stay as GDL writes them. GDL names are mapped to ASP names: variables
`?x` to `V_x`, constants that are not lowercase identifiers or integers to `c_<name>`.
The KIF reading is the checker's (bench/gdl_check.py).
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdl_check  # noqa: E402


def name(c):
    if gdl_check.is_var(c):
        return "V_" + re.sub(r"\W", "_", c[1:])
    if re.fullmatch(r"-?[0-9]+", c):
        return c
    if re.fullmatch(r"[a-z][A-Za-z0-9_]*", c):
        return c
    return "c_" + re.sub(r"\W", "_", c)


def term(t):
    if isinstance(t, tuple):
        return "%s(%s)" % (name(t[0]), ",".join(term(a) for a in t[1:]))
    return name(t)


def atom(key, args, dynamic, time):
    pred = {"true": "true", "does": "does", "next": "true"}.get(key[0], name(key[0]))
    parts = [term(a) for a in args]
    if key in dynamic or key[0] == "next":
        parts.append(time)
    return "%s(%s)" % (pred, ",".join(parts)) if parts else pred


def literal(lit, dynamic):
    if lit[0] == "pos":
        return atom(lit[1], lit[2], dynamic, "T")
    if lit[0] == "neg":
        return "not " + atom(lit[1], lit[2], dynamic, "T")
    if lit[0] == "distinct":
        return "%s != %s" % (term(lit[1]), term(lit[2]))
    return "%s = %s" % (term(lit[1]), term(lit[2]))  # ("same", a, b): not distinct


def translate(text, horizon):
    program = gdl_check.load_game(text)
    dynamic = program.dynamic | {("next", 1), ("legal", 2), ("goal", 2), ("terminal", 0)}
    out = ["%% gdl_asp.py: horizon %d" % horizon, "time(0..%d)." % horizon]
    for r in program.rules:
        key, args = r.head
        timed = key in dynamic or any(l[0] in ("pos", "neg") and l[1] in dynamic for l in r.body)
        if key[0] == "init":
            head = "true(%s,0)" % term(args[0])
        elif key[0] == "next":
            head = "true(%s,T+1)" % term(args[0])
        else:
            head = atom(key, args, dynamic, "T")
        body = [literal(l, dynamic) for l in r.body]
        if timed or key[0] == "next":
            body.append("time(T)")
            if key[0] == "next":
                body.append("T < %d" % horizon)
        out.append("%s :- %s." % (head, ", ".join(body)) if body else head + ".")
    out += [
        "stop(T) :- terminal(T).",
        "stop(T+1) :- stop(T), time(T+1).",
        "1 { does(R, M, T) : legal(R, M, T) } 1 :- role(R), time(T), T < %d, not stop(T)."
        % horizon,
        ":- does(R, M, T), stop(T).",
        "first(T) :- terminal(T), not stop(T-1), time(T).",
        ":- first(T), role(R), not goal(R, 100, T).",
        "#show does/3.",
    ]
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        text = f.read()
    try:
        sys.stdout.write(translate(text, int(argv[2])))
    except gdl_check.BadInput as e:
        print("bad input: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
