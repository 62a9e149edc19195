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
  gen.py solitaire M SEED OUTDIR   the English peg-solitaire board, a start position M random
                                   moves backwards from one peg, M moves to make:
                                   solitaireM-SEED.idp, solitaireM-SEED.lp
  gen.py binpacking N SEED OUTDIR  N items of sizes 10 to 60, bins of capacity 100, as many
                                   bins as first-fit decreasing uses: binpackingN-SEED.idp, .lp
  gen.py crossing L W SEED OUTDIR  L layers of W - 1 to W + 1 nodes, edges between consecutive
                                   layers: crossingL-W-SEED.idp, crossingL-W-SEED.lp
  gen.py labyrinth N M K SEED OUTDIR
                                   an N x N board of straights, corners and T-junctions, M
                                   steps, a goal that no plan of at most K pushes reaches (all
                                   tried) and, if M > K, a hidden plan of M random pushes does
                                   (so M =< K is unsatisfiable): labyrinthN-M-K-SEED.idp, .lp
  gen.py sokoban N B SEED OUTDIR   an N x N room, about a fifth of it walls, B boxes pulled
                                   back at random from their goals, the shortest plan's length
                                   (breadth-first search) as horizon: sokobanN-B-SEED.idp, .lp
  gen.py fifteen N L SEED OUTDIR   an N x N sliding-tile board shuffled by L random moves, L
                                   steps: fifteenN-L-SEED.idp, fifteenN-L-SEED.lp
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


def solitaire(moves, seed, outdir):
    rng = random.Random("solitaire-%d-%d" % (moves, seed))
    holes = [(r, c) for r in range(7) for c in range(7) if 2 <= r <= 4 or 2 <= c <= 4]
    number = {h: i for i, h in enumerate(holes)}
    jumps = []
    for r, c in holes:
        for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            over, to = (r + dr, c + dc), (r + 2 * dr, c + 2 * dc)
            if over in number and to in number:
                jumps.append((number[(r, c)], number[over], number[to]))
    # Backwards from one peg: a jump a over b into c undone puts pegs on a and b, none on c.
    while True:
        pegs = {rng.randrange(len(holes))}
        for _ in range(moves):
            back = [(a, b, c) for a, b, c in jumps if c in pegs and a not in pegs and b not in pegs]
            if not back:
                break
            a, b, c = rng.choice(back)
            pegs = (pegs - {c}) | {a, b}
        else:
            break
    structure = "structure S : V {\n  Time = { 0..%d }\n  Hole = { 0..%d }\n" % (moves, len(holes) - 1)
    structure += "  Jump = { %s }\n  Full = { %s }\n}\n" % (
        "; ".join("%d,%d,%d" % j for j in jumps), "; ".join(str(p) for p in sorted(pegs)))
    facts = "time(1..%d).\n" % moves + "".join("full(%d).\n" % p for p in sorted(pegs))
    facts += "".join("jump(%d,%d,%d).\n" % j for j in jumps)
    write(outdir, "solitaire%d-%d" % (moves, seed), "solitaire.idp", structure, facts)


def binpacking(n, seed, outdir):
    rng = random.Random("binpacking-%d-%d" % (n, seed))
    capacity = 100
    sizes = [rng.randint(10, 60) for _ in range(n)]
    loads = []
    for s in sorted(sizes, reverse=True):
        for b, load in enumerate(loads):
            if load + s <= capacity:
                loads[b] += s
                break
        else:
            loads.append(s)
    structure = "structure S : V {\n  Item = { 1..%d }\n  Bin = { 1..%d }\n" % (n, len(loads))
    structure += "  Size = { %s }\n  Capacity = %d\n}\n" % (
        "; ".join("%d->%d" % (i + 1, s) for i, s in enumerate(sizes)), capacity)
    facts = "item(1..%d).\nbin(1..%d).\ncapacity(%d).\n" % (n, len(loads), capacity)
    facts += "".join("size(%d,%d).\n" % (i + 1, s) for i, s in enumerate(sizes))
    write(outdir, "binpacking%d-%d" % (n, seed), "binpacking.idp", structure, facts)


