#!/usr/bin/env python3
"""Instances for bench/generic.sh, written as a user would: one structure per instance that
includes the plain spec, and the same facts for clingo.

  gen.py tc N [M] OUTDIR       random graph, N nodes, M edges (default 2N): tcN.idp, tcN.lp
  gen.py keys X.lp OUTDIR      peers' keys facts -> X.idp (structure S for game_ltc.idp)
  gen.py theseus X.lp OUTDIR   peers' Theseus facts -> X.idp (structure S for theseus_states.idp)

Deterministic: the random graph is seeded by its size.
"""
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def facts(path):
    """name -> list of integer tuples; ranges a..b expanded."""
    out = {}
    for line in open(path):
        line = line.split("%", 1)[0]
        for name, args in re.findall(r"([a-z_]\w*)\(([^)]*)\)\s*\.", line):
            lists = []
            for a in args.split(","):
                a = a.strip()
                if ".." in a:
                    lo, hi = a.split("..")
                    lists.append(list(range(int(lo), int(hi) + 1)))
                else:
                    lists.append([int(a)])
            tuples = [[]]
            for values in lists:
                tuples = [t + [v] for t in tuples for v in values]
            out.setdefault(name, []).extend(tuple(t) for t in tuples)
    return out


def tc(n, m, outdir):
    rng = random.Random(f"tc-{n}-{m}")
    edges = set()
    while len(edges) < m:
        edges.add((rng.randrange(n), rng.randrange(n)))
    edges = sorted(edges)
    base = os.path.join(outdir, f"tc{n}")
    with open(base + ".idp", "w") as f:
        f.write(f'include "{HERE}/tc.idp"\n')
        f.write(f"// A random graph: {n} nodes, {m} edges.\n")
        f.write("structure S : V {\n")
        f.write(f"    Node = {{ 0..{n - 1} }}\n")
        f.write("    Edge = { " + "; ".join(f"{a},{b}" for a, b in edges) + " }\n}\n")
    with open(base + ".lp", "w") as f:
        f.write(f"node(0..{n - 1}).\n")
        f.writelines(f"edge({a},{b}).\n" for a, b in edges)


def keys(path, outdir):
    f = facts(path)
    (w, h), = f["dim"]
    (maxtime,), = f["maxtime"]
    nkeys = max([k for k, _, _ in f.get("key", [])] + [k for k, _, _ in f.get("gate", [])] + [1])
    p = lambda x, y: f"P({x},{y})"
    name = os.path.splitext(os.path.basename(path))[0]
    with open(os.path.join(outdir, name + ".idp"), "w") as o:
        o.write(f'include "{HERE}/game_ltc.idp"\n')
        o.write(f"// {name}, from {path}\n")
        o.write("structure S : V {\n")
        o.write(f"    Time = {{ 0..{maxtime} }}\n")
        o.write(f"    X = {{ 0..{w - 1} }}\n    Y = {{ 0..{h - 1} }}\n    Key = {{ 1..{nkeys} }}\n")
        o.write("    Wall = { " + "; ".join(p(x, y) for x, y in f.get("wall", [])) + " }\n")
        (ex, ey), = f["entrance"]
        (xx, xy), = f["exit"]
        o.write(f"    Entrance = {p(ex, ey)}\n    Exit = {p(xx, xy)}\n")
        o.write("    I_Gate = { " + "; ".join(f"{p(x, y)},{k}" for k, x, y in f.get("gate", [])) + " }\n")
        o.write("    I_Key = { " + "; ".join(f"{p(x, y)},{k}" for k, x, y in f.get("key", [])) + " }\n")
        o.write("}\n")


def theseus(path, outdir):
    f = facts(path)
    nums = sorted({v for name in ("field", "wall", "start", "goal", "mino") for t in f.get(name, []) for v in t})
    (maxsteps,), = f["maxsteps"]
    name = os.path.splitext(os.path.basename(path))[0]
    tup = lambda ts: "; ".join(",".join(map(str, t)) for t in ts)
    with open(os.path.join(outdir, name + ".idp"), "w") as o:
        o.write(f'include "{HERE}/theseus_states.idp"\n')
        o.write(f"// {name}, from {path}\n")
        o.write("structure S : V {\n")
        o.write(f"    Num = {{ {min(nums)}..{max(nums)} }}\n    Time = {{ 0..{maxsteps} }}\n")
        for fact in ("field", "start", "goal", "mino", "wall"):
            o.write(f"    {fact} = {{ {tup(f.get(fact, []))} }}\n")
        o.write("}\n")


def main():
    kind = sys.argv[1]
    if kind == "tc":
        n = int(sys.argv[2])
        m = int(sys.argv[3]) if len(sys.argv) > 4 else 2 * n
        tc(n, m, sys.argv[-1])
    elif kind == "keys":
        keys(sys.argv[2], sys.argv[3])
    elif kind == "theseus":
        theseus(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
