#!/usr/bin/env python3
"""`aws cloudformation deploy` benchmark (docs/benchmarks.md, "aws cloudformation deploy" and
"CloudFormation: a 100-resource stack"). Run after `cargo build --release`:

    python3 benches/scripts/deploy.py [--runs 5] [--no-moto]

Against one running release emulator (CUMULO_LOG=info, its log kept), for each template it
deploys `--runs` fresh stacks with the aws CLI 1.45.11 (the version scripts/test installs into
.venv) and measures the wall time of each `aws cloudformation deploy` from spawn to exit. The
emulator logs `stack create finished ... elapsed_ms=X` when a CREATE reaches its terminal status,
X being the milliseconds since the change set was recorded (for a CLI deploy, the stack's creation
at CreateChangeSet); those are collected too. Templates:

  templates/scheduled-queue.yaml              4 resources (queue, role, group, schedule)
  benches/templates/stack-100.yaml            100 resources, 60 of them Scheduler
  benches/templates/stack-100-no-scheduler.yaml   100 resources without Scheduler types,
                                              also deployed to moto_server in the same run

As a floor it also times `aws --version` (the CLI's own Python start-up) and, with botocore from
the same venv, the CreateChangeSet call alone for the 100-resource template (the part of the
server's work before the change set is recorded, which the logged span does not include).
Each template's runs start after waiting for a quiet machine (BENCH_MAX_LOAD, default 1.0).
"""

import argparse
import os
import re
import subprocess
import tempfile
import time

import benchlib

TEMPLATES = [
    ("scheduled-queue", "templates/scheduled-queue.yaml"),
    ("stack-100", "benches/templates/stack-100.yaml"),
    ("stack-100-no-scheduler", "benches/templates/stack-100-no-scheduler.yaml"),
]
ANSI = re.compile(r"\x1b\[[0-9;]*m")
FINISHED = re.compile(r"stack create finished.*stack=(\S+).*status=\"?(\w+)\"?.*elapsed_ms=([\d.]+)")

CHANGE_SET_CALL = """
import sys, time, botocore.session
client = botocore.session.get_session().create_client('cloudformation')
body = open(sys.argv[1]).read()
for i in range(int(sys.argv[3])):
    started = time.perf_counter()
    client.create_change_set(StackName=f'{sys.argv[2]}-{i}', ChangeSetName='cs', ChangeSetType='CREATE',
                             TemplateBody=body, Capabilities=['CAPABILITY_IAM'])
    print((time.perf_counter() - started) * 1000)
"""


def deploy(aws: str, endpoint: str, template: str, stack: str) -> float:
    started = time.perf_counter()
    subprocess.run([aws, "cloudformation", "deploy", "--endpoint-url", endpoint, "--stack-name", stack,
                    "--template-file", os.path.join(benchlib.ROOT, template), "--capabilities",
                    "CAPABILITY_IAM"], check=True, env=benchlib.aws_env(endpoint),
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def finished_spans(log_path: str) -> dict:
    spans = {}
    with open(log_path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = FINISHED.search(ANSI.sub("", line))
            if m:
                spans[m.group(1)] = (m.group(2), float(m.group(3)))
    return spans


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-moto", action="store_true")
    args = parser.parse_args()
    aws = benchlib.aws_cli()
    s = benchlib.summary
    log_path = os.path.join(tempfile.mkdtemp(prefix="cumulo-deploy-"), "cumulo.log")
    emulator = benchlib.Cumulo(env={"CUMULO_LOG": "info"}, log_path=log_path)
    emulator.wait_ready()
    results = []
    try:
        load = benchlib.wait_quiet()
        floor = []
        for _ in range(args.runs):
            started = time.perf_counter()
            subprocess.run([aws, "--version"], check=True, capture_output=True)
            floor.append(time.perf_counter() - started)
        print(f"load {load:.2f}: `aws --version` {s(floor, ' s', 3)}", flush=True)
        for label, template in TEMPLATES:
            load = benchlib.wait_quiet()
            walls = [deploy(aws, emulator.endpoint, template, f"bench-{label}-{i}") for i in range(args.runs)]
            spans = finished_spans(log_path)
            server = [spans[f"bench-{label}-{i}"] for i in range(args.runs) if f"bench-{label}-{i}" in spans]
            statuses = sorted({st for st, _ in server})
            print(f"load {load:.2f}: {template}: deploy wall {s(walls, ' s', 3)}; server CreateChangeSet "
                  f"recorded -> {statuses}: {s([ms for _, ms in server], ' ms', 1)}", flush=True)
            results.append((label, walls, server))
        load = benchlib.wait_quiet()
        venv_python = os.path.join(os.path.dirname(aws), "python")
        out = subprocess.run([venv_python, "-c", CHANGE_SET_CALL,
                              os.path.join(benchlib.ROOT, "benches/templates/stack-100.yaml"),
                              "bench-cs-only", str(args.runs)],
                             check=True, capture_output=True, text=True, env=benchlib.aws_env(emulator.endpoint))
        calls = [float(x) for x in out.stdout.split()]
        print(f"load {load:.2f}: CreateChangeSet call alone, 100 resources (client-side round trip): "
              f"{s(calls, ' ms', 1)}", flush=True)
        print(f"emulator RSS after {len(TEMPLATES) * args.runs} stacks: {emulator.rss_mib():.1f} MiB")
    finally:
        emulator.stop()

    if not args.no_moto:
        python = benchlib.moto_python()
        load = benchlib.wait_quiet()
        moto = benchlib.Moto(python)
        try:
            walls = [deploy(aws, moto.endpoint, "benches/templates/stack-100-no-scheduler.yaml",
                            f"bench-moto-{i}") for i in range(args.runs)]
            print(f"load {load:.2f}: moto: benches/templates/stack-100-no-scheduler.yaml: deploy wall "
                  f"{s(walls, ' s', 3)}; moto RSS {moto.rss_mib():.1f} MiB", flush=True)
        finally:
            moto.stop()
    print(f"(emulator log: {log_path})")


if __name__ == "__main__":
    main()
