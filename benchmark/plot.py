#!/usr/bin/env python3
"""Draws PNG figures from larch_benchmark result files, as described by a plot specification (JSON).

Usage: /usr/bin/python3 benchmark/plot.py benchmark/plots.json [--only NAME]
(Debian's python3-matplotlib; paths in the specification are relative to the repository root).

A specification holds a list "figures"; each figure names its "results" file (or a list of them, drawn together),
its "output" PNG, an "x"
field and one or more "panels", each with "y" fields (and optionally a "where" of its own). Field names are dotted paths into a case record
("size", "larch.gflops", "config.precision"). Cases are kept when every "where" field equals the given
value (a list means any of those values, {"min": a, "max": b} a closed range); each distinct value of the "series" fields draws one line per y
field. The figures thus come from the JSON results alone, never from the benchmark binary.
"""
import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

repo_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def field(record, path):
    """The value at a dotted path, or None where any part is missing."""
    value = record
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def matches(record, where):
    for path, wanted in where.items():
        value = field(record, path)
        if isinstance(wanted, list):
            if value not in wanted:
                return False
        elif isinstance(wanted, dict):
            if value is None or value < wanted.get("min", value) or value > wanted.get("max", value):
                return False
        elif value != wanted:
            return False
    return True


def series_label(record, series_fields, y_path, several_y):
    parts = [str(field(record, path)) for path in series_fields]
    if several_y or not parts:
        parts.append(y_path)
    return " ".join(parts)


def draw_panel(axes, cases, figure, panel):
    cases = [case for case in cases if matches(case, panel.get("where", {}))]
    y_paths = panel["y"] if isinstance(panel["y"], list) else [panel["y"]]
    series_fields = figure.get("series", [])
    lines = {}
    for case in cases:
        x = field(case, figure["x"])
        if x is None:
            continue
        for y_path in y_paths:
            y = field(case, y_path)
            if y is None:
                continue
            label = series_label(case, series_fields, y_path, len(y_paths) > 1)
            lines.setdefault(label, []).append((x, y))
    if not lines:
        raise ValueError(f"figure {figure['name']}: no case has both {figure['x']} and {y_paths}")
    for label, points in sorted(lines.items()):
        points.sort(key=lambda point: point[0])
        axes.plot([p[0] for p in points], [p[1] for p in points], marker="o", markersize=3, label=label)
    if any(isinstance(point[0], str) for points in lines.values() for point in points):
        axes.tick_params(axis="x", labelrotation=30)
    axes.set_title(panel.get("title", ""), fontsize=9)
    axes.set_xlabel(figure.get("xlabel", figure["x"]))
    axes.set_ylabel(panel.get("ylabel", ", ".join(y_paths)))
    if figure.get("logx"):
        axes.set_xscale("log")
    if panel.get("logy"):
        axes.set_yscale("log")
    for value in panel.get("hlines", []):
        axes.axhline(value, color="grey", linestyle="--", linewidth=0.8)
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize=7)


def results_files(figure):
    """The figure's result files: "results" names one, or a list of files whose cases are drawn together."""
    files = figure["results"] if isinstance(figure["results"], list) else [figure["results"]]
    return [os.path.join(repo_root, path) for path in files]


def draw_figure(figure):
    results = {"cases": []}
    for path in results_files(figure):
        with open(path) as results_file:
            part = json.load(results_file)
        results.setdefault("executors", part.get("executors", {}))
        results["cases"] += part["cases"]
    cases = [case for case in results["cases"]
             if case.get("status", "ok") == "ok" and matches(case, figure.get("where", {}))]
    if not cases:
        raise ValueError(f"figure {figure['name']}: no case of {figure['results']} matches {figure.get('where')}")
    panels = figure["panels"]
    fig, axes_list = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4.5), squeeze=False)
    for axes, panel in zip(axes_list[0], panels):
        draw_panel(axes, cases, figure, panel)
    device = next(iter(results.get("executors", {}).values()), {}).get("description", "")
    fig.suptitle(f"{figure.get('title', figure['name'])}\n{device}", fontsize=10)
    fig.tight_layout()
    output = os.path.join(repo_root, figure["output"])
    fig.savefig(output, dpi=110)
    plt.close(fig)
    print(f"wrote {figure['output']} ({len(cases)} cases)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specification")
    parser.add_argument("--only", help="draw only the figure of this name")
    arguments = parser.parse_args()
    with open(arguments.specification) as specification_file:
        figures = json.load(specification_file)["figures"]
    failed = False
    for figure in figures:
        if arguments.only and figure["name"] != arguments.only:
            continue
        missing = [path for path in results_files(figure) if not os.path.exists(path)]
        if missing:
            print(f"skipped {figure['name']}: {', '.join(missing)} does not exist", file=sys.stderr)
            continue
        try:
            draw_figure(figure)
        except (ValueError, KeyError) as error:
            print(f"error: {error}", file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
