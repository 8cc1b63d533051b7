#!/usr/bin/env bash
# Installs the npm packages (.tgz) and wheels (.whl) found in a folder the way a user without Rust
# would, with no network and no Rust on PATH, and runs what was installed. For CI.
#
# npm: every .tgz is checked for its layout (launcher: bin/sophia-hook, launcher.js, the
#   postinstall install.js and nothing else run at install, one optional dependency per row of
#   packaging/platforms.json, all at its version; platform package: os, cpu of its row, the
#   binary at bin/<name>, executable, nothing else). The platform packages this machine runs are
#   then installed next to the launcher with `npm install -g --prefix P --offline`, the registry
#   unreachable: the command on PATH must be the native binary (the postinstall put it in the
#   launcher's place), then `sophia-hook --version`, a hook run (`!quick` → contextMode=light),
#   `install --host codex --scope user` in a fresh HOME (hooks.json names the native binary), and
#   the project-scope checks of packaging/project-checks.sh. With `--ignore-scripts` the launcher
#   stays: it runs the binary, a project-scope install says to run `npm rebuild`, and after
#   `npm rebuild` the command is native. The launcher alone must fail with its one-line message
#   and run SOPHIA_HOOK_BINARY when set.
# wheels: every .whl is checked for its tag (py3-none-<platform>) and layout (the binary in
#   *.data/scripts/, the sophia_hook shim); those this Python can install go into a fresh venv with
#   `pip install --no-index`, then the same runs through venv/bin/sophia-hook (native) and
#   `python -m sophia_hook`, hooks.json must name venv/bin/sophia-hook, and the project-scope
#   checks run with venv/bin on PATH.
# Prints one `ok …` line per check, with the install time of each artifact; exits non-zero with a
# `check-installs: …` message on the first failure.
# Usage: packaging/check-installs.sh DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[[ $# == 1 && -d $1 ]] || { echo "usage: packaging/check-installs.sh DIR (a folder of .tgz and .whl files)" >&2; exit 2; }
dir=$(cd "$1" && pwd)
platforms=$here/platforms.json

fail() { echo "check-installs: $*" >&2; exit 1; }
# shellcheck source=packaging/project-checks.sh
source "$here/project-checks.sh"
command -v node >/dev/null 2>&1 || fail "node is not on PATH"
command -v python3 >/dev/null 2>&1 || fail "python3 is not on PATH"

# SOPHIA_INSTALLS_KEEP=DIR (an empty folder): the installs are made there and kept, for the
# latency figures of scripts/dist-check.sh.
if [[ -n ${SOPHIA_INSTALLS_KEEP:-} ]]; then
  work=$(cd "$SOPHIA_INSTALLS_KEEP" && pwd)
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
# No Rust on PATH: cargo, rustc and rustup answer "not here" from a folder that comes first.
mkdir -p "$work/no-rust"
for tool in cargo rustc rustup rustdoc; do
  printf '#!/bin/sh\necho "%s: no Rust toolchain in this check" >&2\nexit 127\n' "$tool" >"$work/no-rust/$tool"
  chmod +x "$work/no-rust/$tool"
done
export PATH=$work/no-rust:$PATH
# No network: a network namespace of its own when this user may make one, and in any case a
# registry and an index that refuse connections, and npm's and pip's offline switches.
if unshare -n true 2>/dev/null; then
  offline() { unshare -n -- "$@"; }
  net="no network (unshare -n)"
else
  offline() { "$@"; }
  net="registry at 127.0.0.1:9 (unshare -n not available)"
fi
export npm_config_registry=http://127.0.0.1:9/ npm_config_cache=$work/npm-cache \
  npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
export PIP_NO_INDEX=1 PIP_INDEX_URL=http://127.0.0.1:9/simple PIP_DISABLE_PIP_VERSION_CHECK=1 \
  PIP_CACHE_DIR=$work/pip-cache PIP_CONFIG_FILE=/dev/null
