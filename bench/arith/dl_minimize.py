"""The least value of the difference-logic variable `makespan` with clingo-dl, as its own
minimisation does it: solve, then ask again with the bound one below the last model's value
(a program part grounded per bound), until no model. Prints the optimum (or `none`).

Usage: python dl_minimize.py FILE...   (clingo and clingo-dl installed)
"""
import sys

import clingo
import clingodl
from clingo import ast


def main():
    theory = clingodl.ClingoDLTheory()
    ctl = clingo.Control(["--warn=none"])
    theory.register(ctl)
    with ast.ProgramBuilder(ctl) as builder:
        ast.parse_files(sys.argv[1:], lambda stm: theory.rewrite_ast(stm, builder.add))
        ast.parse_string(
            "#program bound(b). &diff { makespan - 0 } <= b.",
            lambda stm: theory.rewrite_ast(stm, builder.add),
        )
    ctl.ground([("base", [])])
    theory.prepare(ctl)
    best = None
    while True:
        found = []

        def on_model(model):
            theory.on_model(model)
            for name, value in theory.assignment(model.thread_id):
                if str(name) == "makespan":
                    found.append(int(value))

        if not ctl.solve(on_model=on_model).satisfiable:
            break
        best = found[-1]
        ctl.ground([("bound", [clingo.Number(best - 1)])])
        theory.prepare(ctl)
    print(best if best is not None else "none")


main()
