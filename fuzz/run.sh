#!/usr/bin/env bash
# Builds and runs one fuzz target for a while, one job, and records the figures.
# Usage: fuzz/run.sh TARGET SECONDS [extra libFuzzer flags...]
#   fuzz/run.sh parse_resolve 3000 -max_len=512
#   fuzz/run.sh mutate_idp 900 -max_len=8192
#   fuzz/run.sh pipeline 1500
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`). The text targets
# start from the corpus built by fuzz/seed_corpus.sh. The log goes to fuzz/logs/; a summary
# line (date, target, seconds, executions, corpus files, coverage) is appended to fuzz/runs.tsv.
set -euo pipefail
cd "$(dirname "$0")"
target=$1
seconds=$2
shift 2
mkdir -p "corpus/$target" "artifacts/$target" logs
cargo +nightly fuzz build --sanitizer none --debug-assertions "$target"
log="logs/$target-$(date -u +%Y%m%dT%H%M%S).log"
status=0
started=$SECONDS
cargo +nightly fuzz run --sanitizer none --debug-assertions "$target" -- \
    -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 "$@" \
    >"$log" 2>&1 || status=$?
elapsed=$((SECONDS - started))
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
files=$(find "corpus/$target" -type f | wc -l)
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n' "$(date -u +%FT%TZ)" "$target" "$elapsed" \
    "${runs:-?}" "$files" "${cov:-?}" "$status" >>runs.tsv
echo "$target: ${runs:-?} executions in ${elapsed}s, corpus $files files, cov ${cov:-?}, exit $status (log $log)"
exit "$status"
