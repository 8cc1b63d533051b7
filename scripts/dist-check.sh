#!/usr/bin/env bash
# Installs every artifact scripts/dist.sh wrote into target/dist/ the way a user without Rust
# would, with no network (`unshare -n`) and no Rust on PATH, then runs what was installed: the
# smoke checks (scripts/smoke.sh), `--version`, and `install --host codex` in a temporary HOME,
# which must register the native binary, never a launcher. Called by .ci/run after dist.sh.
# - release archives: unpacked; every Linux binary checked static and not position-independent
#   (static_checks); x86_64 Linux runs here, with the project-scope checks of
#   packaging/project-checks.sh (the archive's folder on PATH), aarch64 under qemu-user, Windows
#   under Wine (the prefix scripts/windows-ci.sh made); macOS binaries are checked as Mach-O
#   executables of their architecture, not run;
# - the plugin and Gemini CLI extension archives: their layout, and their binary run as above;
# - npm packages and wheels: packaging/check-installs.sh (npm install -g --offline of the .tgz
#   files, pip install --no-index of the wheel into a fresh venv);
# - SHA256SUMS verified;
# - a team of two: A installs with npm at project scope and commits; B, with the wheel's command
#   on PATH, runs the committed entries, reinstalls without a change, and doctor is clean; then
#   Claude Code (the e2e suite's pinned build) runs B's command through A's entry;
# - the hook's latency through each way in against the static floor, in one interleaved run
#   (figures, not a gate: docs/distribution.md), into target/dist-latency.md.
# Usage: scripts/dist-check.sh [DIST_DIR] (default target/dist); SOPHIA_DIST_RUNS=0 skips the
# timing. scripts/dist-check-fails.sh shows that each check fails on an artifact made wrong.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dist=$(cd "${1:-target/dist}" && pwd)
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)

need=()
command -v qemu-aarch64 >/dev/null 2>&1 || need+=(qemu-user)
command -v file >/dev/null 2>&1 || need+=(file)
command -v readelf >/dev/null 2>&1 || need+=(binutils)
if ((${#need[@]})); then
  echo "dist-check: installing ${need[*]} from Debian"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The latency floors of the timing below (benches/floor.rs: read stdin to its end, print {}),
# static and dynamic, built with rustup's rustc while it is still on PATH (a second each).
floor_static=$work/floor-static floor_dynamic=$work/floor-dynamic
if command -v rustc >/dev/null 2>&1; then
  rustc --edition 2021 -C opt-level=3 -C panic=abort -C strip=symbols -C target-feature=+crt-static     -C relocation-model=static -o "$floor_static" benches/floor.rs 2>/dev/null || floor_static=
  rustc --edition 2021 -C opt-level=3 -C panic=abort -C strip=symbols -o "$floor_dynamic" benches/floor.rs 2>/dev/null ||
    floor_dynamic=
fi
# No Rust on PATH: cargo, rustc and rustup answer "not here" from a folder that comes first.
mkdir -p "$work/no-rust"
for tool in cargo rustc rustup rustdoc; do
  printf '#!/bin/sh\necho "%s: no Rust toolchain in this check" >&2\nexit 127\n' "$tool" \
    >"$work/no-rust/$tool"
  chmod +x "$work/no-rust/$tool"
done
export PATH=$work/no-rust:$PATH
offline() { unshare -n -- "$@"; }
fail() { echo "dist-check: $*" >&2; exit 1; }
# shellcheck source=packaging/project-checks.sh
source packaging/project-checks.sh

windows_dir=${SOPHIA_WINDOWS_TARGET_DIR:-$root/target/windows}
export WINEPREFIX=${WINEPREFIX:-$windows_dir/wineprefix}
export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
# Wine 8 runs no Rust .exe without the ProcessPrng stand-in that scripts/windows-ci.sh builds into
# its prefix (the step before this one in .ci/run).
if compgen -G "$dist/*windows*" >/dev/null &&
  ! cmp -s "$windows_dir/bcryptprimitives.dll" "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"; then
  fail "no Wine prefix with the ProcessPrng stand-in at $WINEPREFIX: run scripts/windows-ci.sh first"
fi

(cd "$dist" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not match"
echo "ok SHA256SUMS ($(wc -l <"$dist/SHA256SUMS") files)"

# The command that runs a binary of the target here, or nothing (not runnable: macOS).
runner() {
  case $1 in
    x86_64-unknown-linux-*) echo "" ;;
    aarch64-unknown-linux-musl) echo "qemu-aarch64" ;; # static: no loader or libc to point at
    x86_64-pc-windows-gnu) echo "wine" ;;
    *) echo "-" ;;
  esac
}
mach_o() { # triple → what `file` says of such a binary
  case $1 in
    aarch64-apple-darwin) echo "Mach-O 64-bit arm64 executable" ;;
    x86_64-apple-darwin) echo "Mach-O 64-bit x86_64 executable" ;;
  esac
}
# A Linux binary is static and not position-independent: no dynamic loader (no PT_INTERP, no
# dynamic section), ELF type EXEC, and no relocation to apply at start (issue 47: start-up is
# half loader otherwise).
# A file that is no ELF at all (a script in the binary's place) is left to the run checks below,
# which catch it by what it does.
static_checks() { # label, binary
  local label=$1 bin=$2 type relocs
  [[ $(head -c 4 "$bin" | od -An -c | tr -d ' ') == 177ELF ]] || return 0
  if readelf -lW "$bin" | grep -q 'INTERP'; then
    fail "$label: $bin is not static: it names a dynamic loader ($(readelf -lW "$bin" | grep -o '\[Requesting program interpreter: [^]]*\]'))"
  fi
  type=$(readelf -hW "$bin" | awk -F': *' '/^ *Type:/ {print $2}')
  [[ $type == EXEC* ]] ||
    fail "$label: $bin is position-independent ($type): its start code relocates it at every start"
  readelf -dW "$bin" | grep -q 'There is no dynamic section' ||
    fail "$label: $bin is not static: it has a dynamic section"
  relocs=$(readelf -rW "$bin" | grep -c '^[0-9a-f]\{8,\} ' || true)
  ((relocs == 0)) || fail "$label: $bin carries $relocs start-up relocations"
  echo "ok $label: static, not position-independent, no start-up relocations"
}

