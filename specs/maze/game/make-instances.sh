#!/usr/bin/env bash
# Regenerates the mk*.lp instances of the maze game from the construction spec
# (specs/maze/game/make-instance.idp: a maze of construction.idp, gates and keys placed by the
# theory Tplace, the optimum from game.idp's planner). Deterministic: the same calls give the
# same files. Usage: specs/maze/game/make-instances.sh [path/to/idp]
set -eu
cd "$(dirname "$0")/../../.."
IDP=${1:-${CARGO_TARGET_DIR:-target}/release/idp}
make() { # NAME N K SEED
  "$IDP" --nowarnings specs/maze/game/make-instance.idp \
    -e "generate_game($2, $3, $4, 'specs/maze/game/$1.lp')"
}
make mk01_9x9_k2 9 2 1
make mk02_9x9_k3 9 3 2
make mk03_11x11_k2 11 2 3
make mk04_11x11_k3 11 3 4
make mk05_13x13_k2 13 2 5
make mk06_13x13_k3 13 3 6
make mk07_15x15_k3 15 3 7
make mk08_15x15_k3 15 3 8
