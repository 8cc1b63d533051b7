#!/usr/bin/env bash
# Installs every artifact scripts/dist.sh wrote into target/dist/ the way a user without Rust
# would, with no network (`unshare -n`) and no Rust on PATH, then runs what was installed: the
# smoke checks (scripts/smoke.sh), `--version`, and `install --host codex` in a temporary HOME,
# which must register the native binary, never a launcher. Called by .ci/run after dist.sh.
# - release archives: unpacked; x86_64 Linux (glibc and static musl) run here, aarch64 under
#   qemu-user with Debian's arm64 glibc, Windows under Wine (the prefix scripts/windows-ci.sh
#   made); macOS binaries are checked as Mach-O executables of their architecture, not run;
# - the plugin and Gemini CLI extension archives: their layout, and their binary run as above;
# - npm packages and wheels: packaging/check-installs.sh (npm install -g --offline of the .tgz
#   files, pip install --no-index of the wheel into a fresh venv);
# - SHA256SUMS verified;
# - the hook's latency through each way in, against the binary cargo built, in one hyperfine run
#   (figures, not a gate: docs/distribution.md).
# Usage: scripts/dist-check.sh [DIST_DIR] (default target/dist); SOPHIA_DIST_RUNS=0 skips the
# timing. scripts/dist-check-fails.sh shows that each check fails on an artifact made wrong.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dist=$(cd "${1:-target/dist}" && pwd)
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)

need=()
command -v qemu-aarch64 >/dev/null 2>&1 || need+=(qemu-user)
[[ -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ]] || need+=(libc6-arm64-cross)
command -v file >/dev/null 2>&1 || need+=(file)
command -v objdump >/dev/null 2>&1 || need+=(binutils)
command -v hyperfine >/dev/null 2>&1 || need+=(hyperfine)
if ((${#need[@]})); then
  echo "dist-check: installing ${need[*]} from Debian"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
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
    aarch64-unknown-linux-gnu) echo "qemu-aarch64 -L /usr/aarch64-linux-gnu" ;;
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
  run_checks "archive $triple" "$triple" "$dir/$name/$exe" "$expect"
  if [[ $triple == *-linux-gnu ]]; then
    # Linked against glibc 2.17 (manylinux2014): it runs on any glibc Linux of the last decade.
    newest=$(objdump -T "$dir/$name/$exe" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n 1)
    [[ $(printf '%s\n' "$newest" GLIBC_2.17 | sort -V | tail -n 1) == GLIBC_2.17 ]] ||
      fail "$triple needs $newest, newer than the glibc 2.17 of manylinux2014"
    echo "ok archive $triple: needs at most $newest"
  fi
  if [[ $triple == *-linux-musl ]]; then
    file -b "$dir/$name/$exe" | grep -q 'static' || fail "$triple is not statically linked"
    echo "ok archive $triple: statically linked"
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

echo "== latency of the hook through each way in (hyperfine, same run)"
payload=$work/payload.json
cp fixtures/prompts/codex/prompt-quick.json "$payload"
native=$work/archive-x86_64-unknown-linux-musl/sophia-hook-x86_64-unknown-linux-musl-v$version/sophia-hook
gnu=$work/archive-x86_64-unknown-linux-gnu/sophia-hook-x86_64-unknown-linux-gnu-v$version/sophia-hook
cargo_bin=${SOPHIA_CARGO_BIN:-$root/target/release/sophia-hook}
cmds=()
[[ -x $cargo_bin ]] && cmds+=(-n "cargo build --release" "$cargo_bin --host codex < $payload")
[[ -x $gnu ]] && cmds+=(-n "archive x86_64-unknown-linux-gnu" "$gnu --host codex < $payload")
[[ -x $native ]] && cmds+=(-n "archive x86_64-unknown-linux-musl" "$native --host codex < $payload")
npm_prefix=$work/installs/npm-linux-x64
if [[ -x $npm_prefix/bin/sophia-hook ]]; then
  cmds+=(-n "npm: the native binary (what install registers)"
    "$npm_prefix/lib/node_modules/@sophia-hook/linux-x64/bin/sophia-hook --host codex < $payload")
  cmds+=(-n "npm: the node launcher (never registered)" "$npm_prefix/bin/sophia-hook --host codex < $payload")
fi
for venv in "$work"/installs/venv-*manylinux*; do
  [[ -x $venv/bin/sophia-hook ]] &&
    cmds+=(-n "wheel: venv/bin/sophia-hook" "$venv/bin/sophia-hook --host codex < $payload")
done
if ((${#cmds[@]})) && [[ ${SOPHIA_DIST_RUNS:-200} != 0 ]]; then
  HOME=$work SOPHIA_ANALYTICS=off hyperfine --warmup 20 --runs "${SOPHIA_DIST_RUNS:-200}" \
    --style basic --export-markdown "$dist/../dist-latency.md" "${cmds[@]}"
  cat "$dist/../dist-latency.md"
fi
echo "dist-check: all artifacts installed and ran"
