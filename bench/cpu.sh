# CPU-time helpers of the side-by-side benchmarks (sourced by generic.sh and search.sh, after
# common.sh's bench_setup): every run under bench/rusage.py and timeout $LIMIT, CPU seconds
# (user + system, to the millisecond: GNU time's hundredths are too coarse for the rows that
# take a few hundredths) as the measure, wall seconds shown beside them.

# timed LABEL CMD...: one run; sets SECS (CPU), WALL, MB, RC (output in $TMP/LABEL.out)
timed() {
  local label=$1; shift
  python3 "$(dirname "${BASH_SOURCE[0]}")/rusage.py" "$TMP/$label.time" \
    timeout --kill-after=5 "$LIMIT" "$@" > "$TMP/$label.out" 2> "$TMP/$label.err"
  RC=$?
  local kb user sys
  read -r WALL kb user sys < <(tail -1 "$TMP/$label.time")
  MB=$(( kb / 1024 ))
  SECS=$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.3f", u + s}')
}

# best LABEL CMD...: the fastest of $RUNS timed runs; sets SECS, WALL, MB, RC (output in
# $TMP/LABEL.out); SECS is ">LIMIT" after a timeout.
best() {
  local label=$1; shift
  local i s="" w="" m="" rc=0
  for ((i = 1; i <= RUNS; i++)); do
    timed "$label" "$@"
    if [ "$RC" = 124 ] || [ "$RC" = 137 ]; then SECS=">$LIMIT"; WALL=">$LIMIT"; return; fi
    if [ -z "$s" ] || awk -v a="$SECS" -v b="$s" 'BEGIN{exit !(a < b)}'; then
      s=$SECS; w=$WALL; m=$MB; rc=$RC
    fi
  done
  SECS=$s; WALL=$w; MB=$m; RC=$rc
}

# shown: "CPU (wall)" of the last best run
shown() { if [[ $SECS == ">"* ]]; then echo "$SECS"; else echo "$SECS ($WALL)"; fi; }

# ratio A B: A / B with two decimals, or "-" when either timed out
ratio() {
  case "$1$2" in *">"*) echo "-" ;; *) awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a / (b > 0 ? b : 0.001)}' ;; esac
}

# total FILE COLUMN: the sum of a column of times (">" entries counted at the limit)
sum_times() { awk -v lim="$LIMIT" '{ v = $1; if (v ~ />/) v = lim; s += v } END { printf "%.3f", s }'; }