def crossing(layers, width, seed, outdir):
    rng = random.Random("crossing-%d-%d-%d" % (layers, width, seed))
    members, n = [], 0
    for _ in range(layers):
        w = rng.randint(width - 1, width + 1)
        members.append(list(range(n, n + w)))
        n += w
    edges = set()
    for lower, upper in zip(members, members[1:]):
        for b in upper:
            edges.update((a, b) for a in rng.sample(lower, 2))
        for a in lower:
            if not any((a, b) in edges for b in upper):
                edges.add((a, rng.choice(upper)))
    edges = sorted(edges)
    structure = "structure S : V {\n  Layer = { 0..%d }\n  Node = { 0..%d }\n  Position = { 1..%d }\n" % (
        layers - 1, n - 1, max(len(m) for m in members))
    structure += "  InLayer = { %s }\n" % "; ".join(
        "%d->%d" % (v, l) for l, m in enumerate(members) for v in m)
    structure += "  Width = { %s }\n" % "; ".join("%d->%d" % (l, len(m)) for l, m in enumerate(members))
    structure += "  Edge = { %s }\n}\n" % "; ".join("%d,%d" % e for e in edges)
    facts = "".join("width(%d,%d).\n" % (l, len(m)) for l, m in enumerate(members))
    facts += "".join("in_layer(%d,%d).\n" % (l, v) for l, m in enumerate(members) for v in m)
    facts += "".join("edge(%d,%d).\n" % e for e in edges)
    write(outdir, "crossing%d-%d-%d" % (layers, width, seed), "crossing.idp", structure, facts)


# Labyrinth: the directions north, east, south, west (clockwise), bit d of a field's openings.
COMPASS = ((0, -1), (1, 0), (0, 1), (-1, 0))


def labyrinth_push(n, board, line, d):
    """The board (the tile on each field, field (x, y) at y n + x from 0) after pushing row
    `line` east (d = 1) or west (3), or column `line` south (2) or north (0), by one field."""
    new = list(board)
    if d in (1, 3):
        row = board[line * n:(line + 1) * n]
        new[line * n:(line + 1) * n] = row[-1:] + row[:-1] if d == 1 else row[1:] + row[:1]
    else:
        column = board[line::n]
        new[line::n] = column[-1:] + column[:-1] if d == 2 else column[1:] + column[:1]
    return new


def labyrinth_walk(n, board, openings, fields):
    """The fields the avatar reaches from `fields` along fields open towards each other."""
    seen, todo = set(fields), list(fields)
    while todo:
        f = todo.pop()
        for d, (dx, dy) in enumerate(COMPASS):
            x, y = f % n + dx, f // n + dy
            if openings[board[f]] >> d & 1 and 0 <= x < n and 0 <= y < n:
                g = y * n + x
                if g not in seen and openings[board[g]] >> (d ^ 2) & 1:
                    seen.add(g)
                    todo.append(g)
    return seen


def labyrinth_step(n, board, openings, reach, line, d):
    """The board and the avatar's possible fields after a push and a walk."""
    moved = labyrinth_push(n, board, line, d)
    where = {tile: f for f, tile in enumerate(moved)}
    return moved, labyrinth_walk(n, moved, openings, {where[board[f]] for f in reach})


def labyrinth_near(n, openings, init, k):
    """The tiles that the avatar reaches with at most k pushes (every plan tried)."""
    near = set()

    def plans(board, reach, depth):
        near.update(board[f] for f in reach)
        if depth < k:
            for line in range(n):
                for d in range(4):
                    plans(*labyrinth_step(n, board, openings, reach, line, d), depth + 1)

    board = list(range(n * n))
    plans(board, labyrinth_walk(n, board, openings, {init}), 0)
    return near


