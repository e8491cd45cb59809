"""Helpers shared by the benchmark scripts (docs/benchmarks.md): starting and stopping the
emulator and moto, reading /proc, waiting for a quiet machine, running wrk, and summarising
repeated measurements as a median and a spread. Python standard library only."""

import http.client
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def load1() -> float:
    with open("/proc/loadavg", encoding="ascii") as f:
        return float(f.read().split()[0])


def wait_quiet(threshold: float | None = None, max_wait: float | None = None, poll: float = 30.0) -> float:
    """Waits until the 1-minute load average is below `threshold` (env BENCH_MAX_LOAD, default
    1.0), polling every `poll` seconds for at most `max_wait` seconds (env BENCH_MAX_WAIT,
    default 1200). Returns the load average at which the measurement starts (printed, so every
    figure says under which load it was taken)."""
    if threshold is None:
        threshold = float(os.environ.get("BENCH_MAX_LOAD", "1.0"))
    if max_wait is None:
        max_wait = float(os.environ.get("BENCH_MAX_WAIT", "1200"))
    deadline = time.monotonic() + max_wait
    while True:
        now = load1()
        if now < threshold or time.monotonic() >= deadline:
            if now >= threshold:
                print(f"  (load still {now:.2f} after {max_wait:.0f} s; measuring anyway; busy now: "
                      f"{busy_processes()})", flush=True)
            return now
        wait = min(poll, max(deadline - time.monotonic(), 0.0))
        print(f"  load average {now:.2f} >= {threshold}; waiting {wait:.0f} s", flush=True)
        time.sleep(wait)


def busy_processes(limit: int = 3) -> str:
    """The processes using the CPU right now, from one `top` snapshot: `command (nice N, C% CPU)`,
    so a figure taken under load says whether the competition ran at low priority."""
    try:
        out = subprocess.run(["top", "-bn1", "-w", "200"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    rows = []
    lines = out.splitlines()
    start = next((i for i, line in enumerate(lines) if line.lstrip().startswith("PID")), None)
    for line in lines[start + 1:] if start is not None else []:
        f = line.split()
        if len(f) >= 12 and float(f[8].replace(",", ".")) >= 5.0 and f[11] != "top":
            rows.append(f"{f[11]} (nice {f[3]}, {f[8]}% CPU)")
    return ", ".join(rows[:limit]) or "nothing"


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used so far, in seconds."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def health(port: int, path: str = "/_cumulo/health") -> bool:
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
        conn.request("GET", path)
        ok = conn.getresponse().status == 200
        conn.close()
        return ok
    except OSError:
        return False


class Cumulo:
    """A release binary on a free loopback port; `env` adds CUMULO_* variables (the caller's
    own CUMULO_* are dropped). stderr (the log) goes to `log_path` when given."""

    def __init__(self, binary: str = "target/release/cumulo", env: dict | None = None,
                 log_path: str | None = None, port: int | None = None):
        self.port = port or free_port()
        full_env = {k: v for k, v in os.environ.items() if not k.startswith("CUMULO_")}
        full_env.update({"CUMULO_PORT": str(self.port), "CUMULO_LOG": "warn"})
        full_env.update(env or {})
        self.log = open(log_path, "w", encoding="utf-8") if log_path else subprocess.DEVNULL
        self.started = time.perf_counter()
        self.proc = subprocess.Popen([os.path.join(ROOT, binary)], env=full_env,
                                     stdout=subprocess.DEVNULL, stderr=self.log)
        self.ready_after = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def wait_ready(self, timeout: float = 120.0, poll: float = 0.0005) -> float:
        """Seconds from spawn to the first 200 from /_cumulo/health."""
        while not health(self.port):
            if self.proc.poll() is not None:
                raise RuntimeError("the emulator exited before answering")
            if time.perf_counter() - self.started > timeout:
                raise RuntimeError(f"no health answer within {timeout} s")
            time.sleep(poll)
        self.ready_after = time.perf_counter() - self.started
        return self.ready_after

    def rss_mib(self) -> float:
        return rss_kib(self.proc.pid) / 1024

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.log is not subprocess.DEVNULL:
            self.log.close()


class Moto:
    """moto_server (from a throwaway venv, see moto_python()) on a free loopback port."""

    def __init__(self, python: str):
        self.port = free_port()
        self.python = python
        moto_server = os.path.join(os.path.dirname(python), "moto_server")
        self.started = time.perf_counter()
        self.proc = subprocess.Popen([moto_server, "-H", "127.0.0.1", "-p", str(self.port)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while not health(self.port, "/moto-api/"):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("moto_server did not start")
            time.sleep(0.05)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def rss_mib(self) -> float:
        return rss_kib(self.proc.pid) / 1024

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)


def moto_python() -> str:
    """The python of the throwaway venv holding moto[server] and boto3 (env MOTO_VENV, default
    /tmp/cumulo-bench-moto), created on first use with pip."""
    venv = os.environ.get("MOTO_VENV", "/tmp/cumulo-bench-moto")
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(os.path.join(venv, "bin", "moto_server")):
        print(f"installing moto[server] and boto3 into {venv}", flush=True)
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        "moto[server]", "boto3"], check=True)
    return python


def aws_cli() -> str:
    """The aws CLI 1.45.11 that scripts/test installs into ./.venv (installed here if absent)."""
    venv = os.path.join(ROOT, ".venv")
    aws = os.path.join(venv, "bin", "aws")
    python = os.path.join(venv, "bin", "python")
    check = "import awscli, sys; sys.exit(awscli.__version__ != '1.45.11')"
    if not os.path.exists(python) or subprocess.run([python, "-c", check]).returncode != 0:
        print("installing awscli==1.45.11 into .venv", flush=True)
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        "awscli==1.45.11"], check=True)
    return aws


def aws_env(endpoint: str) -> dict:
    """A hermetic environment for the aws CLI and boto3: test credentials, us-east-1, no
    profile or config file, no proxy, the endpoint."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("AWS_") and k.lower() not in ("http_proxy", "https_proxy", "all_proxy")}
    env.update({
        "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
        "AWS_DEFAULT_REGION": "us-east-1", "AWS_CONFIG_FILE": "/dev/null",
        "AWS_SHARED_CREDENTIALS_FILE": "/dev/null", "AWS_ENDPOINT_URL": endpoint,
        "AWS_MAX_ATTEMPTS": "1", "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
    })
    return env


WRK_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def wrk(url: str, script: str, env: dict, connections: int = 64, threads: int = 2,
        seconds: int = 10) -> dict:
    """Runs wrk with --latency; returns requests/s, p50/p90/p99 latency (ms), errors."""
    if shutil.which("wrk") is None:
        raise RuntimeError("wrk is not installed")
    out = subprocess.run(
        ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency", "-s", script, url],
        env={**os.environ, **env}, check=True, capture_output=True, text=True).stdout
    result = {"rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)), "errors": 0}
    for label, key in (("50%", "p50"), ("90%", "p90"), ("99%", "p99")):
        m = re.search(rf"^\s+{label}\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
        result[key] = float(m.group(1)) * WRK_UNITS[m.group(2)]
    m = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    if m:
        result["errors"] += int(m.group(1))
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    if m:
        result["errors"] += sum(int(x) for x in m.groups())
    return result


def summary(values: list[float], unit: str = "", digits: int = 1) -> str:
    """`median (min–max, n runs)`."""
    if not values:
        return "no runs"
    med = statistics.median(values)
    return (f"{med:.{digits}f}{unit} (min {min(values):.{digits}f}, max {max(values):.{digits}f}, "
            f"{len(values)} runs)")
