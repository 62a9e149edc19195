#!/usr/bin/env bash
# Printing throughput (issue 49): all models of the seed's maze theory (specs/maze/construction.idp
# over an n x n grid, bench/search/gen.py maze) printed to a file with `idp -n 0`, against the
# same enumeration counted with `idp --count`; the difference is what deciding, decoding and
# printing the models costs, given as MB of text per CPU second.
#
# Usage: bench/print.sh [N...]      (default: 6 7; RUNS=5 runs each, the fastest CPU time kept)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
IDP=${IDP:-$TARGET/release/idp}
RUNS=${RUNS:-5}
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_idp
bench_header

# The least user+system CPU seconds of $RUNS runs of CMD (its stdout in $TMP/out).
cpu() {
  local i best="" t
  for ((i = 1; i <= RUNS; i++)); do
    python3 "$ROOT/bench/rusage.py" "$TMP/usage" "$@" > "$TMP/out" 2> /dev/null
    t=$(awk '{ printf "%.4f", $3 + $4 }' "$TMP/usage")
    if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN{exit !(a < b)}'; then best=$t; fi
  done
  echo "$best"
}

printf '%-24s %8s %10s %10s %10s %12s\n' "instance" "models" "count s" "print s" "MB" "MB/s printed"
for n in "${@:-6 7}"; do
  for size in $n; do
    python3 "$ROOT/bench/search/gen.py" maze "$size" "$TMP" > /dev/null || exit 1
    args=(--theory Tmaze --structure G "$TMP/maze$size.idp")
    counted=$(cpu "$IDP" --count "${args[@]}")
    models=$(sed -n 's/^Number of models: //p' "$TMP/out")
    printed=$(cpu "$IDP" -n 0 "${args[@]}")
    bytes=$(wc -c < "$TMP/out")
    awk -v n="maze ${size}x$size" -v m="$models" -v c="$counted" -v p="$printed" -v b="$bytes" \
      'BEGIN { mb = b / 1e6; d = p - c; printf "%-24s %8s %10.3f %10.3f %10.1f %12s\n", n, m, c, p, mb, (d > 0 ? sprintf("%.0f", mb / d) : "-") }'
  done
done
