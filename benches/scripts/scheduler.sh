#!/usr/bin/env bash
# Scheduler API benchmark (docs/benchmarks.md): CreateSchedule throughput, RSS with N stored
# schedules, GetSchedule throughput and latency with wrk at 64 connections, and paging all N
# with ListSchedules from the AWS SDK for Rust. Public tools: wrk, /proc, the SDK.
#
#   benches/scripts/scheduler.sh [N=100000]
# Needs wrk (Debian package) and a release build (it runs `cargo build --release --example`).
set -euo pipefail
cd "$(dirname "$0")/../.."
N="${1:-100000}"
cargo build --release --quiet --bin cumulo --example scheduler_load
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
env -u CUMULO_DATA_DIR CUMULO_PORT="$PORT" CUMULO_LOG=warn CUMULO_SCHEDULER_INVOCATION_ENABLED="${DISPATCH:-true}" \
  target/release/cumulo & PID=$!
trap 'kill $PID 2>/dev/null || true' EXIT
until curl -sf "http://127.0.0.1:$PORT/_cumulo/health" >/dev/null; do sleep 0.05; done
rss() { awk '/VmRSS/ {printf "%.1f MiB", $2/1024}' /proc/$PID/status; }
echo "idle RSS: $(rss)"
target/release/examples/scheduler_load --endpoint "http://127.0.0.1:$PORT" --schedules "$N" --concurrency 64
echo "RSS with $N schedules: $(rss)"
SCHEDULES="$N" wrk -t2 -c64 -d10s --latency -s benches/scripts/get_schedule.lua "http://127.0.0.1:$PORT" \
  | grep -E "Requests/sec|Latency|50%|90%|99%"
echo "RSS after the GetSchedule load: $(rss)"
