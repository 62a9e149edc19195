#!/usr/bin/env python3
"""The same random consultations as bench/consult.py, on idp-engine (IDP-Z3's engine, the one
its Interactive Consultant runs): each click is `Theory.assert_(atom, value)` then
`Theory.propagate()`, timed together in milliseconds.

Usage: consult_idp_engine.py LABEL SEQUENCES STEPS SEED FILE
(run with the python of a venv that has idp-engine 0.12.1). Prints one line: LABEL, clicks,
p50, p95, max (ms), open time (ms), atoms. A choice gives a predicate's atom true or false, or
a function's application one of its possible values, among those still open.
"""

import random
import sys
import time

from idp_engine import IDP, Theory
from idp_engine.Assignments import Status as S


def main():
    label, sequences, steps, seed, path = (sys.argv[1], int(sys.argv[2]), int(sys.argv[3]),
                                           int(sys.argv[4]), sys.argv[5])
    kb = IDP.from_str(open(path).read())
    started = time.perf_counter()
    T, S_ = kb.get_blocks("T, S")
    theory = Theory(T, S_)
    theory.propagate()
    opened = (time.perf_counter() - started) * 1000
    # The atoms of the vocabulary's symbols without a value yet: a predicate's are asserted
    # true or false, a function's `f(a)` is given one of the values of its range that is
    # still possible (as the consultant's drop-down offers them).
    atoms = [code for code, a in theory.assignments.items()
             if a.symbol_decl is not None and a.value is None]
    rng = random.Random(seed)
    clicks = []
    for _ in range(sequences):
        for code in list(theory.assignments):
            if theory.assignments[code].status == S.GIVEN:
                theory.assert_(code, None)
        theory.propagate()
        for _ in range(steps):
            open_atoms = [c for c in atoms if theory.assignments[c].value is None]
            if not open_atoms:
                break
            code = rng.choice(open_atoms)
            a = theory.assignments[code]
            if str(a.sentence.type) == "𝔹":
                value = rng.random() < 0.5
            else:
                value = rng.choice(theory.get_range(code))
            t0 = time.perf_counter()
            theory.assert_(code, value)
            theory.propagate()
            clicks.append((time.perf_counter() - t0) * 1000)
    clicks.sort()

    def pct(p):
        return clicks[min(len(clicks) - 1, int(p * len(clicks)))]
    print(f"{label}\t{len(clicks)}\t{pct(0.5):.1f}\t{pct(0.95):.1f}\t{clicks[-1]:.1f}\t-\t"
          f"{opened:.0f}\t{len(atoms)}")


if __name__ == "__main__":
    main()
