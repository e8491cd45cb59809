#!/usr/bin/env python3
"""Crash-consistency campaign (docs/reliability.md, "Crash consistency").

    .venv/bin/python scripts/crash-campaign.py [--rounds 20] [--seconds 0] [--seed 1]
                                               [--bin target/release/cumulo]

One data directory, a manual clock, and schedules of every kind: rate, cron, at(), one that
retries into a missing queue and dead-letters, one into an SNS topic fanned out to SQS. Each
round starts the real binary on the directory, does work (moves the clock by random steps,
bursts of SendMessage / PutParameter / CreateSchedule, CreateStack), and kills it with SIGKILL
at a random moment: in the middle of a clock move, of a CreateStack, of a burst, during
start-up, or while idle. Some restarts jump the clock ahead (an outage: occurrences are missed).
At the end, a last clean start moves the clock an hour on (retries finish) and the script
accounts for:

- every occurrence of every campaign schedule up to the last confirmed clock time: delivered
  exactly once (two SNS deliveries only where the history flags `possible_duplicate`), or
  recorded `dropped` (one record, or inside a compact record's count and range), or for the
  retrying schedule, dead-lettered exactly once; nothing vanishes and nothing is doubled;
- every acknowledged write: each SendMessage body is received, each PutParameter value and
  CreateSchedule and CreateStack is there.

Exit status 0 when everything is accounted for; the figures are printed as one JSON line.
Stops by itself: `--rounds` rounds, or `--seconds` of wall time when given (whichever first).
Traffic goes to 127.0.0.1 only.
"""

import argparse
import datetime as dt
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

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROLE = "arn:aws:iam::000000000000:role/crash"
ACCOUNT = "000000000000"
REGION = "us-east-1"
T0 = dt.datetime(2030, 1, 1, tzinfo=dt.timezone.utc)
STACK_TEMPLATE = """
Resources:
  Queue:
    Type: AWS::SQS::Queue
  Param:
    Type: AWS::SSM::Parameter
    Properties:
      Type: String
      Value: !GetAtt Queue.Arn
Outputs:
  Url:
    Value: !Ref Queue
"""


def rfc3339(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Emulator:
    def __init__(self, binary: str, data_dir: str, clock: dt.datetime, log):
        self.port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("CUMULO_")}
        env.update({
            "CUMULO_PORT": str(self.port),
            "CUMULO_DATA_DIR": data_dir,
            "CUMULO_CLOCK": "manual",
            "CUMULO_CLOCK_START": rfc3339(clock),
            "CUMULO_INVOCATION_HISTORY": "10000000",
            "CUMULO_LOG": "warn",
        })
        self.proc = subprocess.Popen([binary], env=env, stdout=subprocess.DEVNULL, stderr=log)
        self.endpoint = f"http://127.0.0.1:{self.port}"

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"cumulo exited with {self.proc.returncode} before answering")
            try:
                with urllib.request.urlopen(self.endpoint + "/_cumulo/health", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.01)
        raise RuntimeError("cumulo never answered /_cumulo/health")

    def kill9(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def control(self, method: str, path: str, body=None, timeout: float = 600.0):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.endpoint + path, data=data, method=method)
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.loads(r.read() or b"null")

    def client(self, service: str):
        return boto3.client(
            service, endpoint_url=self.endpoint, region_name=REGION,
            aws_access_key_id="test", aws_secret_access_key="test",
            config=Config(retries={"max_attempts": 1, "mode": "standard"},
                          connect_timeout=2, read_timeout=600))