# Only the wheel given: no extra folder of wheels from this machine's pip settings.
unset PIP_FIND_LINKS PIP_EXTRA_INDEX_URL
export SOPHIA_ANALYTICS=off
payload='{"hook_event_name":"UserPromptSubmit","prompt":"!quick spiegami questa SQL"}'

now_ms() { date +%s%3N; }
seconds_since() { awk -v a="$1" -v b="$(now_ms)" 'BEGIN { printf "%.1f s", (b - a) / 1000 }'; }
size_of() { awk -v s="$(stat -c %s "$1")" 'BEGIN { printf "%.1f MiB", s / 1048576 }'; }

# The runs of an installed sophia-hook: --version, a hook run, and install --host codex in a fresh
# HOME (run from there, so nothing is written in the folder this script runs in).
run_checks() { # label, version, path hooks.json must name, command...
  local label=$1 version=$2 expect=$3
  shift 3
  local out home
  out=$(offline "$@" --version 2>&1) || fail "$label: --version failed: $out"
  [[ $out == "sophia-hook $version" ]] || fail "$label: --version printed '$out', expected 'sophia-hook $version'"
  home=$(mktemp -d "$work/home.XXXX")
  out=$(cd "$home" && printf '%s' "$payload" | HOME=$home offline "$@" 2>&1) ||
    fail "$label: the hook run exited non-zero: $out"
  [[ $out == *contextMode=light* ]] || fail "$label: the hook run printed no contextMode=light: $out"
  out=$(cd "$home" && HOME=$home offline "$@" install --host codex --scope user --no-agents 2>&1) ||
    fail "$label: install --host codex failed: $out"
  [[ -f $home/.codex/hooks.json ]] || fail "$label: install --host codex wrote no $home/.codex/hooks.json"
  grep -qF -- "\"command\": \"$expect --host codex" "$home/.codex/hooks.json" ||
    fail "$label: hooks.json does not name $expect: $(grep '"command"' "$home/.codex/hooks.json")"
  ! grep -q '\.js ' "$home/.codex/hooks.json" || fail "$label: hooks.json names a .js launcher"
  echo "ok $label: --version, hook run (contextMode=light), install --host codex registers $expect"
}

checked=0

