#!/usr/bin/env bash
# Runs IDP-Z3 files that have a `main` block with idp and with IDP-Z3, and counts how many agree.
#
#   bench/idp_z3_examples.sh DIR [IDP] [IDP_ENGINE]
#
# DIR is a fetched copy of IDP-Z3 files (the project keeps no copy of others' files), e.g. the
# test folders of an IDP-Z3 checkout, or any folder of `.idp` files (searched recursively). Defaults: target/release/idp and /tmp/z3venv/bin/idp-engine
# (idp-engine 0.12.1 in a throwaway venv, see tests/idp_z3/record.sh). Each run has a 30 s limit.
# Outputs are compared as tests/idp_z3.rs compares them: the models of each model_expand as a
# set (only their number when IDP-Z3 stopped at `max`), the consequences of model_propagate as a
# set. Files IDP-Z3 itself cannot run (an error, a timeout) are counted apart. The whole programs
# among the code blocks of DIR/docs (IDP-Z3's documentation) are run as well. With VERBOSE=1 each
# file's verdict is printed. With Z3_CACHE=DIR, IDP-Z3's outputs are kept in DIR (keyed by the
# file's path and content) and reused by later runs.
set -uo pipefail
DIR="$1"
IDP="${2:-target/release/idp}"
ENGINE="${3:-/tmp/z3venv/bin/idp-engine}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

cat > "$TMP/normal.py" <<'PY'
import sys
def normal(text):
    lines = text.split("\n")
    pieces, k = [], 0
    while k < len(lines):
        if lines[k].startswith("Model ") and k + 1 < len(lines) and lines[k + 1] == "==========":
            body, k = [], k + 2
            while k < len(lines) and lines[k] != "":
                body.append(lines[k]); k += 1
            pieces.append(("M", "\n".join(body)))
        else:
            pieces.append(("L", lines[k])); k += 1
    stopped = "More models may be available" in text
    out, run = [], []
    def flush():
        if stopped and run:
            out.append(("N", str(len(run))))
        else:
            out.extend(sorted(run))
        run.clear()
    for p in pieces:
        if p[0] == "M":
            run.append(p)
        elif p[1] == "" and run:
            pass
        elif p[1] == "No more consequences.":
            start = max([i + 1 for i, q in enumerate(out) if q == ("L", "")] + [0])
            out[start:] = sorted(out[start:]); out.append(p)
        else:
            flush(); out.append(p)
    flush()
    return out
a, b = open(sys.argv[1]).read(), open(sys.argv[2]).read()
sys.exit(0 if normal(a) == normal(b) else 1)
PY

# IDP-Z3's output for file $1 into $TMP/z3 (from Z3_CACHE when it has it); fails when IDP-Z3 does.
run_engine() {
    local key=""
    if [[ -n "${Z3_CACHE:-}" ]]; then
        mkdir -p "$Z3_CACHE"
        key="$Z3_CACHE/$( (echo "$1"; cat "$1") | sha1sum | cut -c1-16)"
        if [[ -f "$key.ok" ]]; then cp "$key.ok" "$TMP/z3"; return 0; fi
        if [[ -f "$key.fail" ]]; then return 1; fi
    fi
    if (cd "$(dirname "$1")" && timeout 30 "$ENGINE" --no-timing "$(basename "$1")") > "$TMP/z3" 2>/dev/null; then
        [[ -n "$key" ]] && cp "$TMP/z3" "$key.ok"
        return 0
    fi
    [[ -n "$key" ]] && touch "$key.fail"
    return 1
}

# IDP-Z3's documented examples: the code blocks of DIR/docs (`.rst`, `.inc`) that are whole
# programs (a vocabulary, a theory and a main), each written to a file of its own and run too.
mkdir -p "$TMP/docs"
if [[ -d "$DIR/docs" ]]; then
    python3 - "$DIR/docs" "$TMP/docs" <<'PY2'
import os, re, sys
src, out = sys.argv[1], sys.argv[2]
for root, _, files in os.walk(src):
    for name in sorted(files):
        if not name.endswith((".rst", ".inc")):
            continue
        lines = open(os.path.join(root, name), encoding="utf-8").read().split("\n")
        k, found = 0, 0
        while k < len(lines):
            if re.match(r"\s*\.\. code(-block)?::", lines[k]) or lines[k].rstrip().endswith("::"):
                body, k = [], k + 1
                while k < len(lines) and (not lines[k].strip() or lines[k].startswith((" ", "\t"))):
                    body.append(lines[k]); k += 1
                text = "\n".join(body)
                if all(w in text for w in ("vocabulary", "theory", "procedure main")):
                    found += 1
                    indent = min(len(l) - len(l.lstrip()) for l in body if l.strip())
                    program = "\n".join(l[indent:] for l in body) + "\n"
                    with open(os.path.join(out, f"{name}_{found}.idp"), "w") as f:
                        f.write(program)
            else:
                k += 1
PY2
fi

total=0; z3_fails=0; agree=0; differ=0; idp_fails=0
while IFS= read -r -d '' f; do
    grep -q "procedure main" "$f" || continue
    total=$((total + 1))
    if ! run_engine "$f"; then
        z3_fails=$((z3_fails + 1)); [[ ${VERBOSE:-0} = 1 ]] && echo "IDP-Z3 fails: $f"; continue
    fi
    if ! (cd "$(dirname "$f")" && timeout 30 "$IDP" "$(basename "$f")") > "$TMP/idp" 2> "$TMP/err"; then
        idp_fails=$((idp_fails + 1))
        [[ ${VERBOSE:-0} = 1 ]] && echo "idp fails: $f: $(head -c 300 "$TMP/err" | head -2)"
        continue
    fi
    if python3 "$TMP/normal.py" "$TMP/z3" "$TMP/idp"; then
        agree=$((agree + 1)); [[ ${VERBOSE:-0} = 1 ]] && echo "agree: $f"
    else
        differ=$((differ + 1)); [[ ${VERBOSE:-0} = 1 ]] && echo "differ: $f"
    fi
done < <(find "$DIR" "$TMP/docs" -name '*.idp' -print0 | sort -z)
ran=$((total - z3_fails))
echo "files with main: $total; IDP-Z3 runs: $ran; idp agrees: $agree; differs: $differ; idp fails: $idp_fails"
