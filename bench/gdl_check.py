#!/usr/bin/env python3
"""Replays a plan found by idp for a PlayID game against the game's original GDL rules.

Usage:  bench/gdl_check.py GAME.kif MODEL.txt

GAME.kif   the game's GDL rules (KIF), as PlayID reads them
MODEL.txt  idp's standard output for the game's translated .idp (its `main` prints models with
           `printmodels`); the first model is checked

An independent checker: it shares no code with idp and does not read the .idp translation. A
small GDL interpreter (KIF parser; rules evaluated bottom-up as Datalog with stratified negation,
`distinct`, `not`, `or`, function terms and recursion, semi-naive within each recursive
component) replays the model's `do` atoms, one joint move per time step: from the `init` state,
at each step the game must not be terminal yet, every role's move must be `legal`, and `next`
gives the following state. The game must be `terminal` exactly at the model's terminal time (the
least element of `terminalTime`), and each role's `goal` there must equal the model's `Score`.

Names are translated back the way PlayID's translator (src/fodot/gdl_parser/
GdlFodotTransformer.java) forms them: a role r is the constant p_r (convertRawRole), a constant
made of digits only, n, is in (convertConstantName), every other constant keeps its name, and an
action (f a b) is the constructor term f(a,b). ggp-base lowercases only GDL's keywords, so other
names keep their case.

Prints one line, `OK ...` or `FAIL step T (move M): reason`, and exits 0 when the plan is
correct, 1 when it breaks a rule of the game, 2 on bad input (no model, unreadable files).
"""
import re
import sys
from collections import defaultdict

KEYWORDS = {"role", "init", "true", "next", "legal", "does", "goal", "terminal", "distinct",
            "not", "or", "base", "input", "<="}


