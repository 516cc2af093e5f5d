#!/usr/bin/env python3
"""Markdown table of an spmv results file of larch_benchmark (larch beside cuSPARSE, bandwidth fractions).

Usage: benchmark/spmv_table.py RESULTS.json > TABLE.md
"""
import json
import sys


def main(path):
    results = json.load(open(path))
    executors = results.get("executors", {})
    print(f"Source: `{path}` ({results.get('date', '')}), configuration `{results.get('config_file', '')}`.")
    for name, executor in executors.items():
        print(f"Executor {name}: {json.dumps(executor)}")
    print()
    print("| matrix | format | precision | nonzeros | larch ms | larch GB/s | of copy | cuSPARSE ms | cuSPARSE GB/s | of copy | larch/cuSPARSE speed |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for case in results["cases"]:
        if case.get("status") != "ok":
            print(f"| {case.get('label', '?')} | | | | {case.get('status')} | | | | | | |")
            continue
        ours = case["larch"]
        vendor = case.get("vendor")
        row = [case["matrix"], case["format"], case["precision"], f"{case['nonzeros']:,}",
               f"{ours['time_s']['median'] * 1e3:.4g}", f"{ours['gbs']:.0f}",
               f"{ours['copy_bandwidth_fraction']:.0%}"]
        if vendor:
            row += [f"{vendor['time_s']['median'] * 1e3:.4g}", f"{vendor['gbs']:.0f}",
                    f"{vendor['copy_bandwidth_fraction']:.0%}", f"{case['larch_over_vendor']:.2f}"]
        else:
            row += ["-", "-", "-", "-"]
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
