#!/usr/bin/env bash
# Which skill folders do the real hosts list? Re-runs the probe behind the folder table of
# docs/skills.md against the pinned CLIs: one probe skill in every candidate folder (project and
# user scope, above the git root, below cwd, hidden, nested, a symlink out of the repository),
# then asks each host for its skill list and prints the probe names it lists.
#
#   scripts/probe-skill-folders.sh
#
# Codex and Claude Code run once against a mock model server on 127.0.0.1 that records the request
# (the skill list is in it) and answers 400; Gemini CLI prints its list (`gemini skills list`).
# The CLIs come from ${SOPHIA_E2E_CACHE:-$HOME/.cache/sophia-hook-e2e} (the e2e suite's cache),
# installed there with npm when missing. Nothing but loopback traffic; every wait is bounded.
set -euo pipefail
cache=${SOPHIA_E2E_CACHE:-$HOME/.cache/sophia-hook-e2e}
pkgs=("@openai/codex@0.169.0" "@anthropic-ai/claude-code@2.1.328" "@google/gemini-cli@0.61.0")
for p in "${pkgs[@]}"; do
  dir=$cache/$p
  if [[ ! -d $dir/node_modules ]]; then
    mkdir -p "$dir"
    (cd "$dir" && timeout 600 npm install --no-audit --no-fund --silent "$p" >/dev/null)
  fi
done
find_bin() { find "$cache/$1" -type f -name "$2" -size +1M 2>/dev/null | head -1; }
codex=$(find_bin "@openai/codex@0.169.0" codex)
claude=$(find_bin "@anthropic-ai/claude-code@2.1.328" claude)
gemini=$(find "$cache/@google/gemini-cli@0.61.0" -path '*bundle/gemini.js' | head -1)

work=$(mktemp -d)
mock_pid=
cleanup() { [[ -n $mock_pid ]] && kill "$mock_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
home=$work/home repo=$work/above/repo cwd=$work/above/repo/sub
mkdir -p "$home" "$cwd"
git -C "$repo" init -q
mk() { mkdir -p "$1/$2"; printf -- '---\nname: %s\ndescription: Probe skill %s\n---\n' "${3:-$2}" "$2" >"$1/$2/SKILL.md"; }
for d in .agents .codex .claude .gemini; do
  mk "$home/$d/skills" "probe-home${d/./-}"
  mk "$repo/$d/skills" "probe-root${d/./-}"
  mk "$cwd/$d/skills" "probe-cwd${d/./-}"
  mk "$work/above/$d/skills" "probe-above-root${d/./-}"
  mk "$repo/$d/skills" ".probe-hidden" "probe-hidden${d/./-}"
  mk "$repo/$d/skills/group" "probe-nested${d/./-}"
  mk "$work/outside" "probe-link${d/./-}"
  ln -s "$work/outside/probe-link${d/./-}" "$repo/$d/skills/probe-link${d/./-}"
done
mk "$repo/skills" probe-root-skills
mk "$cwd/deeper/.agents/skills" probe-below-cwd-agents

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$work/mock.py" <<'EOF'
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get('content-length') or 0))
        with open(sys.argv[2], 'ab') as f:
            f.write(body + b'\n')
        self.send_response(400); self.send_header('content-length', '2'); self.end_headers()
        self.wfile.write(b'{}')
    do_GET = do_POST
    def log_message(self, *a): pass
http.server.HTTPServer(('127.0.0.1', int(sys.argv[1])), H).serve_forever()
EOF
timeout 300 python3 "$work/mock.py" "$port" "$work/requests.log" &
mock_pid=$!
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done

listed() { grep -o 'probe-[a-z-]*' | sort -u | tr '\n' ' '; echo; }

mkdir -p "$home/.codex"
cat >"$home/.codex/config.toml" <<EOF
model = "gpt-5"
model_provider = "mock"
[model_providers.mock]
name = "mock"
base_url = "http://127.0.0.1:$port/v1"
env_key = "MOCK_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
EOF
: >"$work/requests.log"
(cd "$cwd" && HOME=$home CODEX_HOME=$home/.codex MOCK_KEY=x timeout 120 "$codex" exec --skip-git-repo-check hello >/dev/null 2>&1 || true)
printf 'codex:  '; listed <"$work/requests.log"

: >"$work/requests.log"
(cd "$cwd" && HOME=$home ANTHROPIC_BASE_URL=http://127.0.0.1:$port ANTHROPIC_API_KEY=sk-ant-probe \
  timeout 120 "$claude" -p hello >/dev/null 2>&1 || true)
printf 'claude: '; listed <"$work/requests.log"

printf '{"%s": "TRUST_FOLDER"}\n' "$cwd" >"$home/.gemini/trustedFolders.json"
printf 'gemini: '
(cd "$cwd" && HOME=$home GEMINI_API_KEY=x timeout 120 node "$gemini" skills list 2>/dev/null || true) | listed
