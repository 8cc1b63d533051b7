#!/usr/bin/env bash
# Whole-process latency of sophia-hook against a native floor, measured side by side in one run.
#
#   benches/hook-latency.sh            # prints the table and rewrites the latency section of docs/performance.md
#   RUNS=300 benches/hook-latency.sh   # more runs per row
#
# Every row is timed by hyperfine (no shell: -N, the payload on stdin with --input) next to the
# floor — `sophia-floor`, a native binary of this repository that reads stdin to EOF and prints {}
# — built with the same release profile and fed the same payload, so each ratio compares like with
# like. Peak RSS comes from GNU time, the binary size from a stripped copy.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
runs=${RUNS:-200}
warmup=${WARMUP:-20}

# hyperfine with --input and -N (Debian's package when recent enough, else a pinned cargo install).
hyperfine=hyperfine
if ! { command -v hyperfine >/dev/null && hyperfine --help | grep -q -- '--input'; }; then
  if ! command -v hyperfine >/dev/null && command -v apt-get >/dev/null; then
    (apt-get update -qq && apt-get install -y -qq hyperfine) >/dev/null 2>&1 || true
  fi
  if ! { command -v hyperfine >/dev/null && hyperfine --help | grep -q -- '--input'; }; then
    cargo install hyperfine --version 1.20.0 --locked --root "$root/target/tools" >/dev/null 2>&1
    hyperfine=$root/target/tools/bin/hyperfine
  fi
fi
timer=/usr/bin/time
if ! "$timer" -f %M true >/dev/null 2>&1; then
  (apt-get update -qq && apt-get install -y -qq time) >/dev/null 2>&1 || true
fi

cargo build --release --locked --quiet --features bench-floor --bins
bin=$root/target/release/sophia-hook
floor=$root/target/release/sophia-floor

rust_version=$(rustc -V | cut -d' ' -f1-2)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work/home SOPHIA_ANALYTICS=off
mkdir -p "$HOME" "$work/empty/.git"

payload() { # file, event, prompt, cwd
  printf '{"session_id":"bench","turn_id":"t1","transcript_path":null,"cwd":"%s","hook_event_name":"%s","model":"gpt-5.5","permission_mode":"default","prompt":"%s"}' "$4" "$2" "$3" >"$1"
}
payload "$work/typical.json" UserPromptSubmit "esegui una query sul database per verificare i record della tabella clienti" "$work/empty"
payload "$work/quick.json" UserPromptSubmit "!quick spiegami questa SQL" "$work/empty"
payload "$work/agents.json" UserPromptSubmit "!agents analizza il ticket Mantis 123 e ricostruisci la causa" "$work/empty"
printf '{"session_id":"bench","transcript_path":null,"cwd":"%s","hook_event_name":"SessionStart","model":"gpt-5.5","permission_mode":"default","source":"startup"}' "$work/empty" >"$work/session.json"

# A generated project with 1,000 skills: a fresh compiled index, and a copy whose index is stale.
gen=$work/p1000
benches/gen-p1000.sh "$gen"
"$bin" skills index --root "$gen" >/dev/null
cp -r "$gen" "$work/p1000-stale"
touch "$work/p1000-stale/skills/gen-skill-0500/SKILL.md"
cp -r "$gen" "$work/p1000-noindex"
rm -r "$work/p1000-noindex/.sophia"
# Skill folders modified in the last 2 s are checked in full on every prompt (their time may not
# have moved yet); a real inventory is not being edited while it is used.
find "$work"/p1000* -type d -exec touch -d '-1 minute' {} +
payload "$work/fresh.json" UserPromptSubmit "please use zeta499x on the report" "$gen"
payload "$work/stale.json" UserPromptSubmit "please use zeta499x on the report" "$work/p1000-stale"
payload "$work/noindex.json" UserPromptSubmit "please use zeta499x on the report" "$work/p1000-noindex"
# A cache folder that cannot be created: no freshness stamp and no cached copy, so every run
# checks the sources in full (what one prompt per freshness window pays) or scans them.
nocache=$work/nocache
touch "$nocache"

# Large prompts: the request first, then pasted log lines up to the size.
big() { # file, bytes
  local line='2026-11-29 10:00:01 ERROR OrderService timeout after 30000 ms on /api/orders/4521 | '
  {
    printf '{"hook_event_name":"UserPromptSubmit","cwd":"%s","prompt":"!quick analizza questi log ' "$work/empty"
    (yes "$line" || true) | tr -d '\n' | head -c "$2" || true
    printf '"}'
  } >"$1"
}
big "$work/p10k.json" 10240
big "$work/p1m.json" 1048576
big "$work/p8m.json" 8388608

