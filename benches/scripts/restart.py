#!/usr/bin/env python3
"""Restart benchmark (docs/benchmarks.md, "Durable state: restart"). Run after
`cargo build --release && cargo build --release --example scheduler_load`:

    python3 benches/scripts/restart.py [--schedules 100000] [--stacks 10] [--runs 5]

Fills a fresh CUMULO_DATA_DIR with N schedules (scheduler_load, AWS SDK for Rust) and S stacks
(CreateStack of templates/scheduled-queue.yaml through botocore from the aws CLI's venv), stops
the emulator with SIGTERM, then restarts it `--runs` times on that directory, each time
measuring from spawn to (1) the first 200 from GET /_cumulo/health and (2) the first 200 from
GetSchedule of bench-000000, the oldest schedule, and the RSS once the dispatcher has recovered.
One more restart follows a SIGKILL taken right after a write burst (nothing flushed cleanly).
Each restart waits for a quiet machine first (BENCH_MAX_LOAD, default 1.0).
"""

import argparse
import http.client
import os
import shutil
import signal
import subprocess
import tempfile
import time

import benchlib

LOADER = os.path.join(benchlib.ROOT, "target", "release", "examples", "scheduler_load")
AUTH = ("AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/scheduler/aws4_request, "
        "SignedHeaders=host;x-amz-date, Signature=" + "0" * 64)

CREATE_STACKS = """
import sys, botocore.session
client = botocore.session.get_session().create_client('cloudformation')
body = open(sys.argv[1]).read()
for i in range(int(sys.argv[2])):
    client.create_stack(StackName=f'restart-{i}', TemplateBody=body, Capabilities=['CAPABILITY_IAM'])
    status = client.describe_stacks(StackName=f'restart-{i}')['Stacks'][0]['StackStatus']
    assert status == 'CREATE_COMPLETE', status
"""


def get_schedule_ok(port: int) -> bool:
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
        conn.request("GET", "/schedules/bench-000000?groupName=default",
                     headers={"Authorization": AUTH, "X-Amz-Date": "20260101T000000Z"})
        ok = conn.getresponse().status == 200
        conn.close()
        return ok
    except OSError:
        return False


def restart(data_dir: str) -> tuple[float, float, float, float]:
    emulator = benchlib.Cumulo(env={"CUMULO_DATA_DIR": data_dir})
    try:
        health = emulator.wait_ready(timeout=300)
        while not get_schedule_ok(emulator.port):
            if time.perf_counter() - emulator.started > 300:
                raise RuntimeError("GetSchedule never answered 200")
            time.sleep(0.0005)
        first_get = time.perf_counter() - emulator.started
        # The dispatcher recovers in its own task after the server answers; let it settle.
        cpu = benchlib.cpu_seconds(emulator.proc.pid)
        while True:
            time.sleep(1.0)
            now = benchlib.cpu_seconds(emulator.proc.pid)
            if now - cpu < 0.05:
                break
            cpu = now
        return health, first_get, emulator.rss_mib(), cpu
    finally:
        emulator.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--schedules", type=int, default=100_000)
    parser.add_argument("--stacks", type=int, default=10)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    s = benchlib.summary
    aws = benchlib.aws_cli()
    data_dir = tempfile.mkdtemp(prefix="cumulo-restart-")
    try:
        emulator = benchlib.Cumulo(env={"CUMULO_DATA_DIR": data_dir})
        try:
            emulator.wait_ready()
            subprocess.run([LOADER, "--endpoint", emulator.endpoint, "--schedules", str(args.schedules),
                            "--concurrency", "64"], check=True, stdout=subprocess.DEVNULL)
            subprocess.run([os.path.join(os.path.dirname(aws), "python"), "-c", CREATE_STACKS,
                            os.path.join(benchlib.ROOT, "templates", "scheduled-queue.yaml"), str(args.stacks)],
                           check=True, env=benchlib.aws_env(emulator.endpoint))
        finally:
            emulator.stop()
        size = sum(os.path.getsize(os.path.join(data_dir, f)) for f in os.listdir(data_dir)) / 2**20
        print(f"data directory with {args.schedules} schedules and {args.stacks} stacks: {size:.1f} MiB",
              flush=True)
        rows = []
        for _ in range(args.runs):
            load = benchlib.wait_quiet()
            health, first_get, rss, cpu = restart(data_dir)
            rows.append((health, first_get, rss, cpu))
            print(f"  load {load:.2f}: first health {health * 1000:.0f} ms, first GetSchedule "
                  f"{first_get * 1000:.0f} ms, RSS after recovery {rss:.1f} MiB, CPU {cpu:.2f} s", flush=True)

        # A kill -9 right after writes: the next start replays the WAL.
        emulator = benchlib.Cumulo(env={"CUMULO_DATA_DIR": data_dir})
        emulator.wait_ready(timeout=300)
        subprocess.run([LOADER, "--endpoint", emulator.endpoint, "--schedules", "1000",
                        "--concurrency", "64", "--prefix", "late-"], check=True, stdout=subprocess.DEVNULL)
        emulator.stop(signal.SIGKILL)
        load = benchlib.wait_quiet()
        health, first_get, rss, cpu = restart(data_dir)
        print(f"  after SIGKILL (load {load:.2f}): first health {health * 1000:.0f} ms, first GetSchedule "
              f"{first_get * 1000:.0f} ms", flush=True)

        print(f"\nsummary: restart with {args.schedules} schedules and {args.stacks} stacks "
              f"({args.runs} runs after SIGTERM)")
        print(f"  spawn to first health 200: {s([r[0] * 1000 for r in rows], ' ms', 0)}")
        print(f"  spawn to first GetSchedule 200: {s([r[1] * 1000 for r in rows], ' ms', 0)}")
        print(f"  RSS after recovery: {s([r[2] for r in rows], ' MiB')}")
        print(f"  CPU used by the whole start (load + recovery): {s([r[3] for r in rows], ' s', 2)}")
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
