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
# file's path and content) and reused by later runs. Counts are also given for each folder
# directly under DIR (e.g. one folder per source of examples).
set -uo pipefail
DIR="$1"
IDP="$(realpath "${2:-target/release/idp}")"
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

# The verdict on file $1: "IDP-Z3 fails", "idp fails", "agree" or "differ".
verdict() {
    if ! run_engine "$1"; then
        echo "IDP-Z3 fails"; return
    fi
    if ! (cd "$(dirname "$1")" && timeout 30 "$IDP" "$(basename "$1")") > "$TMP/idp" 2> "$TMP/err"; then
        echo "idp fails"; return
    fi
    if python3 "$TMP/normal.py" "$TMP/z3" "$TMP/idp"; then echo "agree"; else echo "differ"; fi
}

# The folder directly under DIR that holds file $1 ("." for DIR itself, "docs" for DIR/docs).
group_of() {
    case "$1" in
        "$TMP/docs"/*) echo "docs"; return ;;
    esac
    local rest="${1#"$DIR"/}"
    [[ "$rest" == */* ]] && echo "${rest%%/*}" || echo "."
}

declare -A count
groups=()
while IFS= read -r -d '' f; do
    grep -q "procedure main" "$f" || continue
    v="$(verdict "$f")"
    g="$(group_of "$f")"
    [[ -z "${count[$g,total]:-}" ]] && groups+=("$g")
    for key in "all,total" "$g,total" "all,$v" "$g,$v"; do count[$key]=$(( ${count[$key]:-0} + 1 )); done
    if [[ ${VERBOSE:-0} = 1 ]]; then
        case "$v" in
            "idp fails") echo "idp fails: $f: $(head -c 300 "$TMP/err" | head -2)" ;;
            *) echo "$v: $f" ;;
        esac
    fi
done < <(find "$DIR" "$TMP/docs" -name '*.idp' -print0 | sort -z)

# One line of counts for group $1 (with label $2).
summary() {
    local total=${count[$1,total]:-0} z3=${count[$1,IDP-Z3 fails]:-0}
    echo "$2files with main: $total; IDP-Z3 runs: $((total - z3)); idp agrees: ${count[$1,agree]:-0}; differs: ${count[$1,differ]:-0}; idp fails: ${count[$1,idp fails]:-0}"
}
if (( ${#groups[@]} > 1 )); then
    for g in "${groups[@]}"; do summary "$g" "$g: "; done
fi
summary all ""
