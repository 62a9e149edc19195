#!/usr/bin/env bash
# idp against IDP-Z3 on the peers' IDP-Z3 encodings (../shared/peers/instances/idp), side by side
# in one run: wall seconds of each (one run each, 60 s timeout), and the answer (the optimum for
# Theseus, checked against the breadth-first optimum; a maze checked by the peers' checker).
#
#   bench/idp_z3.sh [IDP] [IDP_ENGINE]
#   defaults: target/release/idp, /tmp/z3venv/bin/idp-engine (idp-engine 0.12.1:
#   python3 -m venv /tmp/z3venv && /tmp/z3venv/bin/pip install idp-engine==0.12.1 z3-solver==4.11.2.0)
# Environment: MAZES="5 9 13 17 21 25", THESEUS="example th01_4x4_rand ..." choose instances.
set -uo pipefail
IDP="${1:-target/release/idp}"
ENGINE="${2:-/tmp/z3venv/bin/idp-engine}"
PEERS="$(cd "$(dirname "$0")/../../shared/peers" && pwd)"
TMP="$(mktemp -d)"
MAZES="${MAZES:-5 9 13 17 21 25}"
THESEUS="${THESEUS:-example th01_4x4_rand th02_5x5_rand th03_6x6_rand th04_6x6_maze th05_7x7_rand th06_8x8_rand th07_8x8_maze th09_10x10_rand th11_11x11_rand}"

# seconds of one run of "$@" with a 60 s limit, or TO; the output goes to $TMP/out
timed() {
    local start end
    start=$(date +%s.%N)
    if timeout 60 "$@" > "$TMP/out" 2>&1; then
        end=$(date +%s.%N)
        echo "$end - $start" | bc | xargs printf '%.2f'
    else
        echo TO
    fi
}

ratio() { if [[ $1 == TO || $2 == TO ]]; then echo "-"; else echo "$2 / $1" | bc -l | xargs printf '%.0fx'; fi; }

echo "| instance | idp s | idp answer | IDP-Z3 s | IDP-Z3 answer | IDP-Z3 / idp |"
echo "|---|---|---|---|---|---|"
for n in $MAZES; do
    f="$PEERS/instances/idp/maze/maze_$n.idp"
    a=$(timed "$IDP" "$f"); av=$(python3 "$PEERS/tools/maze_check.py" "$n" "$TMP/out" 2>&1 | tail -1 | cut -d' ' -f1)
    b=$(timed "$ENGINE" --no-timing "$f"); bv=$(python3 "$PEERS/tools/maze_check.py" "$n" "$TMP/out" 2>&1 | tail -1 | cut -d' ' -f1)
    [[ $b == TO ]] && bv="-"
    echo "| maze $n | $a | $av | $b | $bv | $(ratio "$a" "$b") |"
done
for name in $THESEUS; do
    f="$PEERS/instances/idp/theseus/$name.idp"
    opt=$(grep "^$name," "$PEERS/instances/theseus/index.csv" | cut -d, -f7)
    a=$(timed "$IDP" "$f"); av=$(grep -o 'goalTime := [0-9]*' "$TMP/out" | grep -o '[0-9]*$')
    b=$(timed "$ENGINE" --no-timing "$f"); bv=$(grep -o 'goalTime := [0-9]*' "$TMP/out" | grep -o '[0-9]*$')
    [[ $b == TO ]] && bv="-"
    echo "| $name (opt $opt) | $a | ${av:-?} | $b | ${bv:-?} | $(ratio "$a" "$b") |"
done
rm -rf "$TMP"