# Runs the installed binary: --version, the smoke checks, and install --host codex in a fresh
# HOME, whose hooks.json must name `expect` (the native binary's path as this user sees it).
run_checks() { # label, triple, binary, expected path in hooks.json (or "-" to skip install)
  local label=$1 triple=$2 bin=$3 expect=$4 run
  run=$(runner "$triple")
  if [[ $run == - ]]; then
    local want got
    want=$(mach_o "$triple")
    got=$(file -b "$bin")
    [[ $got == "$want"* ]] || fail "$label: $bin is '$got', expected '$want'"
    # Apple silicon runs no arm64 binary without a code signature (the linker's ad-hoc one).
    local signed
    if [[ $triple == aarch64-apple-darwin ]]; then
      signed=$(python3 scripts/dist/macho-signed.py "$bin" 2>&1) || fail "$label: $signed"
      signed=", $signed"
    fi
    echo "ok $label: $want${signed:-} (built, not run here)"
    return
  fi
  local -a cmd
  read -r -a cmd <<<"$run"
  cmd+=("$bin")
  local out
  out=$(offline "${cmd[@]}" --version 2>/dev/null | tr -d '\r')
  [[ $out == "sophia-hook $version" ]] || fail "$label: --version printed '$out'"
  offline scripts/smoke.sh "${cmd[@]}" >/dev/null || fail "$label: smoke checks failed"
  if [[ $expect != - ]]; then
    local home
    home=$(mktemp -d "$work/home.XXXX")
    HOME=$home SOPHIA_ANALYTICS=off offline "${cmd[@]}" install --host codex --scope user \
      --no-agents >/dev/null || fail "$label: install --host codex failed"
    grep -qF -- "$expect --host codex" "$home/.codex/hooks.json" ||
      fail "$label: hooks.json does not name $expect: $(cat "$home/.codex/hooks.json")"
  fi
  local installed=", install --host codex"
  [[ $expect == - ]] && installed=""
  echo "ok $label: --version, smoke checks$installed"
}

