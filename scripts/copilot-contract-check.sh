#!/usr/bin/env bash
# Re-reads the GitHub Copilot CLI hook contract from its npm package: installs @github/copilot
# (default: the version fixtures/contracts/copilot/ was taken from), unpacks the JavaScript package
# that its native executable carries, and checks that every identifier docs/host-protocols.md cites
# "read from the bundle" is still there. Prints `ok`/`MISSING` per citation, the package folder (to
# read further) and exits non-zero when a citation is gone: then re-read that part of the bundle and
# re-run tests/e2e/copilot-probe.mjs before changing docs or fixtures.
#
#   scripts/copilot-contract-check.sh [version]
#
# Network: the npm registry only (npm install). The unpacking runs the package's own executable with
# COPILOT_SEA_EXTRACT_ONLY=1 (its sea-loader.js: unpack the bundled copilot.tgz, then exit), offline.
set -euo pipefail
version=${1:-1.0.102}
cache=${SOPHIA_E2E_CACHE:-$HOME/.cache/sophia-hook-e2e}
dest=$cache/@github/copilot@$version
exe=$dest/node_modules/.bin/copilot
if ! [[ -x $exe ]] || ! timeout 60 "$exe" --version 2>/dev/null | grep -qF "$version"; then
  echo "installing @github/copilot@$version into $dest" >&2
  mkdir -p "$dest"
  timeout 900 npm install --prefix "$dest" --no-audit --no-fund --no-save --loglevel=error "@github/copilot@$version" >&2
fi
# The native executable for this platform (an optional dependency named @github/copilot-<os>-<arch>).
native=$(find "$dest/node_modules/@github" -maxdepth 2 -type f -name copilot -perm -u+x -size +1M | head -1)
[[ -n $native ]] || { echo "no native copilot executable under $dest/node_modules/@github" >&2; exit 1; }
unpacked=$dest/unpacked
if ! [[ -f $(ls -d "$unpacked"/pkg/*/"$version" 2>/dev/null | head -1)/.extraction-complete ]]; then
  mkdir -p "$unpacked"
  HOME=$unpacked/home COPILOT_SEA_EXTRACT_ONLY=1 COPILOT_PKG_CACHE_HOME=$unpacked timeout 300 "$native" >/dev/null
fi
pkg=$(ls -d "$unpacked"/pkg/*/"$version" | head -1)
[[ -f $pkg/.extraction-complete ]] || { echo "unpacking failed: no $unpacked/pkg/<platform>/$version" >&2; exit 1; }
echo "package: $pkg"

missing=0
cite() { # file string — the string must occur in the file (binary files too)
  if grep -a -q -F -- "$2" "$pkg/$1"; then
    echo "ok       $1: $2"
  else
    echo "MISSING  $1: $2"
    missing=$((missing + 1))
  fi
}
runtime=$(cd "$pkg" && ls prebuilds/*/runtime.node | head -1)

# Hook files, events, payload forms
cite changelog.json 'Load personal hooks from ~/.copilot/hooks in addition to repo-level .github/hooks'
cite changelog.json 'accepting PascalCase event names alongside camelCase'
cite changelog.json 'Hooks configured with PascalCase event names now receive VS Code-compatible snake_case payloads'
cite changelog.json 'Hook configurations now accept timeout as alias for timeoutSec'
cite changelog.json "Support 'command' field as cross-platform alias for bash/powershell in hook configs"
cite changelog.json 'Hooks config files that omit the version field are now accepted by the CLI'
cite changelog.json 'Support defining hooks in settings.json, settings.local.json, and config.json'
cite cli-main.js 'same schema as .github/hooks/*.json'
cite cli-main.js 'disableAllHooks'
cite schemas/api.schema.json '"userPromptSubmitted": "Runs after the user submits a prompt."'
cite schemas/api.schema.json '"sessionStart": "Runs when a session starts."'
cite "$runtime" 'Ignoring unknown hook event(s) in '
cite "$runtime" 'struct SessionStartInput with 5 elements'
cite "$runtime" 'struct UserPromptSubmittedInput with 4 elements'
cite "$runtime" 'hook_event_name'
cite "$runtime" 'initial_prompt'
cite copilot-sdk/types.d.ts 'export interface SessionStartHookInput extends BaseHookInput'
cite copilot-sdk/types.d.ts 'source: "startup" | "resume" | "new";'
cite copilot-sdk/types.d.ts 'export interface UserPromptSubmittedHookOutput'
# Output, failures, limits
cite changelog.json 'sessionStart hook additionalContext is now injected into the conversation'
cite changelog.json 'Include userPromptSubmitted hook additionalContext in the model-facing prompt'
cite changelog.json 'Session and subagent start hooks combine successful additional-context contributions within the hook-output limit'
cite changelog.json 'Allow tool calls to continue when hooks time out'
cite "$runtime" 'Ignoring additionalContext returned by a '
cite "$runtime" 'Hook command failed with code'
cite "$runtime" 'Hook command timed out after'
cite "$runtime" 'timed out; allowing processing to proceed'
cite "$runtime" 'hook exited with code 2'
# Trust
cite changelog.json 'Repo-level hooks are loaded only after folder trust is confirmed, not before the trust dialog is shown'
cite changelog.json 'Repo hooks in `.github/hooks/` now load in prompt mode (`-p`) when the folder is already trusted'
cite cli-main.js 'COPILOT_ALLOW_ALL==="true"'
cite cli-main.js 'folderTrustIsTrusted'
cite cli-main.js 'trustedFolders.some'
cite cli-main.js 'Loading repo hooks in prompt mode'
# Agents, skills, instructions
cite cli-main.js 'label:"Project (.github/agents/)"'
cite cli-main.js 'Project: .github/skills/, .agents/skills/, or .claude/skills/'
cite cli-main.js 'Personal: ~/.copilot/skills/ or ~/.agents/skills/'
cite "$runtime" 'disable-model-invocation'
cite "$runtime" 'user-invocable'
# The package itself
cite sea-loader.js 'COPILOT_SEA_EXTRACT_ONLY'
cite sea-loader.js 'COPILOT_PKG_CACHE_HOME'

# The help topics the docs quote (endpoint, trust, settings), from the CLI itself.
for topic in providers environment config; do
  out=$(HOME=$unpacked/home COPILOT_PKG_CACHE_HOME=$unpacked COPILOT_OFFLINE=true timeout 60 "$native" help "$topic" 2>&1 || true)
  for s in COPILOT_PROVIDER_BASE_URL COPILOT_PROVIDER_WIRE_API COPILOT_OFFLINE COPILOT_ALLOW_ALL COPILOT_HOME trustedFolders disableAllHooks; do
    case $topic:$s in
      providers:COPILOT_PROVIDER_*|environment:COPILOT_OFFLINE|environment:COPILOT_ALLOW_ALL|environment:COPILOT_HOME|config:trustedFolders|config:disableAllHooks)
        if grep -q -F -- "$s" <<<"$out"; then echo "ok       copilot help $topic: $s"; else echo "MISSING  copilot help $topic: $s"; missing=$((missing + 1)); fi ;;
    esac
  done
done

if ((missing > 0)); then
  echo "$missing citation(s) missing: the contract may have changed (re-run tests/e2e/copilot-probe.mjs)"
  exit 1
fi
echo "all citations present"