class Campaign:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.binary = os.path.join(ROOT, args.bin) if not os.path.isabs(args.bin) else args.bin
        self.data_dir = tempfile.mkdtemp(prefix="cumulo-crash-")
        self.log = open(os.path.join(self.data_dir, "emulator.log"), "w")
        # The last clock time a move was confirmed at (the clock is not persisted).
        self.clock = T0
        self.acked_messages: set[str] = set()
        self.acked_params: dict[str, str] = {}
        self.acked_schedules: set[str] = set()
        self.acked_stacks: set[str] = set()
        self.kills: dict[str, int] = {}
        self.outages = 0
        self.counter = 0
        self.schedules: dict[str, dict] = {}
        # (queue, body) → the MessageIds received with it: a message received again after a
        # kill cut its delete short counts once.
        self.received: dict[tuple, set] = {}

    # -- set-up ---------------------------------------------------------------------------

    def setup(self, em: Emulator) -> None:
        sqs, sns, sch = em.client("sqs"), em.client("sns"), em.client("scheduler")
        # Fourteen days' retention (SQS's most): the clock runs months ahead, and the queues
        # are drained every round anyway.
        for q in ["c-rate", "c-cron", "c-at", "c-dlq", "c-sns", "c-acks"]:
            sqs.create_queue(QueueName=q, Attributes={"MessageRetentionPeriod": "1209600"})
        topic = sns.create_topic(Name="c-topic")["TopicArn"]
        sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=self.arn("c-sns"),
                      Attributes={"RawMessageDelivery": "true"})
        off = {"Mode": "OFF"}

        def target(arn, **extra):
            return {"Arn": arn, "RoleArn": ROLE,
                    "Input": "<aws.scheduler.schedule-arn>|<aws.scheduler.scheduled-time>",
                    **extra}
        specs = {
            "rate": ("rate(1 minute)", target(self.arn("c-rate"))),
            "cron": ("cron(*/5 * * * ? *)", target(self.arn("c-cron"))),
            "sns": ("rate(2 minutes)", target(topic)),
            "retry": ("rate(10 minutes)", target(
                self.arn("c-missing"),
                RetryPolicy={"MaximumRetryAttempts": 2, "MaximumEventAgeInSeconds": 3600},
                DeadLetterConfig={"Arn": self.arn("c-dlq")})),
        }
        for name, (expr, tgt) in specs.items():
            sch.create_schedule(Name=name, ScheduleExpression=expr, FlexibleTimeWindow=off,
                                Target=tgt)
            self.schedules[name] = {"expression": expr, "created": self.clock}
        for k in range(30):
            at = T0 + dt.timedelta(minutes=7 + 53 * k)
            name = f"at-{k}"
            sch.create_schedule(Name=name, ScheduleExpression=f"at({at.strftime('%Y-%m-%dT%H:%M:%S')})",
                                FlexibleTimeWindow=off, Target=target(self.arn("c-at")))
            self.schedules[name] = {"expression": "at", "at": at, "created": self.clock}

    @staticmethod
    def arn(queue: str) -> str:
        return f"arn:aws:sqs:{REGION}:{ACCOUNT}:{queue}"

    # -- work -----------------------------------------------------------------------------

    def advance(self, em: Emulator, seconds: int) -> None:
        target = self.clock + dt.timedelta(seconds=seconds)
        while True:
            answer = em.control("POST", "/_cumulo/clock", {"set": rfc3339(target)})
            self.clock = parse(answer["now"])
            if answer["complete"]:
                return

    def burst(self, em: Emulator, n: int) -> None:
        sqs, ssm, sch = em.client("sqs"), em.client("ssm"), em.client("scheduler")
        url = sqs.get_queue_url(QueueName="c-acks")["QueueUrl"]
        for _ in range(n):
            self.counter += 1
            k = self.counter
            kind = k % 3
            if kind == 0:
                body = f"ack-{k}"
                sqs.send_message(QueueUrl=url, MessageBody=body)
                self.acked_messages.add(body)
            elif kind == 1:
                ssm.put_parameter(Name=f"/crash/p{k}", Value=f"v{k}", Type="String")
                self.acked_params[f"/crash/p{k}"] = f"v{k}"
            else:
                sch.create_schedule(Name=f"ack-{k}", ScheduleExpression="rate(1 day)",
                                    State="DISABLED", FlexibleTimeWindow={"Mode": "OFF"},
                                    Target={"Arn": self.arn("c-acks"), "RoleArn": ROLE})
                self.acked_schedules.add(f"ack-{k}")

    def create_stack(self, em: Emulator) -> None:
        self.counter += 1
        name = f"crash-{self.counter}"
        cfn = em.client("cloudformation")
        cfn.create_stack(StackName=name, TemplateBody=STACK_TEMPLATE)
        status = cfn.describe_stacks(StackName=name)["Stacks"][0]["StackStatus"]
        if status == "CREATE_COMPLETE":
            self.acked_stacks.add(name)

    def collect(self, em: Emulator) -> None:
        """Receives and deletes what the schedules delivered so far (by MessageId)."""
        sqs = em.client("sqs")
        for queue in ["c-rate", "c-cron", "c-at", "c-sns", "c-dlq", "c-acks"]:
            url = sqs.get_queue_url(QueueName=queue)["QueueUrl"]
            while True:
                got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10,
                                          VisibilityTimeout=60)
                messages = got.get("Messages", [])
                if not messages:
                    break
                for m in messages:
                    self.received.setdefault((queue, m["Body"]), set()).add(m["MessageId"])
                sqs.delete_message_batch(QueueUrl=url, Entries=[
                    {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]}
                    for i, m in enumerate(messages)])

    def work(self, em: Emulator) -> None:
        """Some work, then a SIGKILL at a random moment of the last step."""
        for _ in range(self.rng.randint(0, 3)):
            self.advance(em, self.rng.randint(1, 900))
            self.burst(em, self.rng.randint(0, 20))
        self.collect(em)
        moment = self.rng.choice(["advance", "advance", "stack", "burst", "idle"])
        self.kills[moment] = self.kills.get(moment, 0) + 1
        if moment == "idle":
            em.kill9()
            return
        step = {
            "advance": lambda: self.advance(em, self.rng.randint(600, 7200)),
            "stack": lambda: self.create_stack(em),
            "burst": lambda: self.burst(em, 200),
        }[moment]
        errors = []

        def run():
            try:
                step()
            except Exception as err:  # the kill cuts the call short: not acknowledged
                errors.append(err)
        thread = threading.Thread(target=run)
        thread.start()
        time.sleep(self.rng.uniform(0.0, 0.25))
        em.kill9()
        thread.join()

    def round(self) -> None:
        if self.rng.random() < 0.2:
            # An outage: the clock has moved on while Cumulo was down.
            self.clock += dt.timedelta(seconds=self.rng.randint(600, 86_400 * 3))
            self.outages += 1
        em = Emulator(self.binary, self.data_dir, self.clock, self.log)
        if self.rng.random() < 0.15:
            time.sleep(self.rng.uniform(0.0, 0.05))
            self.kills["startup"] = self.kills.get("startup", 0) + 1
            em.kill9()
            em = Emulator(self.binary, self.data_dir, self.clock, self.log)
        em.wait_ready()
        self.work(em)

    # -- accounting -----------------------------------------------------------------------

    def expected(self, name: str, until: dt.datetime) -> list[dt.datetime]:
        spec = self.schedules[name]
        created = spec["created"]
        if spec["expression"] == "at":
            return [spec["at"]] if created < spec["at"] <= until else []
        if spec["expression"].startswith("rate("):
            minutes = int(spec["expression"][5:].split()[0])
            step = dt.timedelta(minutes=minutes)
            out, t = [], created
            while t <= until:
                out.append(t)
                t += step
            return out
        # cron(*/5 * * * ? *): every fifth minute from creation on (a schedule created on an
        # occurrence's instant fires it, as the dispatcher searches from just before creation).
        out = []
        t = created.replace(second=0, microsecond=0)
        if t < created:
            t += dt.timedelta(minutes=1)
        while t <= until:
            if t.minute % 5 == 0:
                out.append(t)
            t += dt.timedelta(minutes=1)
        return out

    def drain(self, sqs, queue: str) -> list[str]:
        url = sqs.get_queue_url(QueueName=queue)["QueueUrl"]
        bodies = []
        while True:
            got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=3600)
            messages = got.get("Messages", [])
            if not messages:
                return bodies
            for m in messages:
                bodies.append(m["Body"])
            sqs.delete_message_batch(QueueUrl=url, Entries=[
                {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(messages)])

    def account(self, em: Emulator) -> dict:
        sqs, ssm, sch, cfn = (em.client(s) for s in ("sqs", "ssm", "scheduler", "cloudformation"))
        confirmed = self.clock
        # Let pending retries finish (an hour is past the retrying schedule's 60 + 120 s).
        self.advance(em, 3600)
        history = em.control("GET", "/_cumulo/scheduler/invocations?limit=10000000")["invocations"]
        prefix = f"arn:aws:scheduler:{REGION}:{ACCOUNT}:schedule/default/"
        self.collect(em)
        delivered: dict[tuple, int] = {}
        dead: dict[tuple, int] = {}
        for (queue, body), ids in self.received.items():
            if queue in ("c-dlq", "c-acks"):
                continue
            arn, when = body.split("|")
            key = (arn[len(prefix):], parse(when))
            delivered[key] = delivered.get(key, 0) + len(ids)
        for (queue, body), ids in self.received.items():
            if queue != "c-dlq":
                continue
            # The dead-letter body is the materialised request: SendMessage's fields, or the
            # payload itself when the request could not be built.
            request = json.loads(body)
            payload = request["MessageBody"] if isinstance(request, dict) else request
            arn, when = payload.split("|")
            key = (arn[len(prefix):], parse(when))
            dead[key] = dead.get(key, 0) + len(ids)
        dropped: set[tuple] = set()
        dropped_twice: list[tuple] = []
        compact: dict[str, list] = {}
        flagged: set[tuple] = set()
        for rec in history:
            name = rec["schedule_arn"][len(prefix):]
            when = parse(rec["scheduled_time"])
            if rec.get("possible_duplicate"):
                flagged.add((name, when))
            if rec["outcome"] != "dropped":
                continue
            if rec.get("occurrence_count") is not None:
                compact.setdefault(name, []).append(
                    (when, parse(rec["last_scheduled_time"]), rec["occurrence_count"]))
            else:
                if (name, when) in dropped:
                    dropped_twice.append((name, when))
                dropped.add((name, when))
        problems = []
        for name, ranges in compact.items():
            ranges.sort()
            for (f1, l1, _), (f2, l2, _) in zip(ranges, ranges[1:]):
                if f2 <= l1:
                    problems.append(f"{name}: compact records overlap: {f1}..{l1} and {f2}..{l2}")
            for f, l, _ in ranges:
                dropped_twice += [(name, t) for (n, t) in dropped if n == name and f <= t <= l]
        problems += [f"{n} @ {rfc3339(t)} recorded dropped twice" for n, t in dropped_twice]
        totals = {"occurrences": 0, "delivered": 0, "dead_lettered": 0, "dropped": 0,
                  "dropped_compact": 0, "possible_duplicate": 0}
        for name in self.schedules:
            # The retrying schedule's last occurrences may still be retrying: stop 10 min early.
            until = confirmed - dt.timedelta(minutes=10) if name == "retry" else confirmed
            expected = self.expected(name, until)
            in_compact = 0
            for first, last, count in compact.get(name, []):
                covered = [t for t in expected if first <= t <= last]
                if len(covered) != count:
                    problems.append(f"{name}: compact record {first}..{last} says {count}, expected {len(covered)}")
                in_compact += count
            for t in expected:
                totals["occurrences"] += 1
                key = (name, t)
                got = delivered.pop(key, 0) if name != "retry" else dead.pop(key, 0)
                covered = key in dropped or any(f <= t <= l for f, l, _ in compact.get(name, []))
                if got == 1 and not covered:
                    totals["delivered" if name != "retry" else "dead_lettered"] += 1
                elif got == 0 and covered:
                    totals["dropped"] += 1
                elif got == 2 and key in flagged and name == "sns":
                    totals["possible_duplicate"] += 1
                else:
                    problems.append(f"{name} @ {rfc3339(t)}: {got} deliveries, dropped={covered}")
            totals["dropped_compact"] += in_compact
        # Deliveries of occurrences after `confirmed` are from the final hour: fine. Anything
        # else left over was never expected.
        for (name, t), n in list(delivered.items()) + list(dead.items()):
            if t <= confirmed - dt.timedelta(minutes=10) and name in self.schedules:
                problems.append(f"unexpected delivery {name} @ {rfc3339(t)} x{n}")
        # Acknowledged writes.
        got = {body for (queue, body) in self.received if queue == "c-acks"}
        lost_messages = sorted(self.acked_messages - got)
        lost_params = [n for n, v in self.acked_params.items()
                       if self.param(ssm, n) != v]
        lost_schedules = [n for n in self.acked_schedules if not self.schedule_exists(sch, n)]
        lost_stacks = [n for n in self.acked_stacks if self.stack_status(cfn, n) != "CREATE_COMPLETE"]
        for what, lost in [("messages", lost_messages), ("parameters", lost_params),
                           ("schedules", lost_schedules), ("stacks", lost_stacks)]:
            if lost:
                problems.append(f"acknowledged {what} lost: {lost[:10]} ({len(lost)})")
        return {
            "rounds": self.rounds_done, "kills": self.kills, "outages": self.outages,
            "clock": rfc3339(confirmed), **totals,
            "acked": {"messages": len(self.acked_messages), "parameters": len(self.acked_params),
                      "schedules": len(self.acked_schedules), "stacks": len(self.acked_stacks)},
            "problems": problems[:50], "n_problems": len(problems),
        }

    @staticmethod
    def param(ssm, name):
        try:
            return ssm.get_parameter(Name=name)["Parameter"]["Value"]
        except ssm.exceptions.ParameterNotFound:
            return None

    @staticmethod
    def schedule_exists(sch, name):
        try:
            sch.get_schedule(Name=name)
            return True
        except sch.exceptions.ResourceNotFoundException:
            return False

    @staticmethod
    def stack_status(cfn, name):
        try:
            return cfn.describe_stacks(StackName=name)["Stacks"][0]["StackStatus"]
        except Exception:
            return None

    def run(self) -> int:
        started = time.monotonic()
        em = Emulator(self.binary, self.data_dir, self.clock, self.log)
        em.wait_ready()
        self.setup(em)
        em.kill9()
        self.rounds_done = 0
        while self.rounds_done < self.args.rounds:
            if self.args.seconds and time.monotonic() - started > self.args.seconds:
                break
            self.round()
            self.rounds_done += 1
        em = Emulator(self.binary, self.data_dir, self.clock, self.log)
        em.wait_ready()
        try:
            report = self.account(em)
        finally:
            em.kill9()
        report["wall_seconds"] = round(time.monotonic() - started, 1)
        print(json.dumps(report))
        if report["n_problems"]:
            print(f"crash campaign: {report['n_problems']} problems; data and log kept in {self.data_dir}",
                  file=sys.stderr)
            return 1
        self.log.close()
        shutil.rmtree(self.data_dir, ignore_errors=True)
        return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bin", default="target/release/cumulo")
    return Campaign(parser.parse_args()).run()


if __name__ == "__main__":
    sys.exit(main())
