#!/usr/bin/env bash
# Numbers as numbers (issue 48): job-shop scheduling with start times over 0..10000, the least
# makespan proved, idp (bench/arith/jobshop.idp, IDP3 syntax, `Start(Job, Step) : int`) against
# clingo-dl (bench/arith/jobshop.lp, difference constraints; bench/arith/dl_minimize.py
# minimises the makespan as clingo-dl's own --minimize-variable does) on the same random
# instances, side by side in one run. Both optima must agree.
#
# Usage:  bench/arith.sh
# Environment:
#   LIMIT=120           seconds per run
#   RUNS=1              runs per measurement (the fastest counts)
#   SHOPS="3:3 4:4 5:5 6:6 8:8 10:10"   jobs:machines of the random instances (durations 1..99, seeded)
#   CLINGO=clingo==5.8.3  CLINGODL=clingo-dl==1.5.0.post1   pip requirements
set -u
cd "$(dirname "$0")/.."
LIMIT=${LIMIT:-120}
RUNS=${RUNS:-1}
SHOPS=${SHOPS:-"3:3 4:4 5:5 6:6 8:8 10:10"}
CLINGO=${CLINGO:-clingo==5.8.3}
CLINGODL=${CLINGODL:-clingo-dl==1.5.0.post1}
IDP=${IDP:-target/release/idp}
. bench/common.sh
bench_setup bench/arith/jobshop.idp bench/arith/jobshop.lp
"$TMP/venv/bin/pip" install --quiet "$CLINGODL" >&2 || exit 1
bench_header
echo "clingo-dl: $("$PY" -m clingodl --version | head -1)"

# A random shop: every job visits every machine once, in a random order.
shop() {
  python3 - "$1" "$2" "$3" <<'PY'
import random, sys
jobs, machines, form = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(jobs * 1000 + machines)
steps = []
for j in range(jobs):
    order = list(range(machines))
    rng.shuffle(order)
    for s, m in enumerate(order):
        steps.append((j, s, m, rng.randint(1, 99)))
if form == "idp":
    print("structure S : V {")
    print(f"  Job = {{ 0..{jobs - 1} }}\n  Step = {{ 0..{machines - 1} }}\n  Machine = {{ 0..{machines - 1} }}")
    print("  Mach = {", "; ".join(f"{j},{s}->{m}" for j, s, m, _ in steps), "}")
    print("  Dur = {", "; ".join(f"{j},{s}->{d}" for j, s, _, d in steps), "}")
    print("}")
    print("procedure main() { local _, _, v = minimize(T, S, M) print(v) }")
else:
    for j, s, m, d in steps:
        print(f"step({j},{s},{m},{d}).")
PY
}

printf '%-8s %10s %10s %8s %10s %10s\n' shop idp_s clingo-dl_s ratio idp_opt dl_opt
for js in $SHOPS; do
  j=${js%:*}; m=${js#*:}
  shop "$j" "$m" idp > "$TMP/inst.idp"
  shop "$j" "$m" lp > "$TMP/inst.lp"
  idp_s=$(fastest "$IDP" bench/arith/jobshop.idp "$TMP/inst.idp")
  idp_opt=$(tail -1 "$TMP/out")
  dl_s=$(fastest "$PY" bench/arith/dl_minimize.py bench/arith/jobshop.lp "$TMP/inst.lp")
  dl_opt=$(tail -1 "$TMP/out")
  ratio=$(awk -v a="$idp_s" -v b="$dl_s" 'BEGIN{ if (a+0 > 0 && b+0 > 0) printf "%.2fx", a / b; else print "-" }')
  printf '%-8s %10s %10s %8s %10s %10s\n' "${j}x${m}" "$idp_s" "$dl_s" "$ratio" "$idp_opt" "${dl_opt:-?}"
done
