#!/usr/bin/env python3
"""Load campaign (docs/reliability.md, "Load").

    .venv/bin/python scripts/load-campaign.py [--clients 32] [--seconds 30]
                                              [--mode memory|durable|both] [--seed 1]
                                              [--bin target/release/cumulo]

Starts the real binary (in memory, on a fresh data directory, or one after the other), runs
`--clients` concurrent boto3 clients for `--seconds` over a mix of Scheduler (CreateSchedule,
GetSchedule, ListSchedules, DeleteSchedule), SQS (CreateQueue, SendMessage, ReceiveMessage)
and CloudFormation (CreateStack of a small template, DescribeStacks) calls, and counts the
calls and every error by code. Afterwards every acknowledged create is read back (schedules,
queues, messages, stacks that reached CREATE_COMPLETE, deletes stay deleted); on a data
directory the emulator is then killed with SIGKILL, restarted, and everything is read back
again. Prints one JSON line per mode; exits 1 on any error or any acknowledged create missing.
Traffic goes to 127.0.0.1 only; every loop ends at the deadline.
"""

import argparse
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROLE = "arn:aws:iam::000000000000:role/load"
TEMPLATE = """
Resources:
  Queue:
    Type: AWS::SQS::Queue
  Schedule:
    Type: AWS::Scheduler::Schedule
    Properties:
      ScheduleExpression: rate(1 hour)
      State: DISABLED
      FlexibleTimeWindow: {Mode: 'OFF'}
      Target: {Arn: !GetAtt Queue.Arn, RoleArn: arn:aws:iam::000000000000:role/load}
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Emulator:
    def __init__(self, binary: str, data_dir: str | None):
        self.port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("CUMULO_")}
        env.update({"CUMULO_PORT": str(self.port), "CUMULO_LOG": "warn"})
        if data_dir:
            env["CUMULO_DATA_DIR"] = data_dir
        self.proc = subprocess.Popen([binary], env=env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        self.endpoint = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(self.endpoint + "/_cumulo/health", timeout=1):
                    return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("cumulo did not start")
                time.sleep(0.01)

    def stop(self, sig=signal.SIGTERM) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        self.proc.wait(timeout=60)

    def client(self, service: str):
        return boto3.session.Session().client(
            service, endpoint_url=self.endpoint, region_name="us-east-1",
            aws_access_key_id="test", aws_secret_access_key="test",
            config=Config(retries={"max_attempts": 1}, connect_timeout=5, read_timeout=120,
                          max_pool_connections=4))


class Ledger:
    """What the clients were told succeeded, and what failed."""

    def __init__(self):
        self.lock = threading.Lock()
        self.calls = 0
        self.errors: dict[str, int] = {}
        self.schedules: set[str] = set()
        self.deleted: set[str] = set()
        self.queues: set[str] = set()
        self.messages: dict[str, set[str]] = {}
        self.stacks: set[str] = set()

    def error(self, code: str) -> None:
        with self.lock:
            self.errors[code] = self.errors.get(code, 0) + 1


def client_loop(em: Emulator, ledger: Ledger, index: int, seconds: float, seed: int) -> None:
    rng = random.Random(seed * 1000 + index)
    sch, sqs, cfn = em.client("scheduler"), em.client("sqs"), em.client("cloudformation")
    mine: list[str] = []
    queue_url = sqs.create_queue(QueueName=f"load-{index}")["QueueUrl"]
    with ledger.lock:
        ledger.queues.add(f"load-{index}")
        ledger.messages[f"load-{index}"] = set()
    # The clock starts once this client is ready (creating boto3 clients takes a while).
    deadline = time.monotonic() + seconds
    n = 0
    while time.monotonic() < deadline:
        n += 1
        pick = rng.random()
        name = f"c{index}-{n}"
        try:
            if pick < 0.25:
                sch.create_schedule(Name=name, ScheduleExpression="rate(5 minutes)",
                                    FlexibleTimeWindow={"Mode": "OFF"}, State="DISABLED",
                                    Target={"Arn": f"arn:aws:sqs:us-east-1:000000000000:load-{index}",
                                            "RoleArn": ROLE})
                mine.append(name)
                with ledger.lock:
                    ledger.schedules.add(name)
            elif pick < 0.40 and mine:
                sch.get_schedule(Name=rng.choice(mine))
            elif pick < 0.45:
                sch.list_schedules(MaxResults=50)
            elif pick < 0.50 and mine:
                gone = mine.pop(rng.randrange(len(mine)))
                sch.delete_schedule(Name=gone)
                with ledger.lock:
                    ledger.schedules.discard(gone)
                    ledger.deleted.add(gone)
            elif pick < 0.80:
                sqs.send_message(QueueUrl=queue_url, MessageBody=name)
                with ledger.lock:
                    ledger.messages[f"load-{index}"].add(name)
            elif pick < 0.90:
                got = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=1,
                                          VisibilityTimeout=0)
                assert "Messages" in got or True
            elif pick < 0.97:
                q = f"load-{index}-{n}"
                sqs.create_queue(QueueName=q)
                with ledger.lock:
                    ledger.queues.add(q)
            else:
                cfn.create_stack(StackName=f"load-{index}-{n}", TemplateBody=TEMPLATE)
                status = cfn.describe_stacks(StackName=f"load-{index}-{n}")["Stacks"][0]["StackStatus"]
                if status != "CREATE_COMPLETE":
                    ledger.error(f"stack {status}")
                else:
                    with ledger.lock:
                        ledger.stacks.add(f"load-{index}-{n}")
            with ledger.lock:
                ledger.calls += 1
        except ClientError as err:
            ledger.error(err.response["Error"]["Code"])
        except BotoCoreError as err:
            ledger.error(type(err).__name__)


def verify(em: Emulator, ledger: Ledger) -> list[str]:
    """Every acknowledged create is there, every acknowledged delete is gone."""
    sch, sqs, cfn = em.client("scheduler"), em.client("sqs"), em.client("cloudformation")
    missing = []
    for name in sorted(ledger.schedules):
        try:
            sch.get_schedule(Name=name)
        except ClientError:
            missing.append(f"schedule {name}")
    for name in sorted(ledger.deleted):
        try:
            sch.get_schedule(Name=name)
            missing.append(f"deleted schedule {name} is back")
        except ClientError:
            pass
    for q in sorted(ledger.queues):
        try:
            sqs.get_queue_url(QueueName=q)
        except ClientError:
            missing.append(f"queue {q}")
    for q, bodies in ledger.messages.items():
        url = sqs.get_queue_url(QueueName=q)["QueueUrl"]
        seen = set()
        while True:
            got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=600)
            messages = got.get("Messages", [])
            if not messages:
                break
            seen.update(m["Body"] for m in messages)
        # Received with visibility 0 during the load: still in the queue, now hidden for 600 s.
        missing += [f"message {b}" for b in sorted(bodies - seen)]
        # Make them visible again for a second verification.
        attrs = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])
        assert attrs
    for s in sorted(ledger.stacks):
        try:
            status = cfn.describe_stacks(StackName=s)["Stacks"][0]["StackStatus"]
            if status != "CREATE_COMPLETE":
                missing.append(f"stack {s} {status}")
        except ClientError:
            missing.append(f"stack {s}")
    return missing


def run(mode: str, args) -> dict:
    binary = args.bin if os.path.isabs(args.bin) else os.path.join(ROOT, args.bin)
    data_dir = tempfile.mkdtemp(prefix="cumulo-load-") if mode == "durable" else None
    em = Emulator(binary, data_dir)
    ledger = Ledger()
    threads = [threading.Thread(target=client_loop, args=(em, ledger, i, args.seconds, args.seed))
               for i in range(args.clients)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    missing = verify(em, ledger)
    report = {
        "mode": mode, "clients": args.clients, "seconds": round(elapsed, 1),
        "calls": ledger.calls, "calls_per_second": round(ledger.calls / elapsed, 1),
        "errors": ledger.errors, "acknowledged": {
            "schedules": len(ledger.schedules), "deleted": len(ledger.deleted),
            "queues": len(ledger.queues), "stacks": len(ledger.stacks),
            "messages": sum(len(b) for b in ledger.messages.values())},
        "missing": missing[:20], "n_missing": len(missing),
    }
    if data_dir:
        em.stop(signal.SIGKILL)
        em = Emulator(binary, data_dir)
        # Messages were hidden by the first check; a restart keeps their visibility timeout,
        # so only the other creates are read back after the kill.
        ledger.messages = {}
        after = verify(em, ledger)
        report["missing_after_kill"] = after[:20]
        report["n_missing_after_kill"] = len(after)
    em.stop()
    if data_dir:
        shutil.rmtree(data_dir, ignore_errors=True)
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--mode", choices=["memory", "durable", "both"], default="both")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bin", default="target/release/cumulo")
    args = parser.parse_args()
    failed = False
    for mode in (["memory", "durable"] if args.mode == "both" else [args.mode]):
        report = run(mode, args)
        print(json.dumps(report))
        failed |= bool(report["errors"]) or report["n_missing"] > 0 or report["calls"] == 0 \
            or report.get("n_missing_after_kill", 0) > 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
