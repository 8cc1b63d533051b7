#!/usr/bin/env bash
# Every check of scripts/dist-check.sh can fail: for each one, an artifact of target/dist/ is made
# wrong in the way that check exists for (a corrupted download, a dynamic or a position-independent
# binary in the static archive, a plugin holding another platform's binary, a wrong version, a binary that answers
# nothing, a launcher in front of the binary, a missing manifest), and dist-check.sh must exit
# non-zero naming that check. Runs on the x86_64-unknown-linux-musl artifacts (they run here).
# Called by .ci/run after dist-check.sh. Usage: scripts/dist-check-fails.sh [DIST_DIR].
set -euo pipefail
cd "$(dirname "$0")/.."
dist=$(cd "${1:-target/dist}" && pwd)
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
musl=x86_64-unknown-linux-musl
archive=sophia-hook-$musl-v$version
gemini=linux.x64.sophia-hook.tar.gz
plugins=sophia-hook-plugins-$musl-v$version.tar.gz
for f in "$archive.tar.gz" "$gemini" "$plugins"; do
  [[ -f $dist/$f ]] || { echo "dist-check-fails: no $dist/$f (run scripts/dist.sh)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
# Inverts one byte of a file (a fixed byte written there could already be the one there).
flip() { # file, offset
  python3 -c 'import sys; f = open(sys.argv[1], "r+b"); o = int(sys.argv[2]); f.seek(o); b = f.read(1)[0]; f.seek(o); f.write(bytes([b ^ 0xFF]))' "$1" "$2"
}

# A dist folder with the musl artifacts only, in `$work/m`, with SHA256SUMS of what it holds.
fresh() {
  rm -rf "$work/m" "$work/x"
  mkdir -p "$work/m" "$work/x"
  cp "$dist/$archive.tar.gz" "$dist/$gemini" "$dist/$plugins" "$work/m/"
}
resum() { (cd "$work/m" && sha256sum -- *.tar.gz >SHA256SUMS); }
# Rewrites one archive of `$work/m` after `edit` ran in its unpacked folder ($1: archive, $2: a
# shell command run in the folder).
repack() {
  local dir=$work/x/$1
  mkdir -p "$dir"
  tar -xzf "$work/m/$1" -C "$dir"
  (cd "$dir" && eval "$2")
  # Every entry, the dot folders (.claude-plugin/, .agents/…) included.
  local entries
  mapfile -t entries < <(cd "$dir" && ls -A)
  (cd "$dir" && tar -czf "$work/m/$1" -- "${entries[@]}")
}
expect_fail() { # what the check must say, description
  local out
  if out=$(SOPHIA_DIST_RUNS=0 scripts/dist-check.sh "$work/m" 2>&1); then
    echo "dist-check-fails: dist-check.sh passed on $2" >&2
    exit 1
  fi
  if [[ $out != *"$1"* ]]; then
    printf 'dist-check-fails: on %s, dist-check.sh failed without saying "%s":\n%s\n' "$2" "$1" "$out" >&2
    exit 1
  fi
  n=$((n + 1))
  echo "ok fails on $2: $1"
}

# The unchanged copy passes: the failures below come from the planted fault alone.
fresh
resum
SOPHIA_DIST_RUNS=0 scripts/dist-check.sh "$work/m" >/dev/null ||
  { echo "dist-check-fails: the unchanged musl artifacts do not pass" >&2; exit 1; }

fresh
resum
flip "$work/m/$archive.tar.gz" 100
expect_fail "SHA256SUMS does not match" "a corrupted archive"

# A dynamic binary (what a plain `cargo build` gives: glibc's loader, position-independent) in the
# static archive and in the Gemini extension; a static but position-independent one (static-pie,
# relocated by its own start code at every start) in the archive.
cargo_bin=$(readlink -f "${SOPHIA_CARGO_BIN:-target/release/sophia-hook}" || true)
if [[ -x $cargo_bin ]]; then
  fresh
  repack "$archive.tar.gz" "cp '$cargo_bin' $archive/sophia-hook"
  resum
  expect_fail "is not static: it names a dynamic loader" "a dynamic glibc binary in the static archive"

  fresh
  repack "$gemini" "cp '$cargo_bin' bin/sophia-hook"
  resum
  expect_fail "is not the $musl binary" "another binary in the Gemini extension"
fi
# Static binaries that are not what ships, made from benches/floor.rs by rustup's rustc: a
# static-pie one (relocated by its own start code) and a static non-PIE glibc one (its ifuncs'
# IRELATIVE relocations applied at every start). The form is checked before the binary runs.
if command -v rustc >/dev/null 2>&1 &&
  rustc --edition 2021 -C opt-level=3 -C target-feature=+crt-static -o "$work/static-pie" benches/floor.rs 2>/dev/null &&
  rustc --edition 2021 -C opt-level=3 -C target-feature=+crt-static -C relocation-model=static \
    -o "$work/static-glibc" benches/floor.rs 2>/dev/null; then
  fresh
  repack "$archive.tar.gz" "cp '$work/static-pie' $archive/sophia-hook"
  resum
  expect_fail "is position-independent" "a static-pie binary in the archive"

  fresh
  repack "$archive.tar.gz" "cp '$work/static-glibc' $archive/sophia-hook"
  resum
  expect_fail "start-up relocations" "a static glibc binary with start-up relocations in the archive"
fi

fresh
repack "$archive.tar.gz" "printf '#!/bin/sh\necho sophia-hook 0.0.0\n' > $archive/sophia-hook"
resum
expect_fail "--version printed 'sophia-hook 0.0.0'" "a binary of another version"

fresh
repack "$archive.tar.gz" "mv $archive/sophia-hook $archive/real && printf '#!/bin/sh\ncase \$1 in --version) exec \"\$(dirname \"\$0\")/real\" --version;; esac\nexit 0\n' > $archive/sophia-hook && chmod +x $archive/sophia-hook"
resum
expect_fail "smoke checks failed" "a binary that answers no hook"

# A launcher in front of the binary: what runs as `sophia-hook` is a script that starts the real
# binary, which registers its own path; the hook command must name the file the user installed.
fresh
repack "$archive.tar.gz" "mv $archive/sophia-hook $archive/real && printf '#!/bin/sh\nexec \"\$(dirname \"\$0\")/real\" \"\$@\"\n' > $archive/sophia-hook && chmod +x $archive/sophia-hook"
resum
expect_fail "hooks.json does not name" "a launcher in front of the binary"

fresh
repack "$gemini" "rm gemini-extension.json"
resum
expect_fail "no gemini-extension.json at its root" "a Gemini extension without its manifest"

fresh
repack "$plugins" "rm .agents/plugins/marketplace.json"
resum
expect_fail ".agents/plugins/marketplace.json" "a marketplace without Codex's manifest"

# A macOS arm64 binary changed after it was signed (macOS would kill it at start).
mac=sophia-hook-aarch64-apple-darwin-v$version.tar.gz
if [[ -f $dist/$mac ]]; then
  fresh
  cp "$dist/$mac" "$work/m/"
  repack "$mac" "flip sophia-hook-aarch64-apple-darwin-v$version/sophia-hook 5000"
  resum
  expect_fail "modified after signing" "a macOS arm64 binary changed after signing"
fi

echo "dist-check-fails: $n planted faults, each caught by its check"
