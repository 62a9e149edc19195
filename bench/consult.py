#!/usr/bin/env python3
"""Replays random consultations through `idp consult` and prints the latency of each click.

A click is `assume` of a literal followed by `forced` (and `relevant`, as the workbench's page
asks it, when RELEVANT=1 is set); its time is the sum of the replies' "ms" (measured by idp
around each request, parsing and printing included). Each sequence
starts from no choice (`reset`) and chooses, until every atom is decided or STEPS choices were
made, a random atom among those still open (neither forced nor left undecided by the budget) and a
random value for it: both values are possible, so every choice is accepted (a refused one is
an error of idp's).

With CHOOSE=P,Q the choices are made on the atoms of symbols P and Q only; with NUMBERS=1 half
of them set a number (a function the search chooses as a number) to its value in a model.
With SETTLE=N (as the workbench's page does), a click whose answer left atoms undecided is
followed by up to N more `forced` requests, each going on where the last stopped, until all
is settled.

Usage: consult.py LABEL SEQUENCES STEPS SEED -- IDP_CONSULT_COMMAND...
Prints one line: LABEL, clicks, p50, p95, max (ms), clicks whose `forced` left atoms
undecided within its budget, open time (ms), atoms; with SETTLE, also the p50 and p95 of the
time until everything was settled (ms) and the clicks never settled within N rounds.
"""

import json
import os
import random
import subprocess
import sys


def main():
    label, sequences, steps, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    command = sys.argv[sys.argv.index("--") + 1:]
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(request):
        proc.stdin.write(json.dumps(request) + "\n")
        proc.stdin.flush()
        line = proc.stdout.readline()
        if not line:
            sys.exit(f"{label}: idp consult ended (exit {proc.wait()})")
        return json.loads(line)

    opened = json.loads(proc.stdout.readline())
    if not opened.get("ok"):
        sys.exit(f"{label}: {opened.get('error')}")
    atoms = ask({"op": "atoms"})["atoms"]
    given = ask({"op": "given"})
    fixed = set(given["true"]) | set(given["false"])
    choosable = [a for a in atoms if a not in fixed]
    only = os.environ.get("CHOOSE")
    if only:
        # Choices on the atoms of these symbols only (comma-separated names), as a user who
        # sets the input symbols would make them.
        names = tuple(n + "(" for n in only.split(","))
        choosable = [a for a in choosable if a.startswith(names)]
    # With NUMBERS=1 half the choices (while some are open) set a number (`Start(a)`, a
    # function the search chooses as a number) to its value in a model of the choices so far,
    # as a user who types a value that is still possible.
    numbers = []
    if os.environ.get("NUMBERS") == "1":
        rows = [r for s in ask({"op": "symbols"})["symbols"] for r in s.get("rows", [])]
        numbers = [r["number"] for r in rows if "number" in r]
    rng = random.Random(seed)
    clicks = []
    incomplete = 0
    settle_rounds = int(os.environ.get("SETTLE", "0"))
    settled, never = [], 0
    for _ in range(sequences):
        ask({"op": "reset"})
        forced = ask({"op": "forced"})
        if not forced.get("ok"):
            sys.exit(f"{label}: {forced.get('error')}")
        for _ in range(steps):
            decided = set(forced["true"]) | set(forced["false"]) | set(forced.get("undecided", []))
            open_atoms = [a for a in choosable if a not in decided]
            settled = {t.split(" = ")[0] for t in forced["true"] if " = " in t}
            open_numbers = [n for n in numbers if n not in settled]
            if open_numbers and (not open_atoms or rng.random() < 0.5):
                number = rng.choice(open_numbers)
                model = ask({"op": "model"})
                values = [t for t in model.get("true", []) if t.startswith(number + " = ")]
                if not values:
                    sys.exit(f"{label}: no value of {number} in a model: {model}")
                literal = values[0]
            elif open_atoms:
                atom = rng.choice(open_atoms)
                literal = atom if rng.random() < 0.5 else negate(atom)
            else:
                break
            assumed = ask({"op": "assume", "literal": literal})
            if not assumed.get("ok"):
                sys.exit(f"{label}: {literal} refused though open: {assumed}")
            forced = ask({"op": "forced"})
            if not forced.get("ok"):
                sys.exit(f"{label}: forced failed: {forced}")
            ms = assumed["ms"] + forced["ms"]
            if os.environ.get("RELEVANT") == "1":
                relevant = ask({"op": "relevant"})
                if not relevant.get("ok"):
                    sys.exit(f"{label}: relevant failed: {relevant}")
                ms += relevant["ms"]
            clicks.append(ms)
            incomplete += not forced["complete"]
            if settle_rounds:
                # As the workbench's page does: ask again until everything is settled.
                total, rounds = ms, 0
                while not forced["complete"] and rounds < settle_rounds:
                    forced = ask({"op": "forced"})
                    total += forced["ms"]
                    rounds += 1
                if forced["complete"]:
                    settled.append(total)
                else:
                    never += 1
    ask({"op": "quit"})
    proc.wait()
    clicks.sort()
    if not clicks:
        print(f"{label}\t0\t-\t-\t-\t0\t{opened['ms']:.0f}\t{len(choosable)}"
              "\t(nothing open: the choices are all decided without any)")
        return

    def pct(p):
        return clicks[min(len(clicks) - 1, int(p * len(clicks)))]
    line = (f"{label}\t{len(clicks)}\t{pct(0.5):.1f}\t{pct(0.95):.1f}\t{clicks[-1]:.1f}\t"
            f"{incomplete}\t{opened['ms']:.0f}\t{len(choosable)}")
    if settle_rounds:
        settled.sort()
        if settled:
            p50 = settled[int(0.5 * len(settled))]
            p95 = settled[min(len(settled) - 1, int(0.95 * len(settled)))]
            line += f"\t{p50:.1f}\t{p95:.1f}\t{never}"
        else:
            line += f"\t-\t-\t{never}"
    print(line)


def negate(atom):
    """The literal that makes `atom` false: ~P(a), or f(a) ~= v for a function's value."""
    if " = " in atom:
        return atom.replace(" = ", " ~= ", 1)
    return "~" + atom


if __name__ == "__main__":
    main()
