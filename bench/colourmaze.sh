#!/usr/bin/env bash
# Colour maze benchmark (seed 003): idp on puzzles of the sizes the seed measured, against the
# seed's published times (its Tables I and II; DOCPLEX CP Optimizer and SICStus Prolog, on the
# authors' machine, 2024; their grids are shown only as pictures, so the puzzles here are of the
# same size and number of colours, not the same grids).
#
# Usage:  bench/colourmaze.sh
# Environment:
#   RUNS=3        runs per measurement; the table shows the fastest
#   SEEDS="1 2 3 4 5"   random seeds for the generator (one generated puzzle per seed)
#   NO_BUILD=1    do not run `cargo build --release` first
#   CARGO_TARGET_DIR  where the binary is (default target)
#
# Solving: `solvefile` on specs/colourmaze/instances/seedI-*.txt, i.e. one path plus the
# uniqueness check (a second model is looked for), which is more than the seed's solvers did;
# "wall" is the whole process (start, parse, ground, solve, print), "in-process" the CPU time of
# the search alone (20 solves in one run, averaged), which is what the seed's times measure.
# Generating: `generate(n, k, seed)`, one puzzle with exactly one solution per run, for every
# seed in SEEDS; the table shows the mean and the largest wall time over the seeds, and the CPU
# time per puzzle of generating them all in one run ("in-process").
# tests/colourmaze.rs checks the answers (paths by a rule checker, uniqueness by enumeration).
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
RUNS=${RUNS:-3}
SEEDS=${SEEDS:-1 2 3 4 5}
SPEC=specs/colourmaze/colourmaze.idp
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}

IDP=$TARGET/release/idp
source bench/common.sh
bench_idp

ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b < 0.0001) b = 0.0001; printf "%.0f", a / b }'; }

bench_header
echo
echo "Solving (seed's Table I; idp: one path + uniqueness check)"
echo
echo "| maze | size | colours | unique | idp wall s | idp in-process s | Prolog s | DOCPLEX s | DOCPLEX / idp wall | DOCPLEX / idp in-process |"
echo "|---|---|---|---|---|---|---|---|---|---|"
PROLOG=(0.15 0.07 3.75 14.45 10.78 3.85 "?")
DOCPLEX=(0.09 0.09 0.11 0.11 0.15 0.08 1.9)
for i in 1 2 3 4 5 6 7; do
  f=$(ls specs/colourmaze/instances/seed$i-*.txt)
  name=$(basename "$f" .txt)
  size=${name#*-}; size=${size%c*}; colours=${name##*c}
  t=$(fastest "$IDP" "$SPEC" -e "solvefile('$f')")
  unique=$(grep -o 'Unique: [a-z]*' "$TMP/out" | cut -d' ' -f2)
  # In-process: the CPU time of 20 solves (with the uniqueness check) inside one run, averaged;
  # no process start, parsing or printing, as the seed timed inside its Python program.
  inproc=$("$IDP" "$SPEC" -e "local rows, k = readpuzzle('$f'); local t = os.clock(); for i = 1, 20 do solutions(rows, k, 2) end; print(string.format('%.4f', (os.clock() - t) / 20))")
  d=${DOCPLEX[$((i-1))]}
  echo "| $i | $size | $colours | $unique | $t | $inproc | ${PROLOG[$((i-1))]} | $d | $(ratio "$d" "$t") | $(ratio "$d" "$inproc") |"
done
echo
echo "Generating one puzzle with exactly one solution (seed's Table II; idp: mean and max over seeds $SEEDS)"
echo
echo "| maze | size | colours | idp mean s | idp max s | idp in-process s | solver calls (mean) | Prolog s | DOCPLEX s | DOCPLEX / idp mean | DOCPLEX / idp in-process |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
GEN=("4 2 2.18 4.82" "4 3 20.67 0.67" "4 4 23.59 1.01" "5 2 512.53 31.1")
for i in 1 2 3 4; do
  read -r n k prolog docplex <<< "${GEN[$((i-1))]}"
  sum=0; max=0; calls=0; count=0
  for s in $SEEDS; do
    t=$(fastest "$IDP" "$SPEC" -e "generate($n, $k, $s)")
    c=$(grep -o '[0-9]* solver calls' "$TMP/out" | cut -d' ' -f1)
    sum=$(awk -v a="$sum" -v b="$t" 'BEGIN{print a + b}')
    max=$(awk -v a="$max" -v b="$t" 'BEGIN{print (b > a) ? b : a}')
    calls=$((calls + c)); count=$((count + 1))
  done
  mean=$(awk -v a="$sum" -v n="$count" 'BEGIN{printf "%.3f", a / n}')
  # In-process: the CPU time of generating the same puzzles in one run, per puzzle.
  inproc=$("$IDP" "$SPEC" -e "local t = os.clock(); for _, s in ipairs({ $(echo $SEEDS | tr ' ' ',') }) do generate($n, $k, s) end; print(string.format('%.4f', (os.clock() - t) / $count))" | tail -1)
  echo "| $i | ${n}x$n | $k | $mean | $max | $inproc | $((calls / count)) | $prolog | $docplex | $(ratio "$docplex" "$mean") | $(ratio "$docplex" "$inproc") |"
done
