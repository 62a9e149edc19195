#!/usr/bin/env bash
# Numbers as numbers (issue 48): job-shop scheduling with start times over 0..10000, the least
# makespan proved, idp (bench/arith/jobshop.idp, IDP3 syntax, `Start(Job, Step) : int`) against
# clingo-dl (bench/arith/jobshop.lp, difference constraints; bench/arith/dl_minimize.py
# minimises the makespan as clingo-dl's own --minimize-variable does) on the same random
# instances, side by side in one run. Both optima must agree.
#
# Then sums over wide ranges (issue 48): five siblings' ages in 0..LIMIT with a fixed total
# and the eldest's least age, idp (bench/arith/ages.idp, `Age(Person) : int`) against clingcon
# (bench/arith/ages.lp, clingo with integer variables: `&dom`, `&sum`, `&minimize`), for
# limits of 100, 10 000 and 10^6. Both optima must agree.
#
# Then a linear program over the reals (issue 48): random diets (foods with decimal costs and
# nutrient contents, the cheapest amounts that meet every requirement), the same FO(·) file
# run by idp and by idp-engine (IDP-Z3 0.12.1 on Z3, in its own venv); both optima must agree.
#
# Usage:  bench/arith.sh
# Environment:
#   DIETS="10:3 40:6 100:10 300:20"  foods:nutrients of the random diets ("" skips them)
#   ENGINE=...          an idp-engine to use (default: installed into the bench's venv)
#   LIMIT=120           seconds per run
#   RUNS=1              runs per measurement (the fastest counts)
#   SHOPS="3:3 4:4 5:5 6:6 8:8 10:10"   jobs:machines of the random instances (durations 1..99, seeded)
#   AGES="100 10000 1000000"   the ranges of the ages ("" skips them)
#   CLINGCON=clingcon==5.2.1   pip requirement
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
bench_setup bench/arith/jobshop.idp bench/arith/jobshop.lp bench/arith/ages.idp bench/arith/ages.lp
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

AGES=${AGES-"100 10000 1000000"}
if [ -n "$AGES" ]; then
  "$TMP/venv/bin/pip" install --quiet "${CLINGCON:-clingcon==5.2.1}" >&2 || exit 1
  echo
  printf '%-8s %10s %10s %8s %10s %10s\n' limit idp_s clingcon_s ratio idp_opt cc_opt
  for limit in $AGES; do
    total=$((2 * limit + 7))
    printf 'structure S : V {\n  Person = { 1..5 }\n  Limit = %s\n  Total = %s\n}\n' "$limit" "$total" > "$TMP/ages.idp"
    echo 'procedure main() { local _, _, v = minimize(T, S, Eldest) print(v) }' >> "$TMP/ages.idp"
    idp_s=$(fastest "$IDP" bench/arith/ages.idp "$TMP/ages.idp")
    idp_opt=$(tail -1 "$TMP/out")
    # clingcon exits 30 when it proves an optimum (clingo's convention): success here.
    cc_s=$(fastest sh -c '"$0" -m clingcon --quiet=1 "$@"; [ $? = 30 ]' "$PY" \
      bench/arith/ages.lp -c "limit=$limit" -c "total=$total")
    cc_opt=$(grep -o 'age(1)=[0-9]*' "$TMP/out" | tail -1 | cut -d= -f2)
    ratio=$(awk -v a="$idp_s" -v b="$cc_s" 'BEGIN{ if (a+0 > 0 && b+0 > 0) printf "%.2fx", a / b; else print "-" }')
    printf '%-8s %10s %10s %8s %10s %10s\n' "$limit" "$idp_s" "$cc_s" "$ratio" "$idp_opt" "${cc_opt:-?}"
  done
fi

DIETS=${DIETS-"10:3 40:6 100:10 300:20"}
[ -z "$DIETS" ] && exit 0
ENGINE=${ENGINE:-}
if [ -z "$ENGINE" ]; then
  "$TMP/venv/bin/pip" install --quiet idp-engine==0.12.1 z3-solver==4.11.2.0 >&2 || exit 1
  ENGINE=$TMP/venv/bin/idp-engine
fi

# A random diet in IDP-Z3's FO(·): amounts per food, every nutrient's requirement met.
diet() {
  python3 - "$1" "$2" <<'PY'
import random, sys
foods, nutrients = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(foods * 100 + nutrients)
fs = [f"f{i}" for i in range(foods)]
ns = [f"n{i}" for i in range(nutrients)]
print("vocabulary V {")
print(f"    type Food := {{{', '.join(fs)}}}")
print(f"    type Nutrient := {{{', '.join(ns)}}}")
print("    cost: Food -> Real\n    content: Food * Nutrient -> Real\n    need: Nutrient -> Real")
print("    amount: Food -> Real\n    total: () -> Real\n}")
print("theory T:V {\n    !f in Food: 0 =< amount(f) =< 10.")
print("    !n in Nutrient: sum{{ (content(f, n) * amount(f)) | f in Food }} >= need(n).")
print("    total() = sum{{ (cost(f) * amount(f)) | f in Food }}.\n}")
print("structure S:V {")
print("    cost := {" + ", ".join(f"{f} -> {rng.randint(100, 999) / 100}" for f in fs) + "}.")
print("    content := {" + ", ".join(f"({f}, {n}) -> {rng.randint(0, 200) / 10}" for f in fs for n in ns) + "}.")
print("    need := {" + ", ".join(f"{n} -> {rng.randint(50, 200)}" for n in ns) + "}.\n}")
print('procedure main() {\n    pretty_print(minimize(T, S, term="total()"))\n}')
PY
}

echo
printf '%-8s %10s %10s %8s %14s %14s\n' diet idp_s engine_s ratio idp_total engine_total
for fn in $DIETS; do
  f=${fn%:*}; n=${fn#*:}
  diet "$f" "$n" > "$TMP/diet.idp"
  idp_s=$(fastest "$IDP" "$TMP/diet.idp")
  idp_total=$(grep '^total := ' "$TMP/out" | cut -d' ' -f3)
  engine_s=$(fastest "$ENGINE" --no-timing "$TMP/diet.idp")
  engine_total=$(grep '^total := ' "$TMP/out" | cut -d' ' -f3)
  ratio=$(awk -v a="$idp_s" -v b="$engine_s" 'BEGIN{ if (a+0 > 0 && b+0 > 0) printf "%.3fx", a / b; else print "-" }')
  printf '%-8s %10s %10s %8s %14s %14s\n' "${f}x${n}" "$idp_s" "$engine_s" "$ratio" "${idp_total:-?}" "${engine_total:-?}"
done
