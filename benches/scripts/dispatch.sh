#!/usr/bin/env bash
# Dispatch benchmark (docs/benchmarks.md, "Dispatch"): N rate(1 minute) schedules on the real
# clock targeting Q SQS queues that consumers drain, for M minutes after the last one is created;
# every occurrence delivered once, lateness percentiles (SentTimestamp minus scheduled time),
# the emulator's RSS (peak and at the end) and CPU time.
#
#   benches/scripts/dispatch.sh [N=100000] [Q=100] [M=3] [-- extra dispatch_load flags]
#   DATA_DIR=1 benches/scripts/dispatch.sh 10000     # on a fresh CUMULO_DATA_DIR
#
#   EMULATOR_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 benches/scripts/dispatch.sh ...
#                                    # the emulator alone with another allocator (an experiment)
#
# Waits for a quiet machine first (1-minute load average below BENCH_MAX_LOAD, default 1.0, for
# up to 20 min). Extra flags go to examples/dispatch_load.rs (e.g. --create-rate 1667).
set -euo pipefail
cd "$(dirname "$0")/../.."
N="${1:-100000}"; Q="${2:-100}"; M="${3:-3}"
shift $(( $# < 3 ? $# : 3 )); [ "${1:-}" = "--" ] && shift
cargo build --release --quiet --bin cumulo
cargo build --release --quiet --example dispatch_load
python3 -c 'import sys; sys.path.insert(0, "benches/scripts"); import benchlib; print(f"load average at start: {benchlib.wait_quiet():.2f}")'
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
DIR=""
if [ -n "${DATA_DIR:-}" ]; then DIR=$(mktemp -d /tmp/cumulo-dispatch-XXXXXX); fi
PEAK=$(mktemp /tmp/cumulo-dispatch-peak-XXXXXX)
if [ -n "$DIR" ]; then
  env ${EMULATOR_PRELOAD:+LD_PRELOAD="$EMULATOR_PRELOAD"} CUMULO_DATA_DIR="$DIR" CUMULO_PORT="$PORT" CUMULO_LOG=warn target/release/cumulo & PID=$!
else
  env -u CUMULO_DATA_DIR ${EMULATOR_PRELOAD:+LD_PRELOAD="$EMULATOR_PRELOAD"} CUMULO_PORT="$PORT" CUMULO_LOG=warn target/release/cumulo & PID=$!
fi
trap 'kill $PID 2>/dev/null || true; rm -f "$PEAK"; [ -n "$DIR" ] && rm -rf "$DIR"' EXIT
until curl -sf "http://127.0.0.1:$PORT/_cumulo/health" >/dev/null; do sleep 0.05; done
echo "emulator: $([ -n "$DIR" ] && echo "data directory $DIR" || echo "in memory")${EMULATOR_PRELOAD:+, LD_PRELOAD=$EMULATOR_PRELOAD}, idle RSS $(awk '/VmRSS/ {printf "%.1f MiB", $2/1024}' /proc/$PID/status)"
( while kill -0 $PID 2>/dev/null; do
    r=$(awk '/VmRSS/ {print $2}' /proc/$PID/status 2>/dev/null || echo 0)
    p=$(cat "$PEAK" 2>/dev/null || echo 0); [ "${r:-0}" -gt "${p:-0}" ] && echo "$r" > "$PEAK"
    sleep 1; done ) &
target/release/examples/dispatch_load --endpoint "http://127.0.0.1:$PORT" --schedules "$N" --queues "$Q" --minutes "$M" "$@"
ticks=$(getconf CLK_TCK)
echo "emulator: RSS at the end $(awk '/VmRSS/ {printf "%.1f MiB", $2/1024}' /proc/$PID/status), peak $(awk '{printf "%.1f MiB", $1/1024}' "$PEAK"), CPU $(awk -v t="$ticks" '{printf "%.1f s", ($14+$15)/t}' /proc/$PID/stat)"
if [ -n "$DIR" ]; then echo "data directory: $(du -sh "$DIR" | cut -f1)"; fi
