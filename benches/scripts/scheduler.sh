#!/usr/bin/env bash
# Scheduler API benchmark (docs/benchmarks.md, "Scheduler API"): CreateSchedule throughput, RSS
# with N stored schedules, paging all N with ListSchedules from the AWS SDK for Rust, GetSchedule
# throughput and latency with wrk at 64 connections, and moto's GetSchedule beside it.
#
#   benches/scripts/scheduler.sh [--schedules N] [--runs R] [--data-dir] [--no-moto]
#
# Needs wrk and python3. The binary and the load driver are built separately so the binary is
# exactly `cargo build --release` (building it with an example would unify the dev-dependency
# features of tokio into it).
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release --quiet --bin cumulo
cargo build --release --quiet --example scheduler_load
exec python3 benches/scripts/scheduler.py "$@"
