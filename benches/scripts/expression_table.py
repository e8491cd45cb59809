#!/usr/bin/env python3
"""Prints the next-fire benchmark (benches/expression.rs) as the Markdown table of
docs/benchmarks.md, "Schedule expressions": criterion's median per benchmark with its 95 %
confidence interval, Cumulo beside croner. Run after `cargo bench --bench expression`:

    python3 benches/scripts/expression_table.py [--criterion target/criterion]
"""

import argparse
import json
import os

import benchlib

CRONS = ["daily_noon", "every_15_min", "weekday_hours", "monthly_first", "last_friday", "second_tuesday"]


def median_ns(root: str, group: str, name: str) -> tuple[float, float, float] | None:
    path = os.path.join(root, group, name, "new", "estimates.json")
    if not os.path.exists(path):
        return None
    m = json.load(open(path, encoding="utf-8"))["median"]
    ci = m["confidence_interval"]
    return m["point_estimate"], ci["lower_bound"], ci["upper_bound"]


def cell(v: tuple[float, float, float] | None) -> str:
    if v is None:
        return "—"
    return f"{v[0]:.0f} ns ({v[1]:.0f}–{v[2]:.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--criterion", default=os.path.join(benchlib.ROOT, "target", "criterion"))
    args = parser.parse_args()
    print("| cron | zone | Cumulo median (95 % CI) | croner median (95 % CI) |")
    print("|---|---|---|---|")
    for zone in ("utc", "new_york"):
        group = f"next_fire_{zone}"
        for cron in CRONS:
            ours = median_ns(args.criterion, group, f"cumulo_{cron}")
            theirs = median_ns(args.criterion, group, f"croner_{cron}")
            print(f"| {cron} | {zone} | {cell(ours)} | {cell(theirs)} |")
    for name in ("parse_cron", "next_fire_rate", "never_fires"):
        print(f"| {name} | utc | {cell(median_ns(args.criterion, 'expression', name))} | |")


if __name__ == "__main__":
    main()
