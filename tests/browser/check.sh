#!/usr/bin/env bash
# Browser check of `sophia-hook report`: builds a page from the week fixture in a scratch home and
# project (Codex installed and trusted, Claude installed, runtime agent definitions on disk), loads
# it in headless Chromium (Debian's package, installed when missing) and checks it with
# check.mjs: no console errors, the catalog fingerprint and an SVG chart in the DOM, a screenshot
# that is not blank. Then proves the check itself fails on a broken copy of the page.
#
# Usage: tests/browser/check.sh [SCREENSHOT.png]    (SOPHIA_BIN picks the binary to test)
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
screenshot=${1:+$(realpath -m "$1")}

if ! command -v chromium >/dev/null 2>&1; then
  echo "browser check: installing chromium (Debian package)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
if ! command -v node >/dev/null 2>&1; then
  echo "browser check: installing nodejs (Debian package)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs >/dev/null
fi
bin=${SOPHIA_BIN:-target/release/sophia-hook}
if [[ ! -x $bin ]]; then
  cargo build --release --locked --quiet
fi
bin=$(realpath "$bin")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
home=$work/home
proj=$work/project
mkdir -p "$home/.codex" "$proj/.git" "$proj/.codex/agents" "$home/.claude/agents"
# The binary on PATH, as where it is installed: a project-scope entry names the bare `sophia-hook`.
# The week's log copied to the scratch home: the environment naming a file inside the working
# folder's repository (this one) is refused (docs/configuration.md, "The environment is input").
cp "$repo/fixtures/analytics/week.jsonl" "$work/week.jsonl"
run() { env -i PATH="$(dirname "$bin"):$PATH" HOME="$home" XDG_STATE_HOME="$work/state" \
  SOPHIA_ANALYTICS_FILE="$work/week.jsonl" "$bin" "$@"; }

run install --host codex --root "$proj" >/dev/null
run install --host claude --scope user --root "$proj" >/dev/null
# Codex trusts the folder and both entries: what "Trust this folder" and /hooks in the Codex TUI
# record (each hash over the canonical JSON of the entry, as docs/host-protocols.md describes).
# Without python3 the page just shows Codex as not trusted yet.
command -v python3 >/dev/null 2>&1 && python3 - "$proj" >"$home/.codex/config.toml" <<'PY'
import hashlib, json, sys
root = sys.argv[1]
path = f"{root}/.codex/hooks.json"
print(f'[projects."{root}"]\ntrust_level = "trusted"\n')
label = {"SessionStart": "session_start", "UserPromptSubmit": "user_prompt_submit"}
for event, groups in json.load(open(path))["hooks"].items():
    for g, group in enumerate(groups):
        for h, handler in enumerate(group["hooks"]):
            entry = {"async": handler.get("async", False), "command": handler["command"],
                     "timeout": max(1, handler.get("timeout", 600)), "type": "command"}
            identity = {"event_name": label[event], "hooks": [entry]}
            if "matcher" in group and event != "UserPromptSubmit":
                identity["matcher"] = group["matcher"]
            canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            digest = hashlib.sha256(canonical.encode()).hexdigest()
            print(f'[hooks.state."{path}:{label[event]}:{g}:{h}"]\ntrusted_hash = "sha256:{digest}"\n')
PY
# Runtime agent definitions; the manifest is written, then one more definition drifts from it.
printf 'name = "scout"\ndescription = "Read-only discovery"\n' >"$proj/.codex/agents/scout.toml"
printf -- '---\nname: technical-analyst\n---\n' >"$home/.claude/agents/technical-analyst.md"
run availability --root "$proj" --write >/dev/null
printf 'name = "implementer"\nenabled = false\n' >"$proj/.codex/agents/implementer.toml"

fingerprint=$(run availability --root "$proj" | sed -n 's/^catalog: \([^ ]*\).*/\1/p')
[[ $fingerprint == sha256:* ]] || { echo "browser check: FAILED: no catalog fingerprint from availability" >&2; exit 1; }
page=$(run report --root "$proj" --since 2026-11-23)
[[ $page == "$work/state/sophia-hook/report.html" && -s $page ]] ||
  { echo "browser check: FAILED: report printed '$page', not the page under the state folder" >&2; exit 1; }

node tests/browser/check.mjs "$page" "$fingerprint" ${screenshot:+"$screenshot"}

# The check must catch a broken page: a script error in a scratch copy.
sed 's|<main>|<main><script>console.error("self-test")</script>|' "$page" >"$work/broken.html"
if node tests/browser/check.mjs "$work/broken.html" "$fingerprint" 2>"$work/broken.err"; then
  echo "browser check: FAILED: the check passed a page with a console error" >&2
  exit 1
fi
grep -q 'browser check: FAILED: console' "$work/broken.err" ||
  { echo "browser check: FAILED: the broken page failed for another reason:" >&2; cat "$work/broken.err" >&2; exit 1; }
echo "browser check: self-test ok (a copy with a console error fails)"
