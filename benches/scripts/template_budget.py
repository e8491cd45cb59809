#!/usr/bin/env python3
"""Templates that amplify (issue 17.1), measured from outside: how long CreateStack takes to
refuse each, the emulator's peak resident memory, and how /_cumulo/health answers meanwhile,
as docs/benchmarks.md reports them.

    python3 benches/scripts/template_budget.py [--bin target/release/cumulo] [--runs 20]

Waits first for a quiet machine (benchlib.wait_quiet). Starts the binary on a free port and,
for each template, sends `--runs` CreateStack requests (awsQuery over urllib, one at a time)
and prints the median and spread of the answer time and the answer's error; then sends the same
requests from 4 threads at once while another thread polls GET /_cumulo/health, and prints the
health answers' times. The templates: the three of tests/templates/budget/ (about 1 KB each;
unbounded they ask for 5 GB, 742 MB and 2 GB) and one built here to spend a whole evaluation
budget (45 Fn::Sub of 244 references to a 4,096-byte parameter, 45 KB). Peak memory is VmHWM
from /proc/<pid>/status after each phase.
"""

import argparse
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

AUTH = ("AWS4-HMAC-SHA256 Credential=test/20300101/us-east-1/cloudformation/aws4_request, "
        "SignedHeaders=host, Signature=x")


def templates() -> list[tuple[str, str, dict]]:
    base = os.path.join(benchlib.ROOT, "tests", "templates", "budget")
    out = []
    for name in ["base64-nested", "sub-doubling", "tojsonstring-nested"]:
        with open(os.path.join(base, name + ".json"), encoding="utf-8") as f:
            out.append((name, f.read(), {"Capabilities.member.1": "CAPABILITY_AUTO_EXPAND"}))
    sub = {"Fn::Sub": "${P}" * 244}
    fanout = {"Parameters": {"P": {"Type": "String"}},
              "Resources": {"Payload": {"Type": "AWS::SSM::Parameter",
                                        "Properties": {"Type": "StringList", "Value": [sub] * 45}}}}
    out.append(("parameter-fanout", json.dumps(fanout, separators=(",", ":")),
                {"Parameters.member.1.ParameterKey": "P",
                 "Parameters.member.1.ParameterValue": "p" * 4096}))
    return out


def create_stack(port: int, body: str, extra: dict) -> tuple[float, str]:
    form = {"Action": "CreateStack", "Version": "2010-05-15", "StackName": "budget",
            "TemplateBody": body, **extra}
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}/", data=urllib.parse.urlencode(form).encode(),
        headers={"Content-Type": "application/x-www-form-urlencoded", "Authorization": AUTH})
    started = time.perf_counter()
    try:
        answer = urllib.request.urlopen(req, timeout=120).read().decode()
    except urllib.error.HTTPError as e:
        answer = e.read().decode()
    elapsed = (time.perf_counter() - started) * 1000
    message = answer.split("<Message>")[1].split("</Message>")[0] if "<Message>" in answer else answer[:120]
    return elapsed, message


def peak_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default="target/release/cumulo")
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    benchlib.wait_quiet()
    print(f"busy: {benchlib.busy_processes()}")
    emu = benchlib.Cumulo(args.bin)
    emu.wait_ready()
    try:
        print(f"idle peak RSS: {peak_mib(emu.proc.pid):.1f} MiB")
        cases = templates()
        for name, body, extra in cases:
            times, message = [], ""
            for _ in range(args.runs):
                elapsed, message = create_stack(emu.port, body, extra)
                times.append(elapsed)
            print(f"{name} ({len(body)} bytes): {benchlib.summary(times, ' ms')}; "
                  f"peak RSS {peak_mib(emu.proc.pid):.1f} MiB")
            print(f"    {message[:160]}")
        # Four attackers at once, and a health poller beside them.
        stop = threading.Event()
        health_ms: list[float] = []

        def poll_health() -> None:
            while not stop.is_set():
                started = time.perf_counter()
                if benchlib.health(emu.port):
                    health_ms.append((time.perf_counter() - started) * 1000)
                time.sleep(0.01)

        def attack() -> None:
            for _ in range(args.runs // 4 or 1):
                for _, body, extra in cases:
                    create_stack(emu.port, body, extra)

        poller = threading.Thread(target=poll_health)
        poller.start()
        attackers = [threading.Thread(target=attack) for _ in range(4)]
        started = time.perf_counter()
        for t in attackers:
            t.start()
        for t in attackers:
            t.join()
        took = time.perf_counter() - started
        stop.set()
        poller.join()
        print(f"4 concurrent attackers, {4 * (args.runs // 4 or 1) * len(cases)} requests in "
              f"{took:.1f} s; health answers: {benchlib.summary(health_ms, ' ms')}; "
              f"peak RSS {peak_mib(emu.proc.pid):.1f} MiB")
    finally:
        emu.stop()


if __name__ == "__main__":
    main()
