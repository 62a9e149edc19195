# Shared set-up of the side-by-side benchmarks (sourced by maze.sh, game.sh, theseus.sh).
#
# bench_setup FILE...   checks the files and /usr/bin/time, builds the release binary (unless
#                       NO_BUILD is set), makes $TMP (removed on exit), a clingo venv ($PY,
#                       $CLINGO_VERSION) and a private copy of $IDP (a concurrent `cargo build`
#                       must not replace the binary mid-run).
# timed LABEL CMD...    one run under /usr/bin/time and timeout $LIMIT; output in $TMP/LABEL.out,
#                       sets SECS, MB and RC.

bench_setup() {
  local f
  for f in "$@"; do
    [ -f "$f" ] || { echo "missing $f" >&2; exit 1; }
  done
  [ -x /usr/bin/time ] || { echo "needs /usr/bin/time" >&2; exit 1; }
  if [ -z "${NO_BUILD:-}" ]; then
    cargo build --release --quiet || exit 1
  fi
  TMP=$(mktemp -d)
  trap 'rm -rf "$TMP"' EXIT
  echo "creating a venv in $TMP/venv and installing $CLINGO ..." >&2
  python3 -m venv "$TMP/venv" && "$TMP/venv/bin/pip" install --quiet "$CLINGO" >&2 || exit 1
  PY=$TMP/venv/bin/python
  cp "$IDP" "$TMP/idp" || exit 1
  IDP=$TMP/idp
  CLINGO_VERSION=$("$PY" -m clingo --version | head -1)
}

timed() {
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$TMP/$label.time" timeout --kill-after=5 "$LIMIT" "$@" \
    > "$TMP/$label.out" 2> "$TMP/$label.err"
  RC=$?
  read -r SECS KB < <(tail -1 "$TMP/$label.time")
  MB=$(( KB / 1024 ))
}