def labyrinth(n, m, k, seed, outdir):
    rng = random.Random("labyrinth-%d-%d-%d-%d" % (n, m, k, seed))
    # Straights, corners and T-junctions (2 : 3 : 1), each turned at random.
    openings = []
    for _ in range(n * n):
        shape, turn = (0b0101, 0b0011, 0b0111)[rng.choice((0, 0, 1, 1, 1, 2))], rng.randrange(4)
        openings.append((shape << turn | shape >> (4 - turn)) & 15)
    while True:
        init = rng.randrange(n * n)
        near = labyrinth_near(n, openings, init, k)
        # The goal is a tile that no plan of at most k pushes reaches; with more steps than k,
        # one that a hidden plan of m random pushes reaches after its last push, not before.
        fresh = sorted(set(range(n * n)) - near)
        for _ in range(20 if m > k else 0):
            board = list(range(n * n))
            reach = labyrinth_walk(n, board, openings, {init})
            earlier = set(near)
            for _ in range(m):
                earlier |= {board[f] for f in reach}
                board, reach = labyrinth_step(n, board, openings, reach, rng.randrange(n), rng.randrange(4))
            fresh = sorted({board[f] for f in reach} - earlier)
            if fresh:
                break
        if fresh:
            goal = rng.choice(fresh)
            break
    opens = [(f % n + 1, f // n + 1, d) for f in range(n * n) for d in range(4) if openings[f] >> d & 1]
    init, goal = (init % n + 1, init // n + 1), (goal % n + 1, goal // n + 1)
    structure = "structure S : V {\n  Time = { 0..%d }\n  Coord = { 1..%d }\n  Size = %d\n" % (m, n, n)
    structure += "  Open = { %s }\n" % "; ".join(
        "%d,%d,%s" % (x, y, ("North", "East", "South", "West")[d]) for x, y, d in opens)
    structure += "  InitOn = { %d,%d }\n  GoalOn = { %d,%d }\n}\n" % (init + goal)
    facts = "time(0..%d).\nsize(%d).\ninit_on(%d,%d).\ngoal_on(%d,%d).\n" % ((m, n) + init + goal)
    facts += "".join("open(%d,%d,%s).\n" % (x, y, "nesw"[d]) for x, y, d in opens)
    write(outdir, "labyrinth%d-%d-%d-%d" % (n, m, k, seed), "labyrinth.idp", structure, facts)


SOKOBAN_DIRS = (("Up", 0, -1), ("Right", 1, 0), ("Down", 0, 1), ("Left", -1, 0))


def sokoban_plan_length(nexts, boxes, player, goals):
    """The fewest steps that put every box on a goal (breadth-first search), or None."""
    layer = {(player, frozenset(boxes))}
    seen, steps = set(layer), 0
    while layer:
        following = set()
        for player, boxes in layer:
            if boxes <= goals:
                return steps
            for d, p in enumerate(nexts[player]):
                if p is not None and p in boxes:
                    b = nexts[p][d]
                    state = None if b is None or b in boxes else (p, boxes - {p} | {b})
                else:
                    state = None if p is None else (p, boxes)
                if state is not None and state not in seen:
                    seen.add(state)
                    following.add(state)
        layer, steps = following, steps + 1
    return None


def sokoban(n, boxes_n, seed, outdir):
    rng = random.Random("sokoban-%d-%d-%d" % (n, boxes_n, seed))
    while True:
        # An n x n room, about one square in five a wall; the floor must be connected.
        floor = [(x, y) for y in range(n) for x in range(n) if rng.random() >= 0.2]
        reached, todo = {floor[0]}, [floor[0]]
        while todo:
            x, y = todo.pop()
            for _, dx, dy in SOKOBAN_DIRS:
                if (x + dx, y + dy) in floor and (x + dx, y + dy) not in reached:
                    reached.add((x + dx, y + dy))
                    todo.append((x + dx, y + dy))
        if len(reached) < len(floor) or len(floor) < boxes_n + 3:
            continue
        index = {q: i for i, q in enumerate(floor)}
        nexts = [[index.get((x + dx, y + dy)) for _, dx, dy in SOKOBAN_DIRS] for x, y in floor]
        # The boxes on their goals; the player walks backwards at random, pulling the box behind
        # him half of the times he can: where he and the boxes end is the puzzle's start.
        goals = frozenset(rng.sample(range(len(floor)), boxes_n))
        boxes = set(goals)
        player = rng.choice([q for q in range(len(floor)) if q not in boxes])
        for _ in range(20 * n * n):
            d = rng.randrange(4)
            p, behind = nexts[player][d], nexts[player][(d + 2) % 4]
            if p is not None and p not in boxes:
                if behind in boxes and rng.random() < 0.5:
                    boxes = boxes - {behind} | {player}
                player = p
        if not boxes & goals:
            break
    steps = sokoban_plan_length(nexts, boxes, player, goals)
    structure = "structure S : V {\n  Time = { 0..%d }\n  Square = { 0..%d }\n" % (steps, len(floor) - 1)
    structure += "  Next = { %s }\n" % "; ".join(
        "%d,%s,%d" % (q, SOKOBAN_DIRS[d][0], p) for q in range(len(floor)) for d, p in enumerate(nexts[q])
        if p is not None)
    structure += "  Goal = { %s }\n  InitBox = { %s }\n  Start = %d\n}\n" % (
        "; ".join(map(str, sorted(goals))), "; ".join(map(str, sorted(boxes))), player)
    facts = "time(0..%d).\nstart(%d).\n" % (steps, player)
    facts += "".join("next(%d,%s,%d).\n" % (q, SOKOBAN_DIRS[d][0].lower(), p)
                     for q in range(len(floor)) for d, p in enumerate(nexts[q]) if p is not None)
    facts += "".join("goal(%d).\n" % q for q in sorted(goals))
    facts += "".join("box(%d).\n" % q for q in sorted(boxes))
    write(outdir, "sokoban%d-%d-%d" % (n, boxes_n, seed), "sokoban.idp", structure, facts)


def fifteen(n, length, seed, outdir):
    rng = random.Random("fifteen-%d-%d-%d" % (n, length, seed))
    adjacent = [(r * n + c, (r + dr) * n + c + dc) for r in range(n) for c in range(n)
                for dr, dc in ((-1, 0), (0, 1), (1, 0), (0, -1)) if 0 <= r + dr < n and 0 <= c + dc < n]
    goal = list(range(n * n))
    board, blank, before = list(goal), 0, None
    for _ in range(length):
        cell = rng.choice([b for a, b in adjacent if a == blank and b != before])
        board[blank], board[cell] = board[cell], 0
        before, blank = blank, cell
    structure = "structure S : V {\n  Time = { 0..%d }\n  Cell = { 0..%d }\n  Tile = { 0..%d }\n" % (
        length, n * n - 1, n * n - 1)
    structure += "  Adjacent = { %s }\n" % "; ".join("%d,%d" % a for a in adjacent)
    structure += "  Start = { %s }\n" % "; ".join("%d->%d" % (c, t) for c, t in enumerate(board))
    structure += "  Goal = { %s }\n}\n" % "; ".join("%d->%d" % (c, t) for c, t in enumerate(goal))
    facts = "time(0..%d).\ncell(0..%d).\n" % (length, n * n - 1)
    facts += "".join("adjacent(%d,%d).\n" % a for a in adjacent)
    facts += "".join("start(%d,%d).\n" % (c, t) for c, t in enumerate(board))
    facts += "".join("goal(%d,%d).\n" % (c, t) for c, t in enumerate(goal))
    write(outdir, "fifteen%d-%d-%d" % (n, length, seed), "fifteen.idp", structure, facts)


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
    elif kind == "solitaire":
        solitaire(int(args[0]), int(args[1]), args[2])
    elif kind == "binpacking":
        binpacking(int(args[0]), int(args[1]), args[2])
    elif kind == "crossing":
        crossing(int(args[0]), int(args[1]), int(args[2]), args[3])
    elif kind == "labyrinth":
        labyrinth(int(args[0]), int(args[1]), int(args[2]), int(args[3]), args[4])
    elif kind == "sokoban":
        sokoban(int(args[0]), int(args[1]), int(args[2]), args[3])
    elif kind == "fifteen":
        fifteen(int(args[0]), int(args[1]), int(args[2]), args[3])
    else:
        sys.exit(__doc__)
