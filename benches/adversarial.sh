#!/usr/bin/env bash
# Wall time and peak RSS of the release binary on every adversarial layout
# (fixtures/adversarial/*/layout.json), next to the `sophia-floor` baseline fed the same stdin.
#
#   benches/adversarial.sh               # every layout
#   ONLY=t- RUNS=5 benches/adversarial.sh
#
# Each layout is materialised by the ignored test `materialise_for_bench` of tests/it/adversarial.rs
# (the harness's own builder, so the bench and the test see the same repository), then run with
# the layout's command line, environment and cwd: `cold` is the median of RUNS runs each after
# wiping this machine's cache (as in a fresh clone), `warm` the median of RUNS runs that find it.
# Peak RSS is the maximum over all runs, from GNU time. A run is killed after 3 s (it then reports
# about 3,000 ms and the RSS of `timeout`, not of the hook). Targets: 150 ms and 64 MiB per hook
# run (docs/security.md).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
runs=${RUNS:-5}
only=${ONLY:-}

timer=/usr/bin/time
if ! "$timer" -f %M true >/dev/null 2>&1; then
  (apt-get update -qq && apt-get install -y -qq time) >/dev/null 2>&1 || true
fi

cargo build --release --locked --quiet --features bench-floor --bins
bin=$root/target/release/sophia-hook
floor=$root/target/release/sophia-floor

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ADVERSARIAL_OUT=$work ADVERSARIAL_ONLY=$only \
  cargo test --locked --quiet --test it adversarial::materialise_for_bench -- --ignored >/dev/null

# run BINARY LAYOUT_DIR -> "wall_ms max_rss_kib" of one run.
run() {
  local exe=$1 dir=$2 out ms0 ms1 rss
  local -a args env
  mapfile -d '' args <"$dir/args" || true
  mapfile -d '' env <"$dir/env" || true
  ms0=$(date +%s%N)
  # GNU time outside timeout: a killed hook is still measured, and never left running.
  out=$(cd "$dir/project" && env -i "${env[@]}" "$timer" -f 'RSS %M' \
    timeout -s KILL 3 "$exe" "${args[@]}" <"$dir/stdin" 2>&1 >/dev/null | grep '^RSS ' || true)
  ms1=$(date +%s%N)
  rss=${out#RSS }
  echo "$(((ms1 - ms0) / 1000000)) ${rss:-0}"
}

# A layout that reads a transcript since a recorded hint (issue 46, `transcriptGrown`): the
# record is put back before each run, which would otherwise move it to the file's end.
restore_hints() {
  if [[ -f $1/hints.json ]]; then
    mkdir -p "$1/home/.cache/sophia-hook"
    cp "$1/hints.json" "$1/home/.cache/sophia-hook/hints.json"
  fi
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

printf '| layout | cold ms | warm ms | floor ms | max RSS MiB | floor RSS MiB | ≤150 ms, ≤64 MiB |\n'
printf '|---|---:|---:|---:|---:|---:|---|\n'
for dir in "$work"/*/; do
  dir=${dir%/}
  name=$(basename "$dir")
  # Cold: this machine's cache of the project wiped before each run, as in a fresh clone.
  colds=()
  max_rss=0
  for _ in $(seq "$runs"); do
    rm -rf "$dir/home/.cache/sophia-hook"
    restore_hints "$dir"
    read -r ms rss <<<"$(run "$bin" "$dir")"
    colds+=("$ms")
    ((rss > max_rss)) && max_rss=$rss
  done
  cold=$(printf '%s\n' "${colds[@]}" | median)
  walls=()
  for _ in $(seq "$runs"); do
    restore_hints "$dir"
    read -r ms rss <<<"$(run "$bin" "$dir")"
    walls+=("$ms")
    ((rss > max_rss)) && max_rss=$rss
  done
  warm=$(printf '%s\n' "${walls[@]}" | median)
  fwalls=()
  frss=0
  for _ in $(seq "$runs"); do
    read -r ms rss <<<"$(run "$floor" "$dir")"
    fwalls+=("$ms")
    ((rss > frss)) && frss=$rss
  done
  fwarm=$(printf '%s\n' "${fwalls[@]}" | median)
  worst=$((cold > warm ? cold : warm))
  verdict=yes
  ((worst > 150 || max_rss > 65536)) && verdict=NO
  printf '| %s | %d | %d | %d | %.1f | %.1f | %s |\n' "$name" "$cold" "$warm" "$fwarm" \
    "$(echo "$max_rss / 1024" | bc -l)" "$(echo "$frss / 1024" | bc -l)" "$verdict"
done