node_cmd=
if command -v node >/dev/null; then
  cat >"$work/floor.js" <<'EOF'
process.stdin.resume();
process.stdin.on('data', () => {});
process.stdin.on('end', () => process.stdout.write('{}\n'));
EOF
  node_cmd="node $work/floor.js"
fi

rows=()
# measure NAME PAYLOAD COMMAND: times the floor and the command on the same payload.
measure() {
  local name=$1 input=$2 cmd=$3 csv=$work/$RANDOM.csv
  "$hyperfine" -N --warmup "$warmup" --runs "$runs" --input "$input" --export-csv "$csv" \
    ${PREPARE:+--prepare "$PREPARE"} \
    -n floor "$floor" -n "$name" "$cmd" >"$csv.log" 2>&1 || { cat "$csv.log" >&2; return 1; }
  [ -n "${DEBUG_BENCH:-}" ] && cat "$csv" >&2
  local f c rss
  # The median is the fifth field from the end (command names may contain commas).
  f=$(awk -F, 'NR==2 {print $(NF-4)}' "$csv")
  c=$(awk -F, 'NR==3 {print $(NF-4)}' "$csv")
  rss=$("$timer" -f %M $cmd <"$input" 2>&1 >/dev/null | tail -n 1)
  rows+=("$(awk -v n="$name" -v f="$f" -v c="$c" -v r="$rss" 'BEGIN { printf "| %s | %.3f | %.3f | %.2f× | %.1f |", n, c*1000, f*1000, c/f, r/1024 }')")
}

measure "default catalog, typical prompt" "$work/typical.json" "$bin"
measure "default catalog, !quick" "$work/quick.json" "$bin"
measure "default catalog, !agents" "$work/agents.json" "$bin"
measure "default catalog, SessionStart" "$work/session.json" "$bin"
measure "1,000 skills, fresh index" "$work/fresh.json" "$bin"
# The freshness stamp dated back before every run: a full check of every SKILL.md that finds the
# index it validated unchanged (what a prompt pays when the previous one is over a minute old).
expired=$work/cache-expired
SOPHIA_CACHE_DIR=$expired "$bin" <"$work/fresh.json" >/dev/null
stamp=$(find "$expired" -name '*.fresh')
SOPHIA_CACHE_DIR=$expired PREPARE="sed -i -E 's/^F\t1\t[0-9]+/F\t1\t1000/' $stamp" \
  measure "1,000 skills, fresh index, stamp expired" "$work/fresh.json" "$bin"
SOPHIA_CACHE_DIR=$nocache/x measure "1,000 skills, fresh index, full check" "$work/fresh.json" "$bin"
measure "1,000 skills, stale index (cached copy)" "$work/stale.json" "$bin"
SOPHIA_CACHE_DIR=$nocache/x measure "1,000 skills, no index (scan and compile)" "$work/noindex.json" "$bin"
measure "10 KiB prompt" "$work/p10k.json" "$bin"
measure "1 MiB prompt" "$work/p1m.json" "$bin"
measure "8 MiB prompt" "$work/p8m.json" "$bin"
if [ -n "$node_cmd" ]; then
  measure "node floor (reads stdin, prints {})" "$work/typical.json" "$node_cmd"
fi

strip -o "$work/stripped" "$bin"
size=$(stat -c %s "$work/stripped")
cpu=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || echo unknown)
machine="$(nproc) cores, ${cpu:-unknown CPU}, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), Linux $(uname -r), $rust_version, hyperfine $("$hyperfine" --version | cut -d' ' -f2)"

table=$(
  echo "Measured $(date -u +%Y-%m-%d) on: $machine."
  echo "Median of $runs runs after $warmup warm-ups per row, each row timed next to the floor on the same payload."
  echo
  echo "| row | median (ms) | floor median (ms) | ratio to floor | peak RSS (MiB) |"
  echo "|---|---:|---:|---:|---:|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Stripped binary: $((size / 1024)) KiB."
)
printf '%s\n' "$table"

doc=$root/docs/performance.md
if [ -f "$doc" ] && grep -q '<!-- latency:start -->' "$doc"; then
  awk -v table="$table" '
    /<!-- latency:start -->/ { print; print table; skip = 1; next }
    /<!-- latency:end -->/ { skip = 0 }
    !skip { print }
  ' "$doc" >"$doc.tmp" && mv "$doc.tmp" "$doc"
  echo "updated $doc"
fi
