#!/bin/bash
# Explanation cost: each large unsatisfiable case run plainly (`idp -n 1`) and with
# `--explain`, printing wall and user seconds and the ratio of user times.
# Usage: bench/explain.sh [IDP]   (default target/release/idp)
set -u
cd "$(dirname "$0")/.."
IDP=${1:-target/release/idp}
run() { # prints "wall user" of one run
    /usr/bin/time -f "%e %U" -o /tmp/idp-explain-time "$IDP" "$@" > /dev/null 2>&1
    tail -n 1 /tmp/idp-explain-time
}
printf "%-12s %18s %18s %8s\n" case "plain wall/user s" "explain wall/user s" "ratio"
for case in "pigeonhole:bench/explain/pigeonhole.idp" "maze8:--theory Tmaze --structure S8 bench/explain/maze8.idp"; do
    name=${case%%:*}
    args=${case#*:}
    read -r pw pu < <(run -n 1 $args)
    read -r ew eu < <(run -n 1 --explain $args)
    printf "%-12s %8s/%-9s %8s/%-9s %8.1f\n" "$name" "$pw" "$pu" "$ew" "$eu" "$(echo "$eu / $pu" | bc -l)"
done
