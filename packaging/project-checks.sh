# Sourced by packaging/check-installs.sh and scripts/dist-check.sh (bash): the checks of one way in
# as a team uses it. Needs `fail`, `offline` and `work` from the script that sources it.

# The `sophia-hook` a user's PATH finds in `dir` is a native executable of this machine (ELF), never
# a script: a node launcher or a Python entry point would start per prompt (issue 47).
native_command() { # label, folder, [what the installer said about it]
  local label=$1 cmd=$2/sophia-hook real magic
  [[ -e $cmd ]] || fail "$label: no sophia-hook in $2"
  real=$(readlink -f "$cmd")
  magic=$(head -c 4 "$real" | od -An -c | tr -d ' ')
  [[ $magic == 177ELF ]] ||
    fail "$label: the command on PATH is not the native binary: $cmd is $real, which starts with '$(head -n 1 "$real" | cut -c1-60)'${3:+ ($3)}"
  echo "ok $label: the command on PATH is the native binary ($real)"
}

# Project scope, as a team uses it: in a fresh HOME and a git project, with `dir` first on PATH,
# `install --host gemini` (project scope, the default) writes the portable entry (the bare
# `sophia-hook`, the file a team commits); each hook command of the committed file, run through
# `sh -c` as Gemini CLI starts it, answers `!quick`; `doctor --host gemini` finds no problem.
# Prints the project's path (for a teammate's checks) as `project=…` on its last line.
project_checks() { # label, folder the user's PATH finds sophia-hook in
  local label=$1 dir=$2 home project out cmd payload
  home=$(mktemp -d "$work/team-home.XXXX")
  project=$(mktemp -d "$work/team-project.XXXX")
  git -C "$project" init -q
  out=$(cd "$project" && HOME=$home PATH=$dir:$PATH offline sophia-hook install --host gemini 2>&1) ||
    fail "$label: install --host gemini at project scope failed: $out"
  project_entries_run "$label" "$dir" "$home" "$project"
  out=$(cd "$project" && HOME=$home PATH=$dir:$PATH offline sophia-hook doctor --host gemini 2>&1) ||
    fail "$label: doctor --host gemini after the project install: $(grep -E '^(FAIL|warn)' <<<"$out" | head -n 5)"
  echo "ok $label: install --host gemini at project scope, the committed entries run, doctor clean"
  echo "project=$project"
}

# Every hook command of a project's committed .gemini/settings.json names the bare `sophia-hook`
# and, run through `sh -c` with `dir` first on PATH (a HOME of its own), prints JSON; the
# prompt's (BeforeAgent) routes `!quick`.
project_entries_run() { # label, folder on PATH, HOME, project
  local label=$1 dir=$2 home=$3 project=$4 commands cmd out n=0
  commands=$(python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
for event, groups in doc["hooks"].items():
    for g in groups:
        for h in g["hooks"]:
            print(h["command"])' "$project/.gemini/settings.json") ||
    fail "$label: no hooks in $project/.gemini/settings.json"
  while IFS= read -r cmd; do
    [[ $cmd == "sophia-hook --host gemini "* ]] ||
      fail "$label: the committed entry is '$cmd', not the portable bare sophia-hook"
    payload=$(printf '{"hook_event_name":"%s","session_id":"team","cwd":"%s","prompt":"!quick spiegami questa SQL"}' \
      "${cmd##* }" "$project")
    out=$(cd "$project" && printf '%s' "$payload" | HOME=$home PATH=$dir:$PATH offline sh -c "$cmd" 2>&1) ||
      fail "$label: the committed entry '$cmd' exited non-zero: $out"
    python3 -c 'import json, sys; json.loads(sys.argv[1])' "$out" 2>/dev/null ||
      fail "$label: '$cmd' printed no JSON: $out"
    if [[ $cmd == *BeforeAgent ]]; then
      [[ $out == *contextMode=light* ]] || fail "$label: '$cmd' did not route !quick: $out"
    fi
    n=$((n + 1))
  done <<<"$commands"
  ((n >= 2)) || fail "$label: $n hook commands in .gemini/settings.json, expected SessionStart and BeforeAgent"
}
