#!/usr/bin/env python3
"""Prints bench.json and bench-compare.json as the Markdown tables of docs/PERFORMANCE.md,
so the figures in the document are copied by a program, not retyped."""
import json
import os
import sys

# The comparison's figures and their labels are bench/luma_compare.py's (beside this file).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from luma_compare import FIGURES, ratio_key  # noqa: E402

UNITS = {"_ns_": "ns", "_allocs_": "", "_bytes_": "B", "_transactions_": "", "_us_": "µs",
         "wakeups_": "/s", "_kib_": "KiB", "_ms": "ms", "_ms_": "ms"}


def unit(key):
    for k, u in UNITS.items():
        if k in key or key.endswith(k):
            return u
    return ""


def fmt(v):
    if v is None:
        return "n/a"
    if isinstance(v, float) and not v.is_integer():
        return f"{v:,.2f}" if abs(v) < 100 else f"{v:,.0f}"
    return f"{int(v):,}"


def main():
    bench = json.load(open(sys.argv[1] if len(sys.argv) > 1 else "bench.json"))
    print(f"bench.json of {bench['meta']['date']} ({bench['meta'].get('machine', '')}):\n")
    print("| key | value | |\n|---|---:|---|")
    for k, v in bench.items():
        if k in ("missing", "meta"):
            continue
        why = bench["missing"].get(k, "")
        print(f"| `{k}` | {fmt(v)} {unit(k) if v is not None else ''} | {why} |")
    print()
    for k, v in bench["meta"].items():
        if k not in ("date", "machine"):
            print(f"- {k}: {v}")
    try:
        cmp_ = json.load(open(sys.argv[2] if len(sys.argv) > 2 else "bench-compare.json"))
    except FileNotFoundError:
        return
    if not cmp_.get("luma"):
        print(f"\nbench-compare: {cmp_.get('skipped')}")
        return
    ours, luma, rat = cmp_["islet"], cmp_["luma"], cmp_["ratios_luma_over_islet"]
    print(f"\nbench-compare.json of {cmp_['date']} ({luma['version']}, Python {luma['python']}), "
          f"{ours['ticks']} ticks of {ours['width']}x{ours['height']} compact:\n")
    print("| transport | figure | Islet | luma.oled | luma / Islet |\n|---|---|---:|---:|---:|")
    for t in ("i2c", "smbus"):
        for key, _, label in FIGURES:
            print(f"| {t} | {label} | {fmt(ours[t][key])} | {fmt(luma[t][key])} | {rat[t][ratio_key(key)]:.2f}× |")


if __name__ == "__main__":
    main()
