# Shared set-up of the benchmarks (sourced by maze.sh, game.sh, theseus.sh, colourmaze.sh and
# overflow.sh).
#
# bench_idp             builds the release binary (unless NO_BUILD is set), makes $TMP (removed
#                       on exit) and a private copy of $IDP (a concurrent `cargo build` must not
#                       replace the binary mid-run).
# bench_setup FILE...   checks the files and /usr/bin/time, runs bench_idp and makes a clingo
#                       venv ($PY, $CLINGO_VERSION), for the side-by-side benchmarks.
# bench_header          prints the machine, the date and the idp commit.
# fastest CMD...        the fastest wall time of $RUNS runs in seconds (">$LIMIT" when a run
#                       times out; it is not repeated); the output of the last run is in $TMP/out.
# timed LABEL CMD...    one run under /usr/bin/time and timeout $LIMIT; output in $TMP/LABEL.out,
#                       sets SECS, MB and RC.

bench_idp() {
  if [ -z "${NO_BUILD:-}" ]; then
    cargo build --release --quiet || exit 1
  fi
  TMP=$(mktemp -d)
  trap 'rm -rf "$TMP"' EXIT
  cp "$IDP" "$TMP/idp" || exit 1
  IDP=$TMP/idp
}

bench_setup() {
  local f
  for f in "$@"; do
    [ -f "$f" ] || { echo "missing $f" >&2; exit 1; }
  done
  [ -x /usr/bin/time ] || { echo "needs /usr/bin/time" >&2; exit 1; }
  bench_idp
  echo "creating a venv in $TMP/venv and installing $CLINGO ..." >&2
  python3 -m venv "$TMP/venv" && "$TMP/venv/bin/pip" install --quiet "$CLINGO" >&2 || exit 1
  PY=$TMP/venv/bin/python
  CLINGO_VERSION=$("$PY" -m clingo --version | head -1)
}

bench_header() {
  echo "machine: $(nproc) cores, $(lscpu | grep 'Model name' | sed 's/Model name:[[:space:]]*//'); $(date -u)"
  echo "idp: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src specs || echo ' + uncommitted changes'); fastest of $RUNS run(s)"
}

fastest() {
  local i best="" t t0 rc
  for ((i = 1; i <= RUNS; i++)); do
    t0=$(date +%s%N)
    timeout "${LIMIT:-3600}" "$@" > "$TMP/out" 2>&1
    rc=$?
    t=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN{printf "%.3f", (b - a) / 1e9}')
    if [ $rc = 124 ]; then echo ">${LIMIT:-3600}"; return; fi
    [ $rc = 0 ] || { echo "failed: $*" >&2; cat "$TMP/out" >&2; }
    if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN{exit !(a < b)}'; then best=$t; fi
  done
  echo "$best"
}

timed() {
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$TMP/$label.time" timeout --kill-after=5 "$LIMIT" "$@" \
    > "$TMP/$label.out" 2> "$TMP/$label.err"
  RC=$?
  read -r SECS KB < <(tail -1 "$TMP/$label.time")
  MB=$(( KB / 1024 ))
}
