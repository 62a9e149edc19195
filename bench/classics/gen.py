#!/usr/bin/env python3
"""Seeded instances of the classic problems in bench/classics, for idp and for clingo.

  gen.py clique N P SEED OUTDIR    a random undirected graph: cliqueN-SEED.idp, cliqueN-SEED.lp
  gen.py hamcycle N SEED OUTDIR    a directed graph around a hidden Hamiltonian cycle, three
                                   out-edges per node: hamcycleN-SEED.idp, hamcycleN-SEED.lp
  gen.py colouring N K SEED OUTDIR a random graph of N nodes and 2 N edges, K colours:
                                   colouringN-SEED.idp, colouringN-SEED.lp
  gen.py knight N OUTDIR           the N x N board: knightN.idp, knightN.lp
  gen.py marriage N SEED OUTDIR    N men and N women ranking the other side at random:
                                   marriageN-SEED.idp, marriageN-SEED.lp
  gen.py visitall N SEED OUTDIR    an N x N grid, a random start, a budget of 1.25 N² steps:
                                   visitallN-SEED.idp, visitallN-SEED.lp
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


def colouring(n, k, seed, outdir):
    rng = random.Random("colouring-%d-%d-%d" % (n, k, seed))
    edges = set()
    while len(edges) < 2 * n:
        a, b = rng.randrange(n), rng.randrange(n)
        if a != b:
            edges.add((min(a, b), max(a, b)))
    structure, facts = graph(n, sorted(edges))
    structure = structure[:-len("}\n")] + "  Colour = { 1..%d }\n}\n" % k
    facts += "colour(1..%d).\n" % k
    write(outdir, "colouring%d-%d" % (n, seed), "colouring.idp", structure, facts)


def knight(n, outdir):
    structure = "structure S : V {\n  Coord = { 1..%d }\n}\n" % n
    write(outdir, "knight%d" % n, "knight.idp", structure, "coord(1..%d).\n" % n)


def marriage(n, seed, outdir):
    rng = random.Random("marriage-%d-%d" % (n, seed))
    men, women = [], []
    for side in (men, women):
        for _ in range(n):
            order = list(range(1, n + 1))
            rng.shuffle(order)
            side.append(order)
    # rank[p][q - 1]: the rank person p gives person q of the other side (1 is best).
    structure = "structure S : V {\n  Man = { 1..%d }\n  Woman = { 1..%d }\n  Rank = { 1..%d }\n" % (n, n, n)
    structure += "  ManRank = { %s }\n" % "; ".join(
        "%d,%d->%d" % (m + 1, w + 1, men[m][w]) for m in range(n) for w in range(n))
    structure += "  WomanRank = { %s }\n}\n" % "; ".join(
        "%d,%d->%d" % (w + 1, m + 1, women[w][m]) for w in range(n) for m in range(n))
    facts = "man(1..%d).\nwoman(1..%d).\n" % (n, n)
    facts += "".join("manrank(%d,%d,%d).\n" % (m + 1, w + 1, men[m][w]) for m in range(n) for w in range(n))
    facts += "".join("womanrank(%d,%d,%d).\n" % (w + 1, m + 1, women[w][m]) for w in range(n) for m in range(n))
    write(outdir, "marriage%d-%d" % (n, seed), "marriage.idp", structure, facts)


def visitall(n, seed, outdir):
    rng = random.Random("visitall-%d-%d" % (n, seed))
    start = rng.randrange(n * n)
    steps = n * n + n * n // 4
    adjacent = []
    for r in range(n):
        for c in range(n):
            for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
                if 0 <= r + dr < n and 0 <= c + dc < n:
                    adjacent.append((r * n + c, (r + dr) * n + c + dc))
    structure = "structure S : V {\n  Time = { 0..%d }\n  Square = { 0..%d }\n" % (steps, n * n - 1)
    structure += "  Adjacent = { %s }\n  Start = %d\n}\n" % (
        "; ".join("%d,%d" % a for a in adjacent), start)
    facts = "time(0..%d).\nsquare(0..%d).\nstart(%d).\n" % (steps, n * n - 1, start)
    facts += "".join("adjacent(%d,%d).\n" % a for a in adjacent)
    write(outdir, "visitall%d-%d" % (n, seed), "visitall.idp", structure, facts)


if __name__ == "__main__":
    kind, args = sys.argv[1], sys.argv[2:]
    if kind == "clique":
        clique(int(args[0]), float(args[1]), int(args[2]), args[3])
    elif kind == "hamcycle":
        hamcycle(int(args[0]), int(args[1]), args[2])
    elif kind == "colouring":
        colouring(int(args[0]), int(args[1]), int(args[2]), args[3])
    elif kind == "knight":
        knight(int(args[0]), args[1])
    elif kind == "marriage":
        marriage(int(args[0]), int(args[1]), args[2])
    elif kind == "visitall":
        visitall(int(args[0]), int(args[1]), args[2])
    else:
        sys.exit(__doc__)
