#!/usr/bin/env bash
# CaDiCaL against splr on the same runs of `idp` (the --sat flag), one run each, 120 s limit.
# Prints one row per case: wall seconds and peak memory for both backends and the ratio.
# Usage: bench/sat-backends.sh            (builds the release binary first)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=$(mktemp -d)/idp
cp target/release/idp "$bin"   # a private copy: a concurrent build cannot swap it mid-run

cases=(
  "maze 11|specs/maze/construction.idp|search(11)"
  "maze 21|specs/maze/construction.idp|search(21)"
  "n-queens, all 92 models of 8x8|examples/nqueens.idp|stdoptions.nbmodels=0; print(#modelexpand(T, S))"
  "colour maze 6x6, 4 colours|specs/colourmaze/colourmaze.idp|solvefile('specs/colourmaze/instances/seed7-6x6c4.txt')"
  "Overflow 8x8, longest (maximise)|specs/overflow/overflow.idp|solvefile('specs/overflow/levels/random8x8.txt')"
  "Theseus th07 (time formulation, minimise)|specs/theseus/theseus.idp|solve_time('/work/shared/peers/instances/theseus/th07_8x8_maze.lp', 'minimize')"
)

measure() { # backend file chunk -> "seconds MB status"
  local out
  out=$( { /usr/bin/time -f "%e %M" timeout 120 "$bin" --sat "$1" "$2" -e "$3" >/dev/null 2>/tmp/sat-backends.err; } 2>&1 ) || true
  local line; line=$(tail -1 /tmp/sat-backends.err)
  if grep -q "Command terminated by signal\|status 124" /tmp/sat-backends.err; then echo ">120 - timeout"; return; fi
  line=$(grep -E '^[0-9.]+ [0-9]+$' /tmp/sat-backends.err | tail -1)
  read -r secs kb <<<"$line"
  echo "$secs $((kb / 1024)) ok"
}

echo "| case | CaDiCaL s | CaDiCaL MB | splr s | splr MB | splr / CaDiCaL |"
echo "|---|---|---|---|---|---|"
for c in "${cases[@]}"; do
  IFS='|' read -r name file chunk <<<"$c"
  read -r cs cm _ <<<"$(measure cadical "$file" "$chunk")"
  read -r ss sm _ <<<"$(measure splr "$file" "$chunk")"
  ratio=$(python3 -c "import sys; c,s=(float(x.lstrip('>')) for x in sys.argv[1:3]); print('%s%.1f' % ('>' if sys.argv[2].startswith('>') else '', s / max(c, 0.005)))" "$cs" "$ss")
  echo "| $name | $cs | $cm | $ss | $sm | $ratio |"
done
