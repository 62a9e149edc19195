"""Compares per-category conformance pass counts with the recorded baseline.

usage: ratchet.py BASELINE.tsv RESULTS.json [--update]
"""
import collections
import json
import sys


def counts(results_path):
    with open(results_path, encoding="utf-8") as f:
        data = json.load(f)
    tests = data["results"]
    passed = collections.Counter()
    total = collections.Counter()
    for t in tests:
        total[t["category"]] += 1
        if t["passed"]:
            passed[t["category"]] += 1
    return passed, total


def read_baseline(path):
    base = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    cat, n = line.split()[:2]
                    base[cat] = int(n)
    except FileNotFoundError:
        pass
    return base


def main():
    baseline_path, results_path = sys.argv[1], sys.argv[2]
    update = len(sys.argv) > 3 and sys.argv[3] == "--update"
    passed, total = counts(results_path)
    base = read_baseline(baseline_path)
    if update:
        with open(baseline_path, "w", encoding="utf-8") as f:
            f.write("# category\tpassed\ttotal (conformance ratchet; only ever raise these)\n")
            for cat in sorted(total):
                f.write(f"{cat}\t{passed[cat]}\t{total[cat]}\n")
        print(f"baseline updated: {sum(passed.values())} passed of {sum(total.values())}")
        return 0
    dropped = [(c, n, passed[c]) for c, n in sorted(base.items()) if passed[c] < n]
    for cat, was, now in dropped:
        print(f"RATCHET: {cat} dropped from {was} to {now} passing tests")
    print(f"ratchet: baseline {sum(base.values())} passing tests, {len(dropped)} categories dropped")
    print(f"conformance: {sum(passed.values())} passed, {sum(total.values()) - sum(passed.values())} failed")
    return 1 if dropped else 0


if __name__ == "__main__":
    sys.exit(main())
