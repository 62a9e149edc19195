#!/usr/bin/env python3
"""Seeded instances of the classic problems in bench/classics, for idp and for clingo.

  gen.py clique N P SEED OUTDIR    a random undirected graph: cliqueN-SEED.idp, cliqueN-SEED.lp
  gen.py hamcycle N SEED OUTDIR    a directed graph around a hidden Hamiltonian cycle, three
                                   out-edges per node: hamcycleN-SEED.idp, hamcycleN-SEED.lp
"""
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def write(outdir, name, spec, structure, facts):
    with open(os.path.join(outdir, name + ".idp"), "w") as f:
        f.write('include "%s"\n%s' % (os.path.join(HERE, spec), structure))
    with open(os.path.join(outdir, name + ".lp"), "w") as f:
        f.write(facts)


def graph(n, edges):
    structure = "structure S : V {\n  Node = { 0..%d }\n  Edge = { %s }\n}\n" % (
        n - 1, "; ".join("%d,%d" % e for e in edges))
    facts = "node(0..%d).\n" % (n - 1) + "".join("edge(%d,%d).\n" % e for e in edges)
    return structure, facts


def clique(n, p, seed, outdir):
    rng = random.Random("clique-%d-%s-%d" % (n, p, seed))
    edges = [(a, b) for a in range(n) for b in range(a + 1, n) if rng.random() < p]
    write(outdir, "clique%d-%d" % (n, seed), "clique.idp", *graph(n, edges))


def hamcycle(n, seed, outdir):
    rng = random.Random("hamcycle-%d-%d" % (n, seed))
    order = list(range(n))
    rng.shuffle(order)
    edges = {(order[i], order[(i + 1) % n]) for i in range(n)}
    for a in range(n):
        out = 1
        while out < 3:
            b = rng.randrange(n)
            if b != a and (a, b) not in edges:
                edges.add((a, b))
                out += 1
    write(outdir, "hamcycle%d-%d" % (n, seed), "hamcycle.idp", *graph(n, sorted(edges)))


if __name__ == "__main__":
    kind, args = sys.argv[1], sys.argv[2:]
    if kind == "clique":
        clique(int(args[0]), float(args[1]), int(args[2]), args[3])
    elif kind == "hamcycle":
        hamcycle(int(args[0]), int(args[1]), args[2])
    else:
        sys.exit(__doc__)