rows=$(python3 - <<'EOF'
import json
for p in json.load(open("packaging/platforms.json"))["platforms"]:
    print(p["triple"], p["os"], p["binary"], p.get("asset", "-"), sep="\t")
EOF
)
while IFS=$'\t' read -r triple os exe asset; do
  name=sophia-hook-$triple-v$version
  ext=tar.gz
  [[ $os == windows ]] && ext=zip
  [[ -f $dist/$name.$ext ]] || { echo "skip $triple: not built"; continue; }
  dir=$work/archive-$triple
  mkdir -p "$dir"
  if [[ $ext == zip ]]; then
    python3 -m zipfile -e "$dist/$name.$ext" "$dir"
    chmod +x "$dir/$name/$exe"
  else
    tar -xzf "$dist/$name.$ext" -C "$dir"
  fi
  for f in "$exe" LICENSE README.md; do
    [[ -f $dir/$name/$f ]] || fail "$name.$ext: no $name/$f"
  done
  # A Windows path is not what a POSIX hooks.json shows: install is checked on Linux binaries.
  expect=$dir/$name/$exe
  [[ $os != linux ]] && expect=-
  # Its form first (a planted dynamic binary fails here, before it runs).
  if [[ $os == linux ]]; then
    static_checks "archive $triple" "$dir/$name/$exe"
  fi
  run_checks "archive $triple" "$triple" "$dir/$name/$exe" "$expect"
  if [[ $triple == x86_64-unknown-linux-* ]]; then
    # The archive as a user unpacks it into a folder on PATH: the team's project-scope way in.
    native_command "archive $triple" "$dir/$name"
    project_checks "archive $triple" "$dir/$name" >/dev/null
    echo "ok archive $triple: install --host gemini at project scope, the committed entries run, doctor clean"
  fi

  [[ $asset == - ]] && continue
  for archive in "$asset.sophia-hook.$ext" "sophia-hook-plugins-$triple-v$version.$ext"; do
    [[ -f $dist/$archive ]] || fail "no $archive"
    pdir=$work/plugin-$archive
    mkdir -p "$pdir"
    if [[ $ext == zip ]]; then python3 -m zipfile -e "$dist/$archive" "$pdir"; else tar -xzf "$dist/$archive" -C "$pdir"; fi
    if [[ $archive == "$asset".* ]]; then
      [[ -f $pdir/gemini-extension.json ]] || fail "$archive: no gemini-extension.json at its root"
      bins=("$pdir/bin/$exe")
    else
      for m in .claude-plugin/marketplace.json .github/plugin/marketplace.json .agents/plugins/marketplace.json; do
        [[ -f $pdir/$m ]] || fail "$archive: no $m"
      done
      bins=("$pdir"/plugins/*/bin/"$exe")
    fi
    for b in "${bins[@]}"; do
      [[ -f $b ]] || fail "$archive: no ${b#"$pdir"/}"
      chmod +x "$b"
      cmp -s "$b" "$dir/$name/$exe" || fail "$archive: ${b#"$pdir"/} is not the $triple binary"
    done
    echo "ok $archive: layout, ${#bins[@]} binary(ies) identical to the release archive's"
  done
done <<<"$rows"

if compgen -G "$dist/*.tgz" >/dev/null || compgen -G "$dist/*.whl" >/dev/null; then
  echo "== npm packages and wheels"
  mkdir -p "$work/installs"
  SOPHIA_INSTALLS_KEEP=$work/installs packaging/check-installs.sh "$dist"
fi

npm_prefix=$work/installs/npm-linux-x64
wheel_bin=
for venv in "$work"/installs/venv-*manylinux*x86_64*; do
  [[ -x $venv/bin/sophia-hook ]] && wheel_bin=$venv/bin
done

if [[ -x $npm_prefix/bin/sophia-hook && -n $wheel_bin ]]; then
  echo "== a team of two: A installs with npm and commits, B installed the wheel and runs the entries"
  out=$(project_checks "team: A (npm)" "$npm_prefix/bin") || exit 1
  project=${out##*project=}
  git -C "$project" add -A && git -C "$project" -c user.name=A -c user.email=a@example.invalid commit -qm "sophia-hook for gemini"
  clone=$(mktemp -d "$work/team-b.XXXX")
  git clone -q "$project" "$clone/project"
  home_b=$(mktemp -d "$work/team-home-b.XXXX")
  project_entries_run "team: B (wheel) runs A's committed entries" "$wheel_bin" "$home_b" "$clone/project"
  out=$(cd "$clone/project" && HOME=$home_b PATH=$wheel_bin:$PATH offline sophia-hook install --host gemini 2>&1) ||
    fail "team: B's install --host gemini failed: $out"
  git -C "$clone/project" diff --exit-code --quiet ||
    fail "team: B's install changed the committed entries: $(git -C "$clone/project" diff | head -n 20)"
  out=$(cd "$clone/project" && HOME=$home_b PATH=$wheel_bin:$PATH offline sophia-hook doctor --host gemini 2>&1) ||
    fail "team: B's doctor --host gemini: $(grep -E '^(FAIL|warn)' <<<"$out" | head -n 5)"
  echo "ok team: A's npm install committed the bare entry; B (wheel) ran it, reinstalled without a change, doctor clean"
  # A real host through the entries: Claude Code (the e2e suite's pinned build, from its cache),
  # the project installed by A's npm command, the hook run by B's wheel command on PATH.
  if [[ ${SOPHIA_DIST_HOST_RUN:-1} == 1 ]]; then
    out=$(SOPHIA_E2E_BINARY=$npm_prefix/bin/sophia-hook SOPHIA_E2E_PATH_DIR=$wheel_bin \
      SOPHIA_E2E_HOSTS=claude PATH=${PATH#"$work/no-rust:"} tests/e2e/run quick-sql 2>&1) ||
      fail "team: Claude Code through A's entry and B's command: $(grep -E '^FAIL|passed' <<<"$out" | head -n 20)"
    echo "ok team: Claude Code ran B's sophia-hook through A's project entry ($(tail -n 1 <<<"$out"))"
  fi
fi

echo "== latency of the hook through each way in (benches/interleaved.py, one interleaved run)"
# Ratios to the static floor (a static, non-PIE binary that reads stdin and prints {}; built here
# with rustup's rustc before Rust left PATH) in one interleaved run, so the machine's drift falls on
# every row alike: figures, not a gate (docs/distribution.md, docs/performance.md).
cargo_bin=${SOPHIA_CARGO_BIN:-$root/target/release/sophia-hook}
archive_bin=$work/archive-x86_64-unknown-linux-musl/sophia-hook-x86_64-unknown-linux-musl-v$version/sophia-hook
plugin_bin=$(echo "$work"/plugin-sophia-hook-plugins-x86_64-unknown-linux-musl-*/plugins/claude/bin/sophia-hook)
names=("static floor" "dynamic floor" "cargo build --release (glibc, dynamic)")
bins=("$floor_static" "$floor_dynamic" "$cargo_bin")
[[ -n ${SOPHIA_STATIC_SOURCE_BIN:-} ]] && names+=("from source, the README's static line") && bins+=("$SOPHIA_STATIC_SOURCE_BIN")
[[ -x $archive_bin ]] && names+=("archive x86_64-unknown-linux-musl") && bins+=("$archive_bin")
[[ -x $npm_prefix/bin/sophia-hook ]] && names+=("npm: sophia-hook on PATH") && bins+=("$npm_prefix/bin/sophia-hook")
[[ -n $wheel_bin ]] && names+=("wheel: venv/bin/sophia-hook (pip, uv tool, pipx)") && bins+=("$wheel_bin/sophia-hook")
[[ -x $plugin_bin ]] && names+=("plugin: the Claude Code plugin's bin/sophia-hook") && bins+=("$plugin_bin")
if [[ ${SOPHIA_DIST_RUNS:-200} != 0 && -x $floor_static && -x $floor_dynamic ]]; then
  bench=$work/bench
  mkdir -p "$bench/home" "$bench/empty/.git"
  printf '{"session_id":"bench","turn_id":"t1","transcript_path":null,"cwd":"%s","hook_event_name":"UserPromptSubmit","model":"gpt-5.5","permission_mode":"default","prompt":"esegui una query sul database per verificare i record della tabella clienti"}' \
    "$bench/empty" >"$bench/typical.json"
  # The 1,000-skill project of the benches (benches/gen-p1000.sh), its index fresh.
  gen=$bench/p1000
  benches/gen-p1000.sh "$gen"
  HOME=$bench/home "$archive_bin" skills index --root "$gen" >/dev/null
  find "$gen" -type d -exec touch -d '-1 minute' {} +
  printf '{"session_id":"bench","turn_id":"t1","transcript_path":null,"cwd":"%s","hook_event_name":"UserPromptSubmit","model":"gpt-5.5","permission_mode":"default","prompt":"please use zeta499x on the report"}' \
    "$gen" >"$bench/fresh.json"
  table=$dist/../dist-latency.md
  {
    echo "| way in | typical prompt (ms) | × static floor | 1,000 skills, fresh index (ms) | × static floor |"
    echo "|---|---:|---:|---:|---:|"
  } >"$table"
  for payload in typical fresh; do
    HOME=$bench/home SOPHIA_ANALYTICS=off N=${SOPHIA_DIST_RUNS:-200} \
      python3 benches/interleaved.py "$bench/$payload.json" "${bins[@]}" >"$bench/$payload.txt"
  done
  for i in "${!bins[@]}"; do
    line=$((i + 1))
    t=$(sed -n "${line}p" "$bench/typical.txt")
    f=$(sed -n "${line}p" "$bench/fresh.txt")
    awk -v n="${names[$i]}" -v t="$t" -v f="$f" 'BEGIN {
      split(t, a, "\t"); split(f, b, "\t");
      sub(/^median /, "", a[2]); sub(/ ms$/, "", a[2]); sub(/x$/, "", a[3]);
      sub(/^median /, "", b[2]); sub(/ ms$/, "", b[2]); sub(/x$/, "", b[3]);
      printf "| %s | %s | %s× | %s | %s× |\n", n, a[2], a[3], b[2], b[3] }' >>"$table"
  done
  cat "$table"
fi
echo "dist-check: all artifacts installed and ran"