# ---------------------------------------------------------------- npm
shopt -s nullglob
tgzs=("$dir"/*.tgz)
if ((${#tgzs[@]})); then
  # name, version and the checks of each package.json against the table, by node.
  host=$(node -e '
    let libc = "";
    if (process.platform === "linux") {
      const h = process.report.getReport().header;
      libc = h.glibcVersionRuntime ? "glibc" : "musl";
    }
    console.log([process.platform, process.arch, libc || "-"].join("\t"));')
  IFS=$'\t' read -r host_platform host_arch host_libc <<<"$host"
  launcher= launcher_version=
  platform_tgzs=()
  for tgz in "${tgzs[@]}"; do
    tar -tzf "$tgz" >"$work/list" 2>/dev/null || fail "$(basename "$tgz"): not a gzip tarball"
    tar -xzOf "$tgz" package/package.json >"$work/package.json" 2>/dev/null ||
      fail "$(basename "$tgz"): no package/package.json"
    name=$(node -p 'require(process.argv[1]).name' "$work/package.json" 2>/dev/null) ||
      fail "$(basename "$tgz"): package/package.json is not JSON"
    if [[ $name == sophia-hook ]]; then
      [[ -z $launcher ]] || fail "two launcher packages: $(basename "$launcher") and $(basename "$tgz")"
      launcher=$tgz
      launcher_version=$(node -p 'require(process.argv[1]).version' "$work/package.json")
      node - "$work/package.json" "$platforms" "$work/list" <<'EOF' || fail "$(basename "$tgz"): launcher layout"
const fs = require("fs");
const [pkgFile, tableFile, listFile] = process.argv.slice(2);
const pkg = JSON.parse(fs.readFileSync(pkgFile, "utf8"));
const { platforms } = JSON.parse(fs.readFileSync(tableFile, "utf8"));
const list = fs.readFileSync(listFile, "utf8").split("\n").filter(Boolean);
const problems = [];
if (!pkg.bin || pkg.bin["sophia-hook"] !== "bin/sophia-hook") problems.push(`bin is ${JSON.stringify(pkg.bin)}`);
// One script runs at install: the postinstall that puts the native binary on PATH.
if (JSON.stringify(pkg.scripts) !== JSON.stringify({ postinstall: "node install.js" })) {
  problems.push(`scripts ${JSON.stringify(pkg.scripts)}, expected {"postinstall":"node install.js"}`);
}
const want = Object.fromEntries(platforms.map((p) => [p.npm, pkg.version]));
if (JSON.stringify(pkg.optionalDependencies) !== JSON.stringify(want)) {
  problems.push(`optionalDependencies ${JSON.stringify(pkg.optionalDependencies)}, expected ${JSON.stringify(want)}`);
}
if (pkg.dependencies && Object.keys(pkg.dependencies).length) problems.push("has dependencies");
for (const f of ["package/bin/sophia-hook", "package/launcher.js", "package/install.js", "package/platforms.json"]) {
  if (!list.includes(f)) problems.push(`no ${f}`);
}
if (problems.length) {
  console.error(`check-installs: the launcher package: ${problems.join("; ")}`);
  process.exit(1);
}
EOF
      echo "ok npm $(basename "$tgz"): launcher layout ($name $launcher_version, ${#tgzs[@]} .tgz here, optionalDependencies on every platform)"
    else
      platform_tgzs+=("$tgz")
    fi
  done
  [[ -n $launcher ]] || fail "no launcher package (name sophia-hook) among the .tgz files of $dir"

  for tgz in "${platform_tgzs[@]}"; do
    tar -tzvf "$tgz" >"$work/list"
    tar -xzOf "$tgz" package/package.json >"$work/package.json"
    # The row of this package, checked; prints npm name, binary, installable here (yes/no/libc).
    row=$(node - "$work/package.json" "$platforms" "$work/list" "$launcher_version" "$host_platform" "$host_arch" "$host_libc" <<'EOF'
const fs = require("fs");
const [pkgFile, tableFile, listFile, version, hp, ha, hl] = process.argv.slice(2);
const pkg = JSON.parse(fs.readFileSync(pkgFile, "utf8"));
const { platforms } = JSON.parse(fs.readFileSync(tableFile, "utf8"));
const row = platforms.find((p) => p.npm === pkg.name);
const die = (m) => { console.error(`check-installs: ${pkg.name}: ${m}`); process.exit(1); };
if (!row) die("not a package of packaging/platforms.json");
if (pkg.version !== version) die(`version ${pkg.version}, the launcher's is ${version}`);
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
if (!same(pkg.os, [row.node_platform])) die(`os ${JSON.stringify(pkg.os)}, expected ["${row.node_platform}"]`);
if (!same(pkg.cpu, [row.node_arch])) die(`cpu ${JSON.stringify(pkg.cpu)}, expected ["${row.node_arch}"]`);
if (!same(pkg.libc, row.libc ? [row.libc] : undefined)) die(`libc ${JSON.stringify(pkg.libc)}, expected ${row.libc ? `["${row.libc}"]` : "none"}`);
if (!same(pkg.files, [`bin/${row.binary}`])) die(`files ${JSON.stringify(pkg.files)}, expected ["bin/${row.binary}"]`);
if (pkg.bin) die("has a bin field (only the launcher links a command)");
if (pkg.scripts && Object.keys(pkg.scripts).length) die("has scripts");
const entry = fs.readFileSync(listFile, "utf8").split("\n").find((l) => l.endsWith(` package/bin/${row.binary}`));
if (!entry) die(`no package/bin/${row.binary}`);
if (!/^-rwx/.test(entry)) die(`package/bin/${row.binary} is not executable (${entry.split(" ")[0]})`);
const here = row.node_platform === hp && row.node_arch === ha;
console.log([row.npm, row.binary, row.triple, here ? (!row.libc || row.libc === hl ? "yes" : "libc") : "no"].join("\t"));
EOF
    ) || fail "$(basename "$tgz"): platform package layout"
    IFS=$'\t' read -r npm_name exe triple installable <<<"$row"
    echo "ok npm $(basename "$tgz"): $npm_name layout (os/cpu/libc of $triple, bin/$exe executable, $(size_of "$tgz"))"
    checked=$((checked + 1))
    case $installable in
      no) echo "ok npm $npm_name: not installed here ($host_platform-$host_arch): layout only"; continue ;;
    esac

    # The offline install a user makes from the two files.
    prefix=$work/npm-${npm_name##*/}
    start=$(now_ms)
    # --foreground-scripts: the postinstall's word, when it leaves the launcher, is in the log.
    offline npm install -g --prefix "$prefix" --offline --foreground-scripts "$launcher" "$tgz" >"$work/npm.log" 2>&1 ||
      fail "npm install -g --offline of $(basename "$launcher") $(basename "$tgz") failed: $(tail -n 20 "$work/npm.log")"
    took=$(seconds_since "$start")
    echo "ok npm install -g --offline $(basename "$launcher") $(basename "$tgz"): $took, $net"
    [[ -L $prefix/bin/sophia-hook || -f $prefix/bin/sophia-hook ]] || fail "npm linked no $prefix/bin/sophia-hook"
    # npm skipped the other optional dependencies (not in the cache, registry unreachable, or not
    # for this platform) and installed nothing else.
    others="$(cd "$prefix/lib/node_modules" && LC_ALL=C && echo * @sophia-hook/*)"
    [[ $others == "@sophia-hook sophia-hook $npm_name" ]] ||
      fail "npm installed more or less than sophia-hook and $npm_name: $others"
    [[ ! -e $prefix/lib/node_modules/sophia-hook/node_modules ]] ||
      fail "npm nested packages under sophia-hook/node_modules: $(ls "$prefix/lib/node_modules/sophia-hook/node_modules")"
    bin=$(cd "$prefix/lib/node_modules/$npm_name/bin" && pwd -P)/$exe
    native_command "npm $npm_name" "$prefix/bin" "$(grep -m 1 'sophia-hook postinstall:' "$work/npm.log")"
    cmp -s "$(readlink -f "$prefix/bin/sophia-hook")" "$bin" ||
      fail "npm $npm_name: the command on PATH is not the binary of $npm_name"
    # The command on PATH is the binary itself: it registers its own path.
    run_checks "npm $npm_name through $prefix/bin/sophia-hook" "$launcher_version" \
      "$(readlink -f "$prefix/bin/sophia-hook")" "$prefix/bin/sophia-hook"
    project_checks "npm $npm_name" "$prefix/bin" >/dev/null
    echo "ok npm $npm_name: install --host gemini at project scope, the committed entries run, doctor clean"
    native=$bin
    npm_native_prefix=$prefix

    # Without the postinstall (--ignore-scripts, or a package manager that runs no scripts): the
    # launcher stays on PATH and still runs the binary; a project-scope install refuses it and says
    # how to put the binary there; `npm rebuild` does.
    prefix=$work/npm-noscripts-${npm_name##*/}
    offline npm install -g --prefix "$prefix" --offline --ignore-scripts "$launcher" "$tgz" >"$work/npm.log" 2>&1 ||
      fail "npm install -g --ignore-scripts failed: $(tail -n 20 "$work/npm.log")"
    [[ $(head -c 2 "$(readlink -f "$prefix/bin/sophia-hook")") == '#!' ]] ||
      fail "npm --ignore-scripts: the command on PATH is not the launcher"
    out=$(offline "$prefix/bin/sophia-hook" --version 2>&1) || fail "npm --ignore-scripts: the launcher failed: $out"
    [[ $out == "sophia-hook $launcher_version" ]] || fail "npm --ignore-scripts: the launcher printed '$out'"
    home=$(mktemp -d "$work/home.XXXX")
    git -C "$home" init -q
    if out=$(cd "$home" && HOME=$home PATH=$prefix/bin:$PATH offline sophia-hook install --host gemini 2>&1); then
      fail "npm --ignore-scripts: a project-scope install accepted the node launcher on PATH: $out"
    fi
    [[ $out == *"npm rebuild -g sophia-hook"* ]] ||
      fail "npm --ignore-scripts: the project-scope install did not say how to put the binary on PATH: $out"
    offline npm rebuild -g --prefix "$prefix" --offline sophia-hook >"$work/npm.log" 2>&1 ||
      fail "npm rebuild -g sophia-hook failed: $(tail -n 20 "$work/npm.log")"
    native_command "npm --ignore-scripts, then npm rebuild -g sophia-hook" "$prefix/bin" >/dev/null
    echo "ok npm --ignore-scripts: the launcher runs the binary; a project-scope install says npm rebuild; after it the command is native"
  done

  # The launcher alone: its message, and SOPHIA_HOOK_BINARY.
  prefix=$work/npm-launcher-only
  start=$(now_ms)
  offline npm install -g --prefix "$prefix" --offline "$launcher" >"$work/npm.log" 2>&1 ||
    fail "npm install -g --offline of the launcher alone failed: $(tail -n 20 "$work/npm.log")"
  took=$(seconds_since "$start")
  if out=$(offline "$prefix/bin/sophia-hook" --version 2>&1); then
    fail "the launcher without its platform package exited 0: $out"
  fi
  [[ $(wc -l <<<"$out") == 1 && $out == "sophia-hook: "*"is not installed"*"SOPHIA_HOOK_BINARY"* ]] ||
    [[ $out == "sophia-hook: no prebuilt binary for"* ]] ||
    fail "the launcher without its platform package did not say which package to install: $out"
  echo "ok npm launcher alone (installed in $took): exits 1 with \"${out:0:90}…\""
  if [[ -n ${native:-} ]]; then
    out=$(SOPHIA_HOOK_BINARY=$native offline "$prefix/bin/sophia-hook" --version 2>&1) ||
      fail "the launcher with SOPHIA_HOOK_BINARY=$native failed: $out"
    [[ $out == "sophia-hook $launcher_version" ]] || fail "the launcher with SOPHIA_HOOK_BINARY printed '$out'"
    # Exit status and signals pass through.
    set +e
    SOPHIA_HOOK_BINARY=$work/no-rust/cargo offline "$prefix/bin/sophia-hook" 2>/dev/null
    status=$?
    printf '#!/bin/sh\nkill -TERM $$\n' >"$work/killed"
    chmod +x "$work/killed"
    SOPHIA_HOOK_BINARY=$work/killed offline "$prefix/bin/sophia-hook"
    signal_status=$?
    set -e
    [[ $status == 127 ]] || fail "the launcher exited $status for a binary that exits 127"
    [[ $signal_status == 143 ]] || fail "the launcher exited $signal_status for a binary killed by SIGTERM (expected 143)"
    echo "ok npm launcher: SOPHIA_HOOK_BINARY runs that binary; exit status 127 and SIGTERM (143) pass through"
  fi
fi

# ---------------------------------------------------------------- wheels
whls=("$dir"/*.whl)
for whl in "${whls[@]}"; do
  base=$(basename "$whl")
  # tag, version, binary entry; and whether this Python can install it.
  info=$(python3 - "$whl" <<'EOF'
import sys, zipfile
path = sys.argv[1]
def die(msg):
    sys.stderr.write("check-installs: %s: %s\n" % (path.rsplit("/", 1)[-1], msg))
    sys.exit(1)
try:
    z = zipfile.ZipFile(path)
except zipfile.BadZipFile:
    die("not a zip file")
names = z.namelist()
wheel = [n for n in names if n.endswith(".dist-info/WHEEL")]
if len(wheel) != 1:
    die("no single *.dist-info/WHEEL")
fields = {}
tags = []
for line in z.read(wheel[0]).decode().splitlines():
    key, _, value = line.partition(": ")
    if key == "Tag":
        tags.append(value)
    fields[key] = value
if fields.get("Root-Is-Purelib") != "false":
    die("Root-Is-Purelib is %r, expected false" % fields.get("Root-Is-Purelib"))
if not tags or not all(t.startswith("py3-none-") for t in tags):
    die("tags %s, expected py3-none-<platform>" % tags)
scripts = [n for n in names if ".data/scripts/" in n]
exe = [n for n in scripts if n.rsplit("/", 1)[-1] in ("sophia-hook", "sophia-hook.exe")]
if len(exe) != 1:
    die("no sophia-hook binary under *.data/scripts/ (%s)" % scripts)
mode = (z.getinfo(exe[0]).external_attr >> 16) & 0o777
if exe[0].endswith("/sophia-hook") and not mode & 0o100:
    die("%s is not executable (mode %o)" % (exe[0], mode))
for shim in ("sophia_hook/__init__.py", "sophia_hook/__main__.py"):
    if shim not in names:
        die("no " + shim)
version = wheel[0].split("/")[0][: -len(".dist-info")].split("-", 1)[1]
try:
    from pip._vendor.packaging.tags import sys_tags
    supported = {str(t) for t in sys_tags()}
    here = "yes" if any(t in supported for t in tags) else "no"
except Exception:
    here = "unknown"
print("\t".join([",".join(tags), version, exe[0], here]))
EOF
  ) || fail "$base: wheel layout"
  IFS=$'\t' read -r tags version exe_entry here_ok <<<"$info"
  echo "ok wheel $base: $tags, Root-Is-Purelib false, $exe_entry, the sophia_hook shim ($(size_of "$whl"))"
  checked=$((checked + 1))
  if [[ $here_ok == no ]]; then
    echo "ok wheel $base: not installable by this Python ($(python3 -c 'import sysconfig; print(sysconfig.get_platform())')): layout only"
    continue
  fi
  venv=$work/venv-${base%.whl}
  python3 -m venv "$venv"
  start=$(now_ms)
  offline "$venv/bin/pip" install --no-index --quiet "$whl" >"$work/pip.log" 2>&1 ||
    fail "pip install --no-index $base failed: $(tail -n 20 "$work/pip.log")"
  echo "ok pip install --no-index $base: $(seconds_since "$start") (fresh venv), $net"
  [[ -x $venv/bin/sophia-hook ]] || fail "$base: pip installed no $venv/bin/sophia-hook"
  expect=$(cd "$venv/bin" && pwd -P)/sophia-hook
  native_command "wheel $base" "$venv/bin"
  run_checks "wheel $base through venv/bin/sophia-hook" "$version" "$expect" "$venv/bin/sophia-hook"
  project_checks "wheel $base" "$venv/bin" >/dev/null
  echo "ok wheel $base: install --host gemini at project scope, the committed entries run, doctor clean"
  run_checks "wheel $base through python -m sophia_hook" "$version" "$expect" "$venv/bin/python" -m sophia_hook
  found=$("$venv/bin/python" -c 'import sophia_hook; print(sophia_hook.find_bin())')
  [[ $found -ef $venv/bin/sophia-hook ]] || fail "$base: sophia_hook.find_bin() is $found, not $venv/bin/sophia-hook"
  echo "ok wheel $base: sophia_hook.find_bin() is venv/bin/sophia-hook"
done

((checked)) || fail "no .tgz platform package or .whl in $dir"
echo "check-installs: $checked artifact(s) checked in $dir"
