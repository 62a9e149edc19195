#!/usr/bin/env bash
# Remakes the pictures in docs/visual: each puzzle's SVG written by its spec (visualize), then
# a PNG of it with rsvg-convert (Debian's librsvg2-bin). Run from anywhere; the optional
# argument is the idp binary (default: target/release/idp of this checkout).
set -eu
cd "$(dirname "$0")/../.."
IDP=${1:-target/release/idp}
D=docs/visual
run() { # SPEC CHUNK
  "$IDP" --nowarnings "$1" -e "$2" >/dev/null
}
# Maze construction: the seed's 5 x 5 maze, and generated mazes of seeds 1 and 7.
run specs/maze/construction.idp "visualize(onemodel(Tmaze, S), { svg = '$D/maze.svg', quiet = true })"
run specs/maze/construction.idp "draw(11, '$D/maze11.svg', 1)"
run specs/maze/construction.idp "draw(21, '$D/maze21.svg', 7)"
# The maze game: a shortest plan, a board per step up to the exit; gates red, keys orange.
run specs/maze/game.idp "picture('specs/maze/game/wrongkey.txt', '$D/game.svg')"
# Theseus and the Minotaur: seed 002's example, a board per step.
run specs/theseus/theseus.idp "picture(Example, '$D/theseus.svg')"
# The colour maze: the path over the painted cells.
run specs/colourmaze/colourmaze.idp "picture('specs/colourmaze/instances/seed7-6x6c4.txt', '$D/colourmaze.svg')"
# Overflow: every tile's pipes in its rotation, the water in blue.
run specs/overflow/overflow.idp "picture('specs/overflow/levels/small4x5.txt', '$D/overflow.svg')"
run specs/overflow/overflow.idp "picture('specs/overflow/levels/twooceans.txt', '$D/overflow-twooceans.svg')"
run specs/overflow/overflow.idp "picture('specs/overflow/levels/random8x8.txt', '$D/overflow8x8.svg')"
# A function grid: N-queens' Queen(Index) : Index, drawn by --visualize.
"$IDP" --nowarnings -n 1 "--visualize=svg:$D/nqueens.svg" examples/nqueens.idp >/dev/null || [ $? = 10 ]
# Twice the SVG's size, except the game's 25 boards.
for svg in "$D"/*.svg; do
  zoom=2
  [ "$svg" = "$D/game.svg" ] && zoom=1
  rsvg-convert -z "$zoom" "$svg" -o "${svg%.svg}.png"
done
ls "$D"
