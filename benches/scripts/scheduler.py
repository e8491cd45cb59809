#!/usr/bin/env python3
"""Scheduler API benchmark (docs/benchmarks.md, "Scheduler API"), driven by
benches/scripts/scheduler.sh after a release build.

Each of RUNS rounds starts a fresh release emulator (in memory, or on a fresh data directory
with --data-dir) and:
  1. creates N schedules with the AWS SDK for Rust at concurrency 64
     (target/release/examples/scheduler_load): CreateSchedule throughput;
  2. reads VmRSS with N stored schedules;
  3. pages through all N with ListSchedules, MaxResults 100, from the SDK;
  4. loads GetSchedule of random schedules with wrk, 64 connections, 2 threads, 10 s
     (benches/scripts/get_schedule.lua): throughput, p50/p90/p99.
With --compare-durable it alternates in-memory and data-directory rounds instead (no moto) and
prints the ratio of their CreateSchedule throughputs (issue 7).
Otherwise, unless --no-moto, it then runs the same wrk load against moto_server (moto[server] from PyPI in a
throwaway venv) holding one schedule created with boto3.

Before each round it waits for a quiet machine (1-minute load average below BENCH_MAX_LOAD,
default 1.0, for up to 20 min) and prints the load it started under.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import tempfile

import benchlib

LUA = os.path.join(benchlib.ROOT, "benches", "scripts", "get_schedule.lua")
LOADER = os.path.join(benchlib.ROOT, "target", "release", "examples", "scheduler_load")


def one_round(n: int, durable: bool) -> dict:
    data_dir = tempfile.mkdtemp(prefix="cumulo-bench-") if durable else None
    env = {"CUMULO_DATA_DIR": data_dir} if durable else {}
    load = benchlib.wait_quiet()
    emulator = benchlib.Cumulo(env=env)
    try:
        emulator.wait_ready()
        idle = emulator.rss_mib()
        out = subprocess.run([LOADER, "--endpoint", emulator.endpoint, "--schedules", str(n),
                              "--concurrency", "64"], check=True, capture_output=True, text=True).stdout
        create = float(re.search(r"([\d.]+) CreateSchedule/s", out).group(1))
        listed = re.search(r"listed (\d+) schedules in (\d+) pages .* in ([\d.]+) s", out)
        if int(listed.group(1)) != n:
            raise RuntimeError(f"ListSchedules saw {listed.group(1)} schedules, not {n}")
        rss_stored = emulator.rss_mib()
        got = benchlib.wrk(emulator.endpoint, LUA, {"SCHEDULES": str(n)})
        result = {
            "load": load, "idle_rss": idle, "create_per_s": create, "list_s": float(listed.group(3)),
            "rss_stored": rss_stored, "rss_after_get": emulator.rss_mib(), **got,
        }
        print(f"  load {load:.2f}: idle {idle:.1f} MiB; {create:.0f} CreateSchedule/s; "
              f"RSS with {n} schedules {rss_stored:.1f} MiB; ListSchedules of all {n} in "
              f"{result['list_s']:.3f} s ({listed.group(2)} pages); GetSchedule {got['rps']:.0f} req/s, "
              f"p50 {got['p50']:.2f} ms, p99 {got['p99']:.2f} ms, {got['errors']} errors; "
              f"RSS after {result['rss_after_get']:.1f} MiB", flush=True)
        return result
    finally:
        emulator.stop()
        if data_dir:
            shutil.rmtree(data_dir, ignore_errors=True)


def moto_round(python: str) -> dict:
    load = benchlib.wait_quiet()
    moto = benchlib.Moto(python)
    try:
        create = ("import boto3; c = boto3.client('scheduler', endpoint_url='%s'); "
                  "c.create_schedule(Name='bench-000000', ScheduleExpression='cron(0 12 1 1 ? *)', "
                  "FlexibleTimeWindow={'Mode': 'OFF'}, Target={'Arn': "
                  "'arn:aws:sqs:us-east-1:000000000000:bench-0', 'RoleArn': "
                  "'arn:aws:iam::000000000000:role/bench', 'Input': '{\"n\":0}'})") % moto.endpoint
        subprocess.run([python, "-c", create], check=True, env=benchlib.aws_env(moto.endpoint))
        got = benchlib.wrk(moto.endpoint, LUA, {"SCHEDULES": "1"})
        print(f"  load {load:.2f}: moto GetSchedule {got['rps']:.0f} req/s, p50 {got['p50']:.2f} ms, "
              f"p99 {got['p99']:.2f} ms, {got['errors']} errors; moto RSS {moto.rss_mib():.1f} MiB",
              flush=True)
        return {"load": load, **got}
    finally:
        moto.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--schedules", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--data-dir", action="store_true", help="run the emulator on a fresh CUMULO_DATA_DIR")
    parser.add_argument("--no-moto", action="store_true")
    parser.add_argument("--moto-only", action="store_true", help="only the moto rounds")
    parser.add_argument("--compare-durable", action="store_true",
                        help="alternate in-memory and --data-dir rounds (no moto) and print the ratio")
    args = parser.parse_args()
    if args.compare_durable:
        compare_durable(args.schedules, args.runs)
        return
    mode = "on a data directory" if args.data_dir else "in memory"
    rounds = []
    if not args.moto_only:
        print(f"Cumulo ({mode}), {args.schedules} schedules, {args.runs} rounds:", flush=True)
        rounds = [one_round(args.schedules, args.data_dir) for _ in range(args.runs)]
    moto = []
    if not args.no_moto:
        python = benchlib.moto_python()
        print("moto, one schedule, same wrk load:", flush=True)
        moto = [moto_round(python) for _ in range(args.runs)]

    s = benchlib.summary
    print(f"\nsummary (median, min, max of {args.runs} rounds; Cumulo {mode}):")
    loads = ", ".join(f"{r['load']:.2f}" for r in rounds + moto)
    print(f"  load averages at start: {loads}")
    if rounds:
        summarise(rounds, args.schedules)
    if moto:
        print(f"  moto GetSchedule req/s: {s([r['rps'] for r in moto], digits=0)}")
        print(f"  moto GetSchedule p50: {s([r['p50'] for r in moto], ' ms', 2)}")
        print(f"  moto GetSchedule p99: {s([r['p99'] for r in moto], ' ms', 2)}")


def compare_durable(n: int, runs: int) -> None:
    """Alternates in-memory and on-disk rounds, so both see the same machine."""
    memory, durable = [], []
    for i in range(runs):
        print(f"round {i + 1}: in memory", flush=True)
        memory.append(one_round(n, False))
        print(f"round {i + 1}: on a data directory", flush=True)
        durable.append(one_round(n, True))
    for label, rounds in (("in memory", memory), ("on a data directory", durable)):
        loads = ", ".join(f"{r['load']:.2f}" for r in rounds)
        print(f"\nsummary, {label} (median, min, max of {runs} rounds; load averages {loads}):")
        summarise(rounds, n)
    ratio = (statistics.median(r["create_per_s"] for r in durable)
             / statistics.median(r["create_per_s"] for r in memory))
    print(f"\nCreateSchedule/s on a data directory / in memory (medians): {ratio * 100:.0f} %")


def summarise(rounds: list[dict], n: int) -> None:
    s = benchlib.summary
    print(f"  CreateSchedule/s at concurrency 64: {s([r['create_per_s'] for r in rounds], digits=0)}")
    print(f"  RSS with {n} schedules: {s([r['rss_stored'] for r in rounds], ' MiB')}")
    print(f"  RSS after the GetSchedule load: {s([r['rss_after_get'] for r in rounds], ' MiB')}")
    print(f"  ListSchedules of all (MaxResults 100): {s([r['list_s'] for r in rounds], ' s', 3)}")
    print(f"  GetSchedule req/s (wrk, 64 connections): {s([r['rps'] for r in rounds], digits=0)}")
    print(f"  GetSchedule p50: {s([r['p50'] for r in rounds], ' ms', 2)}")
    print(f"  GetSchedule p99: {s([r['p99'] for r in rounds], ' ms', 2)}")


if __name__ == "__main__":
    main()