class BadInput(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# KIF
# ---------------------------------------------------------------------------------------------

def parse_kif(text):
    """S-expressions of a KIF file: atoms are str (keywords lowercased), lists are lists."""
    text = "\n".join(line.split(";", 1)[0] for line in text.splitlines())
    tokens = re.findall(r"\(|\)|[^\s()]+", text)
    stack = [[]]
    for tok in tokens:
        if tok == "(":
            stack.append([])
        elif tok == ")":
            if len(stack) == 1:
                raise BadInput("unbalanced ')' in the KIF")
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(tok.lower() if tok.lower() in KEYWORDS else tok)
    if len(stack) != 1:
        raise BadInput("unbalanced '(' in the KIF")
    return stack[0]


def is_var(t):
    return isinstance(t, str) and t.startswith("?")


def to_term(s):
    """A GDL term: a constant or variable is a str, a function term a tuple (f, args...)."""
    if isinstance(s, str):
        return s
    if not s or not isinstance(s[0], str):
        raise BadInput("bad term %r" % (s,))
    return (s[0],) + tuple(to_term(a) for a in s[1:])


def show(t):
    if isinstance(t, tuple):
        return "(" + " ".join(show(a) for a in t) + ")"
    return t


def term_vars(t, out):
    if isinstance(t, tuple):
        for a in t[1:]:
            term_vars(a, out)
    elif is_var(t):
        out.add(t)
    return out


def subst(t, b):
    if isinstance(t, tuple):
        return (t[0],) + tuple(subst(a, b) for a in t[1:])
    if is_var(t):
        return b[t]
    return t


def match(pat, val, b):
    """Extends the bindings b (in place) so that pat equals the ground val; False if it cannot."""
    if isinstance(pat, tuple):
        if not isinstance(val, tuple) or len(val) != len(pat) or val[0] != pat[0]:
            return False
        return all(match(p, v, b) for p, v in zip(pat[1:], val[1:]))
    if is_var(pat):
        old = b.get(pat)
        if old is None:
            b[pat] = val
            return True
        return old == val
    return pat == val


def atom(s):
    """An atomic sentence as (predicate key (name, arity), argument terms)."""
    if isinstance(s, str):
        if is_var(s):
            raise BadInput("a variable %s used as a sentence" % s)
        return (s, 0), ()
    if not s or not isinstance(s[0], str):
        raise BadInput("bad sentence %r" % (s,))
    return (s[0], len(s) - 1), tuple(to_term(a) for a in s[1:])


def literals(s):
    """The alternatives (lists of literals) a body element stands for (`or` distributes)."""
    if isinstance(s, list) and s and s[0] == "or":
        out = []
        for d in s[1:]:
            out.extend(literals(d))
        return out
    if isinstance(s, list) and s and s[0] == "not":
        if len(s) != 2:
            raise BadInput("bad (not ...): %r" % (s,))
        inner = s[1]
        if isinstance(inner, list) and inner and inner[0] == "or":
            # not (a or b) = not a and not b
            alts = [[]]
            for d in inner[1:]:
                alts = [a + b for a in alts for b in literals(["not", d])]
            return alts
        if isinstance(inner, list) and inner and inner[0] == "not":
            return literals(inner[1])
        if isinstance(inner, list) and inner and inner[0] == "distinct":
            return [[("same", to_term(inner[1]), to_term(inner[2]))]]
        return [[("neg",) + atom(inner)]]
    if isinstance(s, list) and s and s[0] == "distinct":
        if len(s) != 3:
            raise BadInput("bad (distinct ...): %r" % (s,))
        return [[("distinct", to_term(s[1]), to_term(s[2]))]]
    return [[("pos",) + atom(s)]]


def lit_vars(lit):
    out = set()
    if lit[0] in ("pos", "neg"):
        for a in lit[2]:
            term_vars(a, out)
    else:
        term_vars(lit[1], out)
        term_vars(lit[2], out)
    return out


# ---------------------------------------------------------------------------------------------
# Bottom-up evaluation
# ---------------------------------------------------------------------------------------------

class Relation:
    """A set of ground argument tuples with hash indices on sets of argument positions."""

    def __init__(self, facts=()):
        self.facts = set()
        self.index = {}
        for f in facts:
            self.add(f)

    def add(self, f):
        if f in self.facts:
            return False
        self.facts.add(f)
        for pos, idx in self.index.items():
            idx[tuple(f[i] for i in pos)].append(f)
        return True

    def lookup(self, pos, key):
        if not pos:
            return self.facts
        idx = self.index.get(pos)
        if idx is None:
            idx = defaultdict(list)
            for f in self.facts:
                idx[tuple(f[i] for i in pos)].append(f)
            self.index[pos] = idx
        return idx.get(key, ())


class Rule:
    def __init__(self, head, body):
        self.head = head          # (key, args)
        self.body = body          # literals

    def plan(self, first=None):
        """The body in evaluation order (literal `first` first): positive atoms by how many
        arguments are already bound, tests as soon as their variables are bound. Each step is
        (literal, positions of the arguments ground at that point)."""
        bound = set()
        rest = list(range(len(self.body)))
        steps = []

        def emit(i):
            lit = self.body[i]
            pos = ()
            if lit[0] == "pos":
                pos = tuple(j for j, a in enumerate(lit[2]) if term_vars(a, set()) <= bound)
            steps.append((i, lit, pos))
            bound.update(lit_vars(lit))
            rest.remove(i)

        if first is not None:
            emit(first)
        while rest:
            ready = [i for i in rest if self.body[i][0] != "pos" and lit_vars(self.body[i]) <= bound]
            if ready:
                emit(ready[0])
                continue
            pos = [i for i in rest if self.body[i][0] == "pos"]
            if not pos:
                raise BadInput("unsafe rule for %s: variables %s only under not/distinct"
                               % (self.head[0][0], sorted(set().union(*(lit_vars(self.body[i]) for i in rest)) - bound)))
            emit(max(pos, key=lambda i: (sum(1 for a in self.body[i][2]
                                               if term_vars(a, set()) <= bound), -i)))
        head_free = term_vars(("h",) + self.head[1], set()) - bound
        if head_free:
            raise BadInput("unsafe rule for %s: head variables %s not bound by the body"
                           % (self.head[0][0], sorted(head_free)))
        return steps


def solve(steps, k, b, rels, delta, delta_i, out_head, emit):
    if k == len(steps):
        emit(tuple(subst(a, b) for a in out_head))
        return
    i, lit, pos = steps[k]
    kind = lit[0]
    if kind == "pos":
        key, args = lit[1], lit[2]
        rel = delta if i == delta_i else rels.get(key)
        if rel is None:
            return
        kvals = tuple(subst(args[j], b) for j in pos)
        free = [j for j in range(len(args)) if j not in pos]
        for f in rel.lookup(pos, kvals):
            nb = dict(b)
            if all(match(args[j], f[j], nb) for j in free):
                solve(steps, k + 1, nb, rels, delta, delta_i, out_head, emit)
    elif kind == "neg":
        rel = rels.get(lit[1])
        if rel is None or tuple(subst(a, b) for a in lit[2]) not in rel.facts:
            solve(steps, k + 1, b, rels, delta, delta_i, out_head, emit)
    elif kind == "distinct":
        if subst(lit[1], b) != subst(lit[2], b):
            solve(steps, k + 1, b, rels, delta, delta_i, out_head, emit)
    elif kind == "same":
        if subst(lit[1], b) == subst(lit[2], b):
            solve(steps, k + 1, b, rels, delta, delta_i, out_head, emit)


class Program:
    """Rules grouped in strongly connected components, evaluated in dependency order."""

    def __init__(self, rules, inputs):
        self.rules = rules
        deps = defaultdict(set)
        negdeps = defaultdict(set)
        heads = set()
        for r in rules:
            heads.add(r.head[0])
            for lit in r.body:
                if lit[0] in ("pos", "neg"):
                    deps[r.head[0]].add(lit[1])
                    if lit[0] == "neg":
                        negdeps[r.head[0]].add(lit[1])
        self.components = self._sccs(heads, deps)
        comp_of = {k: n for n, c in enumerate(self.components) for k in c}
        for h, ns in negdeps.items():
            for k in ns:
                if comp_of.get(k) == comp_of[h]:
                    raise BadInput("not stratified: %s depends negatively on %s in a cycle"
                                   % (h[0], k[0]))
        # a predicate is dynamic when it depends on an input (true, does)
        dyn = set(inputs)
        changed = True
        while changed:
            changed = False
            for h in heads:
                if h not in dyn and deps[h] & dyn:
                    dyn.add(h)
                    changed = True
        self.dynamic = dyn
        self.by_head = defaultdict(list)
        for r in rules:
            self.by_head[r.head[0]].append(r)
        self.static = None

    @staticmethod
    def _sccs(nodes, deps):
        """Tarjan's algorithm (iterative); components come out dependencies first."""
        index, low, onstack, stack, out = {}, {}, set(), [], []
        counter = [0]
        for root in sorted(nodes):
            if root in index:
                continue
            work = [(root, iter(sorted(d for d in deps[root] if d in nodes)))]
            index[root] = low[root] = counter[0]
            counter[0] += 1
            stack.append(root)
            onstack.add(root)
            while work:
                v, it = work[-1]
                nxt = next(it, None)
                if nxt is not None:
                    if nxt not in index:
                        index[nxt] = low[nxt] = counter[0]
                        counter[0] += 1
                        stack.append(nxt)
                        onstack.add(nxt)
                        work.append((nxt, iter(sorted(d for d in deps[nxt] if d in nodes))))
                    elif nxt in onstack:
                        low[v] = min(low[v], index[nxt])
                    continue
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = set()
                    while True:
                        w = stack.pop()
                        onstack.discard(w)
                        comp.add(w)
                        if w == v:
                            break
                    out.append(comp)
        return out

    def _component(self, comp, rels):
        rules = [r for k in comp for r in self.by_head[k]]
        for k in comp:
            rels.setdefault(k, Relation())
        recursive = [r for r in rules if any(l[0] == "pos" and l[1] in comp for l in r.body)]

        def add_to(new):
            def emit(key):
                def e(f):
                    if f not in rels[key].facts:
                        new[key].add(f)
                return e
            return emit

        new = {k: Relation() for k in comp}
        emit = add_to(new)
        for r in rules:
            if not hasattr(r, "_plan"):
                r._plan = r.plan()
            solve(r._plan, 0, {}, rels, None, -1, r.head[1], emit(r.head[0]))
        while any(new[k].facts for k in comp):
            for k in comp:
                for f in new[k].facts:
                    rels[k].add(f)
            delta = new
            new = {k: Relation() for k in comp}
            emit = add_to(new)
            for r in recursive:
                if not hasattr(r, "_dplans"):
                    r._dplans = [(i, r.plan(i)) for i, l in enumerate(r.body)
                                 if l[0] == "pos" and l[1] in comp]
                for i, plan in r._dplans:
                    d = delta[r.body[i][1]]
                    if d.facts:
                        solve(plan, 0, {}, rels, d, i, r.head[1], emit(r.head[0]))

    def evaluate(self, inputs):
        """All derived relations given the input relations (key -> set of tuples)."""
        if self.static is None:
            self.static = {}
            for comp in self.components:
                if not comp & self.dynamic:
                    self._component(comp, self.static)
        rels = dict(self.static)
        for k, facts in inputs.items():
            rels[k] = Relation(facts)
        for comp in self.components:
            if comp & self.dynamic:
                self._component(comp, rels)
        return rels


def load_game(text):
    rules = []
    for s in parse_kif(text):
        if isinstance(s, list) and s and s[0] == "<=":
            if len(s) < 2:
                raise BadInput("empty rule")
            head = atom(s[1])
            alts = [[]]
            for b in s[2:]:
                alts = [a + l for a in alts for l in literals(b)]
            for body in alts:
                rules.append(Rule(head, body))
        else:
            rules.append(Rule(atom(s), []))
    for r in rules:
        if r.head[0][0] in ("true", "does", "distinct", "not", "or"):
            raise BadInput("a rule defines %s" % r.head[0][0])
    return Program(rules, {("true", 1), ("does", 2)})


def facts(rels, key):
    rel = rels.get(key)
    return rel.facts if rel else set()


# ---------------------------------------------------------------------------------------------
# idp's model
# ---------------------------------------------------------------------------------------------

def split_top(s, sep):
    out, depth, cur = [], 0, []
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return [x.strip() for x in out if x.strip()]


def parse_fo_term(s):
    """An FO(.) domain element: name or name(args), as a tuple (name, args...) or a str."""
    s = s.strip()
    m = re.fullmatch(r"([^(),\s]+)\s*\((.*)\)", s)
    if m:
        return (m.group(1),) + tuple(parse_fo_term(a) for a in split_top(m.group(2), ","))
    if not re.fullmatch(r"[^(),\s]+", s):
        raise BadInput("cannot read the domain element %r" % s)
    return s


def first_model(text):
    """The interpretations printed in the first model: name -> text between the braces (or the
    value of a constant)."""
    lines = text.splitlines()
    start = None
    for i, line in enumerate(lines):
        if line.strip().startswith("structure"):
            start = i
            break
    if start is None:
        first = next((l.strip() for l in lines if l.strip()), "no output")
        raise BadInput("no model in the output (%s)" % first[:60])
    body = []
    for line in lines[start + 1:]:
        if line.strip() == "}":
            break
        body.append(line)
    interp = {}
    for line in "\n".join(body).split("\n"):
        if "=" not in line:
            continue
        name, val = line.split("=", 1)
        val = val.strip()
        if val.startswith("{"):
            val = val[1:val.rindex("}")] if "}" in val else val[1:]
        interp[name.strip()] = val
    return interp


def tuples(val):
    return [split_top(e, ",") for e in split_top(val, ";")]


# ---------------------------------------------------------------------------------------------
# Names: GDL -> FO(.) as PlayID's translator forms them, inverted
# ---------------------------------------------------------------------------------------------

def fo_constant(name):
    return "i" + name if re.fullmatch(r"[0-9]+", name) else name


def gdl_symbols(program):
    out = set()

    def walk(t):
        if isinstance(t, tuple):
            out.add(t[0])
            for a in t[1:]:
                walk(a)
        elif not is_var(t):
            out.add(t)

    for r in program.rules:
        for a in r.head[1]:
            walk(a)
        for lit in r.body:
            if lit[0] in ("pos", "neg"):
                for a in lit[2]:
                    walk(a)
            else:
                walk(lit[1])
                walk(lit[2])
    return out


class Names:
    def __init__(self, program, roles):
        self.back = {}
        self.clash = set()
        for s in gdl_symbols(program):
            f = fo_constant(s)
            if f in self.back and self.back[f] != s:
                self.clash.add(f)
            self.back[f] = s
        self.roles = {"p_" + r: r for r in roles}

    def term(self, t):
        if isinstance(t, tuple):
            return (self.term(t[0]),) + tuple(self.term(a) for a in t[1:])
        if t in self.clash:
            raise BadInput("the FO(.) name %s stands for two GDL constants" % t)
        if t not in self.back:
            raise BadInput("the FO(.) name %s is no constant of the game" % t)
        return self.back[t]

    def role(self, p):
        if p not in self.roles:
            raise BadInput("the player %s is no role of the game (roles: %s)"
                           % (p, ", ".join(sorted(self.roles.values()))))
        return self.roles[p]


# ---------------------------------------------------------------------------------------------
# Replay
# ---------------------------------------------------------------------------------------------

def check(kif_text, model_text):
    """Returns (exit code, verdict line)."""
    program = load_game(kif_text)
    rels0 = program.evaluate({("true", 1): set(), ("does", 2): set()})
    roles = sorted(f[0] for f in facts(rels0, ("role", 1)))
    if not roles or not all(isinstance(r, str) for r in roles):
        raise BadInput("the game has no roles")
    names = Names(program, roles)
    interp = first_model(model_text)
    if "do" not in interp:
        raise BadInput("the model has no `do`")

    plan = defaultdict(dict)      # time -> role -> move
    for tup in tuples(interp["do"]):
        if len(tup) != 3 or not re.fullmatch(r"-?[0-9]+", tup[0]):
            raise BadInput("bad do tuple %r" % (tup,))
        t, role, move = int(tup[0]), names.role(tup[1]), names.term(parse_fo_term(tup[2]))
        if role in plan[t]:
            return 1, "FAIL step %d: two moves for %s (%s, %s)" % (t, role, show(plan[t][role]), show(move))
        plan[t][role] = move

    terminal_times = sorted(int(x[0]) for x in tuples(interp.get("terminalTime", "")))
    if not terminal_times:
        return 1, "FAIL: the model has no terminal time (moves at %s)" % span(sorted(plan))
    tt = terminal_times[0]
    note = ""
    if len(terminal_times) > 1:
        note = " (terminalTime also holds at %s, after the game ended)" % span(terminal_times[1:])

    scores = {}
    for tup in tuples(interp.get("Score", "")):
        p, v = tup[0].split("->")
        scores[names.role(p.strip())] = int(v.strip())

    fluents = model_fluents(program, rels0, interp, names)
    state = {(f[0],) for f in facts(rels0, ("init", 1))}
    states = [state]
    for t in range(tt):
        moves = plan.get(t, {})
        does = {(r, m) for r, m in moves.items()}
        rels = program.evaluate({("true", 1): state, ("does", 2): does})
        desc = ", ".join("%s %s" % (r, show(m)) for r, m in sorted(moves.items())) or "none"
        if facts(rels, ("terminal", 0)):
            return 1, "FAIL step %d (move %s): the game is already terminal%s" % (
                t, desc, diverge(fluents, states, t))
        legal = facts(rels, ("legal", 2))
        for r in roles:
            if r not in moves:
                return 1, "FAIL step %d: no move for role %s%s" % (t, r, diverge(fluents, states, t))
            if (r, moves[r]) not in legal:
                return 1, "FAIL step %d (move %s): not legal (%d legal: %s)%s" % (
                    t, desc, sum(1 for l in legal if l[0] == r),
                    " ".join(show(l[1]) for l in sorted(legal, key=str) if l[0] == r)[:120],
                    diverge(fluents, states, t))
        state = {(f[0],) for f in facts(rels, ("next", 1))}
        states.append(state)
    rels = program.evaluate({("true", 1): state, ("does", 2): set()})
    if not facts(rels, ("terminal", 0)):
        return 1, "FAIL step %d: the game is not terminal at the model's terminal time %d%s" % (
            tt, tt, diverge(fluents, states, tt))
    late = sorted(t for t in plan if t >= tt)
    if late:
        return 1, "FAIL step %d: moves after the terminal time %d (at %s)" % (late[0], tt, span(late))
    goals = defaultdict(set)
    for r, v in facts(rels, ("goal", 2)):
        goals[r].add(v)
    got = []
    for r in roles:
        vals = goals.get(r, set())
        want = scores.get(r)
        if want is None:
            return 1, "FAIL step %d: the model has no Score for %s" % (tt, r)
        if vals != {str(want)}:
            return 1, "FAIL step %d: goal of %s is %s, the model's Score is %d%s" % (
                tt, r, "/".join(sorted(vals)) or "undefined", want, diverge(fluents, states, tt))
        got.append("%s %d" % (r, want))
    return 0, "OK %d moves, terminal at %d, goal %s%s" % (tt, tt, ", ".join(got), note)


def span(ts):
    ts = list(ts)
    if len(ts) > 2 and ts == list(range(ts[0], ts[-1] + 1)):
        return "%d..%d" % (ts[0], ts[-1])
    return ",".join(map(str, ts))


# A diagnosis, not part of the verdict: where the model's own fluents (the LTC predicate f(t, x)
# PlayID declares for each GDL fluent f) first differ from the replayed GDL state. A difference
# at time 0 means the translated initial state (I_f) is not GDL's `init`.

def model_fluents(program, rels0, interp, names):
    """GDL fluent name -> {time: set of state terms} as the model has them, for the fluents
    whose LTC predicate the model prints."""
    functors = set()
    for (f,) in facts(rels0, ("init", 1)):
        functors.add(f[0] if isinstance(f, tuple) else f)
    for r in program.by_head.get(("next", 1), []):
        h = r.head[1][0]
        if not is_var(h):
            functors.add(h[0] if isinstance(h, tuple) else h)
    out = {}
    for fn in functors:
        if fn not in interp or interp[fn] in ("true", "false"):
            continue
        times = defaultdict(set)
        try:
            for tup in tuples(interp[fn]):
                t = int(tup[0])
                args = tuple(names.term(parse_fo_term(a)) for a in tup[1:])
                times[t].add((fn,) + args if args else fn)
        except (ValueError, BadInput):
            continue
        out[fn] = times
    return out


def diverge(fluents, states, upto):
    """Where the model's fluents first differ from the GDL states 0..upto."""
    if not fluents:
        return ""
    for t in range(upto + 1):
        gdl = {s[0] for s in states[t]
               if (s[0][0] if isinstance(s[0], tuple) else s[0]) in fluents}
        mine = set().union(*(times.get(t, set()) for times in fluents.values()))
        extra, missing = sorted(mine - gdl, key=str), sorted(gdl - mine, key=str)
        if extra or missing:
            break
    else:
        return "; the model's states 0..%d are GDL's" % upto
    parts = []
    for word, atoms in (("has", extra), ("lacks", missing)):
        if atoms:
            parts.append("%s %s%s%s" % (word, "%d atoms: " % len(atoms) if len(atoms) > 6 else "",
                                        " ".join(show(x) for x in atoms[:6]),
                                        " ..." if len(atoms) > 6 else ""))
    return "; the model's state at %d %s" % (t, " and ".join(parts))


def main(argv):
    if len(argv) != 3:
        print("usage: gdl_check.py GAME.kif MODEL.txt", file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8", errors="replace") as f:
            kif = f.read()
        with open(argv[2], encoding="utf-8", errors="replace") as f:
            model = f.read()
        code, line = check(kif, model)
    except (OSError, BadInput) as e:
        code, line = 2, "BAD INPUT: %s" % e
    print(line)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
