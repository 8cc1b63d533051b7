#!/usr/bin/env bash
# Instructions per hook run under callgrind, next to the floor binary: a repeatable figure where
# wall time on a shared machine is not (see docs/performance.md).
#
#   benches/hook-instructions.sh          # builds the release binaries, prints the table
#   BIN=path/to/sophia-hook benches/hook-instructions.sh   # another build of the hook (before/after;
#                                                           one that knows --time-budget-ms)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install -y valgrind)" >&2; exit 1; }
if [ -z "${BIN:-}" ] || [ ! -x target/release/sophia-floor ]; then
  cargo build --release --locked --quiet --features bench-floor --bins
fi
bin=${BIN:-$PWD/target/release/sophia-hook}
floor=$PWD/target/release/sophia-floor
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Valgrind is ~50x slower: a raised budget keeps the run from degrading. The flag, not
# SOPHIA_TIME_BUDGET_MS, which is clamped to 150 ms (a repository can set it for a host's hooks).
budget=--time-budget-ms=100000
export HOME=$work/home SOPHIA_ANALYTICS=off
mkdir -p "$HOME" "$work/empty/.git"

payload() { # file, prompt, cwd
  printf '{"session_id":"bench","turn_id":"t1","transcript_path":null,"cwd":"%s","hook_event_name":"UserPromptSubmit","model":"gpt-5.5","permission_mode":"default","prompt":"%s"}' "$3" "$2" >"$1"
}
# The 1,000-skill project of benches/hook-latency.sh.
gen=$work/p1000
benches/gen-p1000.sh "$gen"
cp -r "$gen" "$work/p1000-noindex"
"$bin" skills index --root "$gen" >/dev/null
find "$work"/p1000* -type d -exec touch -d '-1 minute' {} +
payload "$work/typical.json" "esegui una query sul database per verificare i record della tabella clienti" "$work/empty"
payload "$work/fresh.json" "please use zeta499x on the report" "$gen"
payload "$work/noindex.json" "please use zeta499x on the report" "$work/p1000-noindex"
touch "$work/nocache"

count() { # payload, command...
  local input=$1
  shift
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" <"$input" 2>&1 >/dev/null |
    awk '/refs:/ {gsub(",", "", $NF); print $NF}'
}
base=$(count "$work/typical.json" "$floor")
row() { # name, payload, [VAR=value...]: the variables apply to this row only
  local name=$1 input=$2
  shift 2
  (
    [ $# -gt 0 ] && export "$@"
    "$bin" $budget <"$input" >/dev/null 2>&1 # the first run writes the cached copy and the stamp
    n=$(count "$input" "$bin" $budget)
    awk -v n="$name" -v c="$n" -v f="$base" 'BEGIN { printf "| %s | %d | %.2f× |\n", n, c, c / f }'
  )
}
echo "| row | instructions | ratio to floor |"
echo "|---|---:|---:|"
awk -v f="$base" 'BEGIN { printf "| floor (reads stdin, prints {}) | %d | 1.00× |\n", f }'
row "default catalog, typical prompt" "$work/typical.json"
row "1,000 skills, fresh index" "$work/fresh.json"
(
  export SOPHIA_CACHE_DIR=$work/expired
  "$bin" $budget <"$work/fresh.json" >/dev/null 2>&1
  stamp=$(find "$work/expired" -name '*.fresh')
  sed -i -E 's/^F\t([0-9]+)\t[0-9]+/F\t\1\t1000/' "$stamp"
  n=$(count "$work/fresh.json" "$bin" $budget)
  awk -v c="$n" -v f="$base" 'BEGIN { printf "| 1,000 skills, fresh index, stamp expired | %d | %.2f× |\n", c, c / f }'
)
row "1,000 skills, fresh index, full check" "$work/fresh.json" SOPHIA_CACHE_DIR="$work/nocache/x"
row "1,000 skills, no index (scan and compile)" "$work/noindex.json" SOPHIA_CACHE_DIR="$work/nocache/x"
# Telemetry (issue 49; docs/telemetry.md): the log is the spool, so analytics are on in these rows.
# Without telemetry, then configured with the stamp fresh (every run but one per interval: a stat),
# then due on every run (interval 0: the stamp renewed and the detached flush started; callgrind
# counts this process only, not the flush it starts). The collector is a closed port.
mkdir -p "$work/tele-off/sophia-hook" "$work/tele-on/sophia-hook" "$work/tele-due/sophia-hook"
for mode in on due; do
  interval=3600
  [ "$mode" = due ] && interval=0
  printf 'telemetry:\n  endpoint: http://127.0.0.1:9\n  interval_seconds: %s\n  timeout_ms: 200\n' \
    "$interval" >"$work/tele-$mode/sophia-hook/config.yaml"
done
for mode in off on due; do
  row "typical prompt, analytics on, telemetry $mode" "$work/typical.json" \
    SOPHIA_ANALYTICS=on SOPHIA_ANALYTICS_FILE="$work/tele-$mode.jsonl" \
    XDG_CONFIG_HOME="$work/tele-$mode" XDG_STATE_HOME="$work/state-$mode"
done
