#!/usr/bin/env bash
# Records the expected output of each FO(·) file here from IDP-Z3 itself:
#   python3 -m venv /tmp/z3venv && /tmp/z3venv/bin/pip install idp-engine==0.12.1 z3-solver==4.11.2.0
#   tests/idp_z3/record.sh [/tmp/z3venv/bin/idp-engine]
# Each FILE.idp gets FILE.expected: stdout of `idp-engine --no-timing FILE.idp` (the version the
# peers' benchmark uses, ../shared/peers). tests/idp_z3.rs compares idp's output with it.
set -euo pipefail
cd "$(dirname "$0")"
ENGINE="${1:-/tmp/z3venv/bin/idp-engine}"
for f in *.idp; do
    if ! "$ENGINE" --no-timing "$f" > "${f%.idp}.expected" 2> /tmp/record_err.txt; then
        echo "idp-engine failed on $f:"; tail -3 /tmp/record_err.txt
    fi
done
