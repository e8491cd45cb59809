#!/usr/bin/env bash
# Runs the fuzz targets for a while each (docs/reliability.md, "Fuzzing"):
#
#   fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]     default: 20 s, every target
#
# Installs cargo-fuzz (pinned) into ~/.cache/cumulo-tools once, builds the targets into
# ~/.cache/cumulo-fuzz-target (kept between runs, so a second run only rebuilds what changed),
# seeds fuzz/corpus/ (fuzz/seed.py), then runs each target with a per-input memory limit.
# The machine has a stable toolchain only: RUSTC_BOOTSTRAP=1 lets cargo-fuzz pass the
# sanitizer flags it needs. A crash leaves its input in fuzz/artifacts/<target>/ and fails.
set -euo pipefail
cd "$(dirname "$0")"

SECONDS_PER_TARGET="${1:-20}"
shift || true
TARGETS=("$@")
[[ ${#TARGETS[@]} -gt 0 ]] || TARGETS=(template schedule_expression sns_filter_policy wire)

CARGO_FUZZ_VERSION=0.13.2
TOOLS="${CUMULO_TOOLS:-$HOME/.cache/cumulo-tools}"
export CARGO_TARGET_DIR="${CUMULO_FUZZ_TARGET_DIR:-$HOME/.cache/cumulo-fuzz-target}"
export RUSTC_BOOTSTRAP=1
if ! "$TOOLS/bin/cargo-fuzz" --version 2>/dev/null | grep -q "$CARGO_FUZZ_VERSION"; then
  echo "fuzz/run.sh: installing cargo-fuzz $CARGO_FUZZ_VERSION into $TOOLS" >&2
  cargo install --locked --quiet --version "$CARGO_FUZZ_VERSION" --root "$TOOLS" cargo-fuzz
fi
python3 seed.py >&2
# ASan costs a full instrumented build of every dependency (85 min on a loaded 2-core machine);
# safe Rust needs no sanitizer to find panics, hangs and memory blow-ups, so the default is none.
# CUMULO_FUZZ_SANITIZER=address for a long campaign.
SANITIZER="${CUMULO_FUZZ_SANITIZER:-none}"
"$TOOLS/bin/cargo-fuzz" build -O -s "$SANITIZER"
log="$(mktemp)"
for target in "${TARGETS[@]}"; do
  echo "::: fuzz $target for ${SECONDS_PER_TARGET}s" >&2
  status=0
  "$TOOLS/bin/cargo-fuzz" run -O -s "$SANITIZER" "$target" "corpus/$target" -- \
    -max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb=2048 -malloc_limit_mb=1024 \
    -timeout=10 -detect_leaks=0 -print_final_stats=1 >"$log" 2>&1 || status=$?
  grep -E "^(#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::peak_rss_mb)" "$log" >&2 || true
  if [[ "$status" -ne 0 ]]; then
    tail -n 60 "$log" >&2
    echo "fuzz/run.sh: $target failed (exit $status); its input is in fuzz/artifacts/$target/" >&2
    exit 1
  fi
done
rm -f "$log"
