#!/usr/bin/env python3
"""Instances for bench/search.sh: one structure per instance that includes the plain spec,
and the same facts for clingo. Deterministic: each generator is seeded by its arguments.

  gen.py roads N OUTDIR       N cities, about 3 roads per city (lengths 1..9, stored once as
                              road(x, y) with x < y), Src 0, Dst N-1, Budget the cheapest
                              cost between them (Dijkstra): roadsN.idp, roadsN.lp
  gen.py steiner N K OUTDIR   the same network with K terminals (0 the root), Budget the
                              cheapest Steiner tree (Dreyfus-Wagner): steinerN.idp, .lp
  gen.py ham N OUTDIR         a directed graph of N nodes: a hidden Hamiltonian cycle plus
                              random edges, 3 out-edges per node: hamN.idp, hamN.lp
  gen.py maze N OUTDIR        the n x n grid for specs/maze/construction.idp (structure G):
                              mazeN.idp
  gen.py seedmaze N OUTDIR    the same grid over the theory as seed 000 writes it: the spec's
                              theory without its two lines that keep the entrance and the exit
                              empty (the seed's leaves the exit open: twice the models):
                              seedmazeN.idp and seedmaze.idp
  gen.py colour FILE OUTDIR   a colour-maze puzzle file (specs/colourmaze/instances/*.txt)
                              as structure P over specs/colourmaze/colourmaze.idp and as
                              paint/3 facts: colourNAME.idp, colourNAME.lp
  gen.py colourgrid N K OUTDIR  a random N x N colour-maze puzzle with K colours, as the seed's
                              generator makes them (white start and finish, fewer than N + 2
                              white cells, every colour present; solutions not necessarily
                              unique): colourgridNcK.txt, for `gen.py colour`
  gen.py overflow FILE OUTDIR an Overflow level file (specs/overflow/levels/*.txt) as facts
                              for bench/search/overflow.lp: overflowNAME.lp
"""
import heapq
import itertools
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def network(n):
    """Roads {(x, y): d} with x < y: a random spanning tree plus extra roads."""
    rng = random.Random(f"roads-{n}")
    roads = {}
    order = list(range(n))
    rng.shuffle(order)
    for i in range(1, n):
        a, b = order[i], order[rng.randrange(i)]
        roads[(min(a, b), max(a, b))] = rng.randint(1, 9)
    while len(roads) < 3 * n // 2:
        a, b = rng.sample(range(n), 2)
        roads.setdefault((min(a, b), max(a, b)), rng.randint(1, 9))
    return roads


def distances(n, roads, source):
    adj = {v: [] for v in range(n)}
    for (a, b), d in roads.items():
        adj[a].append((b, d))
        adj[b].append((a, d))
    dist = {source: 0}
    queue = [(0, source)]
    while queue:
        d, v = heapq.heappop(queue)
        if d > dist[v]:
            continue
        for w, l in adj[v]:
            if d + l < dist.get(w, 1 << 60):
                dist[w] = d + l
                heapq.heappush(queue, (d + l, w))
    return dist


def steiner_cost(n, roads, terminals):
    """Dreyfus-Wagner: the cheapest tree connecting the terminals."""
    dist = [distances(n, roads, v) for v in range(n)]
    k = len(terminals)
    inf = 1 << 60
    best = [[inf] * n for _ in range(1 << k)]
    for i, t in enumerate(terminals):
        for v in range(n):
            best[1 << i][v] = dist[t][v]
    for mask in range(1, 1 << k):
        if mask & (mask - 1) == 0:
            continue
        for v in range(n):
            sub = (mask - 1) & mask
            while sub:
                best[mask][v] = min(best[mask][v], best[sub][v] + best[mask ^ sub][v])
                sub = (sub - 1) & mask
        for v in range(n):
            best[mask][v] = min(best[mask][u] + dist[u][v] for u in range(n))
    return min(best[(1 << k) - 1])


def write(outdir, name, spec, structure, facts):
    with open(os.path.join(outdir, name + ".idp"), "w") as f:
        f.write(f'include "{os.path.join(HERE, spec)}"\n')
        f.write("structure S : V {\n" + "".join(f"    {line}\n" for line in structure) + "}\n")
    with open(os.path.join(outdir, name + ".lp"), "w") as f:
        f.writelines(f"{fact}.\n" for fact in facts)


def road_lines(n, roads, budget):
    structure = [
        f"City = {{ 0..{n - 1} }}",
        f"Dist = {{ 0..{max(budget, 9)} }}",
        "Road = { " + "; ".join(f"{a},{b},{d}" for (a, b), d in sorted(roads.items())) + " }",
        f"Budget = {budget}",
    ]
    facts = [f"road({a},{b},{d})" for (a, b), d in sorted(roads.items())] + [f"budget({budget})"]
    return structure, facts


def roads_instance(n, outdir):
    roads = network(n)
    budget = distances(n, roads, 0)[n - 1]
    structure, facts = road_lines(n, roads, budget)
    structure += ["Src = 0", f"Dst = {n - 1}"]
    facts += ["src(0)", f"dst({n - 1})"]
    write(outdir, f"roads{n}", "budget.idp", structure, facts)


def steiner_instance(n, k, outdir):
    roads = network(n)
    rng = random.Random(f"steiner-{n}-{k}")
    terminals = [0] + rng.sample(range(1, n), k - 1)
    budget = steiner_cost(n, roads, terminals)
    structure, facts = road_lines(n, roads, budget)
    structure += ["Terminal = { " + "; ".join(map(str, sorted(terminals))) + " }", "Root = 0"]
    facts += [f"terminal({t})" for t in sorted(terminals)] + ["root(0)"]
    write(outdir, f"steiner{n}", "steiner.idp", structure, facts)


