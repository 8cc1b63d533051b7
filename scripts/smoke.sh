#!/usr/bin/env bash
# The smoke checks of the hook binary over the Codex smoke fixtures, as a host runs it: each
# fixture's output must contain the listed strings, and a prompt with a hotword later in the text
# prints nothing. Usage: scripts/smoke.sh COMMAND... (the binary, or `wine path/to/sophia-hook.exe`).
# Called by .ci/run on the release binary and by scripts/windows-ci.sh on the Windows .exe;
# tests/it/ci_gates.rs reads the checks from here and shows each one can fail.
set -euo pipefail
cd "$(dirname "$0")/.."
(($# > 0)) || { echo "usage: scripts/smoke.sh COMMAND..." >&2; exit 2; }
bin=("$@")
# The hook reads the user's skill folders (~/.agents/skills…): the smoke runs with an empty home so
# the embedded catalog answers whatever this machine has installed.
smoke_home=$(mktemp -d)
trap 'rm -rf "$smoke_home"' EXIT
# The empty home has no Sophia MCP server either, so the embedded skills are switched on, as the
# in-process twin of these checks in tests/it/ci_gates.rs runs them.
run() { HOME=$smoke_home USERPROFILE=$smoke_home SOPHIA_ANALYTICS=off SOPHIA_EMBEDDED_SKILLS=on "${bin[@]}" "$@"; }
smoke() { # fixture, then strings the output must contain
  local fixture=$1; shift
  local out
  out=$(run --host codex < "fixtures/prompts/codex/$fixture.json")
  for want in "$@"; do
    if [[ "$out" != *"$want"* ]]; then
      echo "smoke: $fixture: expected '$want' in: $out" >&2
      exit 1
    fi
  done
  echo "smoke: $fixture ok"
}
smoke prompt-quick '"hookEventName":"UserPromptSubmit"' 'contextMode=light' 'subagentMode=off'
smoke prompt-agents 'contextMode=full' 'subagentMode=required'
smoke prompt-quick-agents 'contextMode=light' 'subagentMode=required'
smoke prompt-quick-repo-task 'contextMode=full reason=repo-task-detected-overrides:!quick' 'subagentMode=off'
smoke prompt-explicit-subagent-request 'subagentMode=requested'
smoke session-start '"hookEventName":"SessionStart"' '`!quick`' '`!agents`'
smoke no-hotword 'skill=mcp-database-expert'
out=$(run < fixtures/prompts/codex/hotword-not-at-start.json)
[[ -z "$out" ]] || { echo "smoke: hotword-not-at-start printed: $out" >&2; exit 1; }
echo "smoke: hotword-not-at-start ok (nothing printed)"
