#!/usr/bin/env bash
# Every regular expression of the hook compiles in the build users get. The regex crate ships
# without its Unicode tables, which the test build switches back on through a dev-dependency
# (src/pattern.rs), so only the release binary can show it. `catalog build` runs every pattern
# over every routing value of the canonical source: the shipped source must build, and one with a
# user path in a routing field must be refused by the pattern that finds it, not by a panic.
# Usage: scripts/patterns-check.sh COMMAND... (the release binary). Called by .ci/run;
# tests/it/ci_gates.rs shows it fails on a binary that accepts the path or panics.
set -euo pipefail
cd "$(dirname "$0")/.."
(($# > 0)) || { echo "usage: scripts/patterns-check.sh COMMAND..." >&2; exit 2; }
bin=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/.git"
run() { HOME=$work SOPHIA_ANALYTICS=off "${bin[@]}" catalog build --root "$work" "$@" 2>&1; }
if ! out=$(run --source docs/agents/canonical-subagents.yaml --out "$work/ok.json"); then
  echo "patterns: the canonical source did not build: $out" >&2
  exit 1
fi
sed 's#locate files, symbols and configuration#locate files under /home/someone#' \
  docs/agents/canonical-subagents.yaml >"$work/bad.yaml"
if out=$(run --source "$work/bad.yaml" --out "$work/bad.json"); then
  echo "patterns: a user path in a routing field was accepted: $out" >&2
  exit 1
fi
if [[ "$out" != *"contains a user or machine path"* ]]; then
  echo "patterns: the user path was not refused by its pattern: $out" >&2
  exit 1
fi
echo "patterns: every pattern compiles in the release build, and the path pattern refuses"
