#!/usr/bin/env python3
"""Start-up time and idle memory of the cumulo binary, measured from outside with public tools
(Python's standard library and /proc), as docs/benchmarks.md reports them.

    python3 benches/scripts/startup.py [--bin target/release/cumulo] [--runs 5]

Waits first for a quiet machine (1-minute load average below BENCH_MAX_LOAD, default 1.0, for
at most BENCH_MAX_WAIT seconds, default 1200) and prints the load it started under. Each run
starts the binary on a free port, polls GET /_cumulo/health over a fresh TCP
connection every 0.5 ms, and records the wall time from spawn to the first 200; one second
later it reads VmRSS from /proc/<pid>/status (idle resident memory), then stops the process.
Prints each run and the medians with their spread.
"""

import argparse
import http.client
import os
import socket
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def one_run(binary: str) -> tuple[float, int]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUMULO_")}
    env.update({"CUMULO_PORT": str(port), "CUMULO_LOG": "warn"})
    started = time.perf_counter()
    proc = subprocess.Popen([binary], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
                conn.request("GET", "/_cumulo/health")
                if conn.getresponse().status == 200:
                    ready = time.perf_counter() - started
                    break
            except OSError:
                pass
            if proc.poll() is not None:
                raise RuntimeError("the emulator exited before answering")
            if time.perf_counter() - started > 10:
                raise RuntimeError("no health answer within 10 s")
            time.sleep(0.0005)
        time.sleep(1.0)
        return ready, rss_kib(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default="target/release/cumulo")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"load average at start: {benchlib.wait_quiet():.2f}", flush=True)
    times, rss = [], []
    for i in range(args.runs):
        t, r = one_run(args.bin)
        times.append(t)
        rss.append(r)
        print(f"run {i + 1}: first health answer after {t * 1000:.1f} ms, idle RSS {r / 1024:.1f} MiB")
    print(f"median: {statistics.median(times) * 1000:.1f} ms to the first health answer "
          f"(min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f}), "
          f"{statistics.median(rss) / 1024:.1f} MiB idle RSS (min {min(rss) / 1024:.1f}, "
          f"max {max(rss) / 1024:.1f}), {args.runs} runs; load average at the end: {benchlib.load1():.2f}")


if __name__ == "__main__":
    main()
