#!/usr/bin/env bash
# Builds the seed corpora of the text targets from the real .idp files: the IDP3 conformance
# tests (../shared/conformance/tests next to the repository), specs/, examples/ and
# tests/corpus. Files are named by content hash, so rerunning adds nothing twice.
# Usage (from the repository root or fuzz/): fuzz/seed_corpus.sh
set -euo pipefail
cd "$(dirname "$0")"
root=..
sources=("$root/../shared/conformance/tests" "$root/specs" "$root/examples" "$root/tests/corpus")
for target in parse_resolve mutate_idp grammar_diff; do
    mkdir -p "corpus/$target"
done
count=0
for dir in "${sources[@]}"; do
    [ -d "$dir" ] || { echo "skipping missing $dir" >&2; continue; }
    while IFS= read -r -d '' f; do
        # The fuzz targets skip `include "file"`: keep such seeds anyway, they still mutate.
        name=$(sha1sum "$f" | cut -c1-40)
        for target in parse_resolve mutate_idp grammar_diff; do
            cp "$f" "corpus/$target/$name"
        done
        count=$((count + 1))
    done < <(find "$dir" -name '*.idp' -size -64k -print0)
done
echo "seeded $count files into fuzz/corpus/{parse_resolve,mutate_idp,grammar_diff}"
