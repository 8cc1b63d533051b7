#!/usr/bin/env bash
# How `sophia-hook report` grows with the analytics log: the week fixture repeated 10x, 100x and
# 1000x, each timed in the same run next to `sophia-hook stats` over the same file (the baseline:
# the same streamed summary without the page), with the peak RSS of both from GNU time. Both
# stream the log: both RSS columns stay flat as the file grows.
#
#   benches/report-scale.sh          # SOPHIA_BIN picks the binary (default target/release/sophia-hook)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${SOPHIA_BIN:-target/release/sophia-hook}
[[ -x $bin ]] || cargo build --release --locked --quiet
bin=$(realpath "$bin")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/project/.git"

measure() { # prints "seconds peak-KiB"
  /usr/bin/time -f '%e %M' -o "$work/t" "$@" >/dev/null
  cat "$work/t"
}
printf '%-8s %9s %8s %10s %10s %8s %16s %15s\n' repeat lines MiB 'report s' 'stats s' ratio 'report RSS MiB' 'stats RSS MiB'
for repeat in 10 100 1000; do
  log=$work/log.jsonl
  : >"$log"
  for _ in $(seq "$repeat"); do cat fixtures/analytics/week.jsonl; done >"$log"
  lines=$(wc -l <"$log")
  mib=$(( $(stat -c %s "$log") / 1048576 ))
  read -r rs rk < <(measure env -i PATH="$PATH" HOME="$work/home" "$bin" report \
    --root "$work/project" --file "$log" --since 2026-11-23 --out "$work/page.html")
  read -r ws wk < <(measure env -i PATH="$PATH" HOME="$work/home" "$bin" stats --file "$log" \
    --since 2026-11-23)
  ratio=$(awk -v a="$rs" -v b="$ws" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')
  printf '%-8s %9s %8s %10s %10s %8s %16s %15s\n' "${repeat}x" "$lines" "$mib" "$rs" "$ws" "$ratio" \
    "$(( rk / 1024 ))" "$(( wk / 1024 ))"
done
