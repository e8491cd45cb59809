#!/usr/bin/env bash
# Dispatch benchmark (docs/benchmarks.md): N rate(1 minute) schedules on the real clock
# targeting Q SQS queues that consumers drain, for M minutes; every occurrence delivered once,
# lateness percentiles (SentTimestamp minus scheduled time) and the emulator's RSS.
#
#   benches/scripts/dispatch.sh [N=100000] [Q=100] [M=3]
set -euo pipefail
cd "$(dirname "$0")/../.."
N="${1:-100000}"; Q="${2:-100}"; M="${3:-3}"
cargo build --release --quiet --bin cumulo --example dispatch_load
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
env -u CUMULO_DATA_DIR CUMULO_PORT="$PORT" CUMULO_LOG=warn target/release/cumulo & PID=$!
trap 'kill $PID 2>/dev/null || true' EXIT
until curl -sf "http://127.0.0.1:$PORT/_cumulo/health" >/dev/null; do sleep 0.05; done
( peak=0; while kill -0 $PID 2>/dev/null; do
    r=$(awk '/VmRSS/ {print $2}' /proc/$PID/status 2>/dev/null || echo 0); [ "${r:-0}" -gt "$peak" ] && peak=$r
    echo "$peak" > /tmp/cumulo-dispatch-peak-rss; sleep 1; done ) &
target/release/examples/dispatch_load --endpoint "http://127.0.0.1:$PORT" --schedules "$N" --queues "$Q" --minutes "$M"
echo "RSS at the end: $(awk '/VmRSS/ {printf "%.1f MiB", $2/1024}' /proc/$PID/status); peak $(awk '{printf "%.1f MiB", $1/1024}' /tmp/cumulo-dispatch-peak-rss)"