def ham_instance(n, outdir):
    rng = random.Random(f"ham-{n}")
    cycle = list(range(n))
    rng.shuffle(cycle)
    edges = {(cycle[i], cycle[(i + 1) % n]) for i in range(n)}
    while len(edges) < 3 * n:
        a, b = rng.sample(range(n), 2)
        edges.add((a, b))
    edges = sorted(edges)
    structure = [
        f"Node = {{ 0..{n - 1} }}",
        "Edge = { " + "; ".join(f"{a},{b}" for a, b in edges) + " }",
    ]
    facts = [f"node(0..{n - 1})"] + [f"edge({a},{b})" for a, b in edges]
    write(outdir, f"ham{n}", "ham.idp", structure, facts)


def maze_instance(n, outdir):
    spec = os.path.join(HERE, "..", "..", "specs", "maze", "construction.idp")
    with open(os.path.join(outdir, f"maze{n}.idp"), "w") as f:
        f.write(f'include "{os.path.normpath(spec)}"\n')
        f.write(f"structure G : Vmaze {{\n    X = {{ 0..{n - 1} }}\n    Y = {{ 0..{n - 1} }}\n}}\n")


def seed_maze_instance(n, outdir):
    spec = os.path.join(HERE, "..", "..", "specs", "maze", "construction.idp")
    added = ("~Wall(Entrance).", "~Wall(Exit).")
    with open(spec) as f:
        kept = [line for line in f if line.strip() not in added]
    theory = os.path.join(outdir, "seedmaze.idp")
    with open(theory, "w") as f:
        f.writelines(kept)
    with open(os.path.join(outdir, f"seedmaze{n}.idp"), "w") as f:
        f.write(f'include "{theory}"\n')
        f.write(f"structure G : Vmaze {{\n    X = {{ 0..{n - 1} }}\n    Y = {{ 0..{n - 1} }}\n}}\n")


def colour_instance(path, outdir):
    rows, k = [], 0
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("#"):
                given = line[1:].strip()
                if given.startswith("colours:"):
                    k = max(k, int(given.split(":")[1]))
            elif line.isdigit():
                rows.append(line)
                k = max([k] + [int(ch) for ch in line])
    name = os.path.splitext(os.path.basename(path))[0]
    n, w = len(rows), max(len(r) for r in rows)
    paint = [(r, c, int(ch)) for r, row in enumerate(rows) for c, ch in enumerate(row)]
    spec = os.path.join(HERE, "..", "..", "specs", "colourmaze", "colourmaze.idp")
    with open(os.path.join(outdir, f"colour{name}.idp"), "w") as f:
        f.write(f'include "{os.path.normpath(spec)}"\n')
        cells = "; ".join(f"{r},{c}->{v}" for r, c, v in paint)
        f.write(f"structure P : V {{\n    Row = {{ 0..{n - 1} }}\n    Col = {{ 0..{w - 1} }}\n"
                f"    Colour = {{ 0..{k} }}\n    Paint = {{ {cells} }}\n}}\n")
    with open(os.path.join(outdir, f"colour{name}.lp"), "w") as f:
        f.write(f"colours({k}).\n")
        f.write("".join(f"paint({r},{c},{v}).\n" for r, c, v in paint))


def colour_grid(n, k, outdir):
    rng = random.Random(f"colourgrid-{n}-{k}")
    while True:
        grid = [[rng.randint(1, k) for _ in range(n)] for _ in range(n)]
        grid[n - 1][0] = grid[0][n - 1] = 0
        for _ in range(rng.randrange(n)):
            grid[rng.randrange(n)][rng.randrange(n)] = 0
        cells = [v for row in grid for v in row]
        if cells.count(0) < n + 2 and all(c in cells for c in range(1, k + 1)):
            break
    with open(os.path.join(outdir, f"colourgrid{n}c{k}.txt"), "w") as f:
        f.write(f"# gen.py colourgrid {n} {k}\n# colours: {k}\n")
        f.write("".join("".join(map(str, row)) + "\n" for row in grid))


def overflow_instance(path, outdir):
    kinds = {"-": "straight", "L": "curved", "+": "bridge", "#": "moat", "U": "ocean"}
    with open(path) as f:
        rows = [line.rstrip("\n") for line in f if not line.startswith("//")]
    while rows and not rows[-1].strip():
        rows.pop()
    name = os.path.splitext(os.path.basename(path))[0]
    with open(os.path.join(outdir, f"overflow{name}.lp"), "w") as f:
        f.write(f"rows({len(rows)}). cols({max(len(r) for r in rows)}).\n")
        for r, row in enumerate(rows):
            for c, ch in enumerate(row):
                if ch in kinds:
                    f.write(f"{kinds[ch]}({r},{c}).\n")


def main(argv):
    kind, args = argv[1], argv[2:]
    if kind == "roads":
        roads_instance(int(args[0]), args[1])
    elif kind == "steiner":
        steiner_instance(int(args[0]), int(args[1]), args[2])
    elif kind == "ham":
        ham_instance(int(args[0]), args[1])
    elif kind == "maze":
        maze_instance(int(args[0]), args[1])
    elif kind == "seedmaze":
        seed_maze_instance(int(args[0]), args[1])
    elif kind == "colour":
        colour_instance(args[0], args[1])
    elif kind == "colourgrid":
        colour_grid(int(args[0]), int(args[1]), args[2])
    elif kind == "overflow":
        overflow_instance(args[0], args[1])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
