#!/usr/bin/env bash
# Every artifact a user installs without a Rust toolchain, built into target/dist/
# (docs/distribution.md says what each one is and how it is installed):
#   sophia-hook-<triple>-v<version>.tar.gz (.zip for Windows)    release archive, cargo binstall's
#                                                                default name and layout
#   <platform>.<arch>.sophia-hook.tar.gz (.zip for Windows)      the Gemini CLI extension, named as
#                                                                Gemini CLI looks for release assets
#   sophia-hook-plugins-<triple>-v<version>.tar.gz (.zip)        the Claude Code / Copilot CLI / Codex
#                                                                plugin marketplace folder
#   sophia-hook-<version>.tgz, sophia-hook-<platform>-<version>.tgz
#                                                                the npm launcher and one package per
#                                                                platform (packaging/npm/)
#   sophia_hook-<version>-py3-none-<platform>.whl                one wheel per platform (maturin,
#                                                                bindings = "bin"; packaging/python/)
#   SHA256SUMS                                                   of every file above
# and the bare binaries under target/dist/bin/<triple>/ (not release files).
#
# The targets are the rows of packaging/platforms.json; SOPHIA_DIST_TARGETS="triple …" builds a
# subset (it must hold x86_64-unknown-linux-musl, the binary that runs here: it writes the plugin
# folders). Every binary is the release profile of Cargo.toml, symbols stripped.
#
# How each target is built, from Debian and PyPI packages only (installed when missing, and said
# first: see "== dist: what this installs"):
# - every target: Debian's rustc-web/cargo-web 1.96 with its std source (rust-web-src) and
#   `-Zbuild-std` (RUSTC_BOOTSTRAP=1 for that compiler only, as scripts/windows-ci.sh does),
#   linked by zig (Linux, macOS) or by mingw-w64 (Windows);
# - Linux: musl, static and not position-independent (`-C relocation-model=static`): no dynamic
#   loader and no start-up relocations, so the one binary runs on any Linux, glibc or musl, and
#   starts at the static floor (docs/distribution.md, "Static on Linux"); `-C
#   link-self-contained=no`: zig brings musl's start files and libc, which a std built from
#   source does not have. Its wheel carries the manylinux and the musllinux tags
#   (`wheel_tags` of packaging/platforms.json);
# - maturin (PyPI) drives each build and writes the wheel; the archives and the npm packages take
#   the same binary from its target folder, so every artifact of a platform holds one binary.
# macOS binaries are built and checked as Mach-O of their architecture, never run here.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
[[ -n $version ]] || { echo "dist: no version in Cargo.toml" >&2; exit 1; }
dist=${SOPHIA_DIST_DIR:-$root/target/dist}
tools=$root/target/dist-tools
build=$root/target/dist-build
# Archives that do not change with the time they were built.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}

# The platform table, one line per target: triple, os, binary file name, release-asset prefix.
mapfile -t rows < <(python3 - <<'EOF'
import json
for p in json.load(open("packaging/platforms.json"))["platforms"]:
    print(p["triple"], p["os"], p["binary"], p.get("asset", "-"), ".".join(p.get("wheel_tags", [])) or "-", sep="\t")
EOF
)
wanted=${SOPHIA_DIST_TARGETS:-}
selected=()
for row in "${rows[@]}"; do
  triple=${row%%$'\t'*}
  if [[ -z $wanted || " $wanted " == *" $triple "* ]]; then selected+=("$row"); fi
done
((${#selected[@]})) || { echo "dist: no target of packaging/platforms.json selected" >&2; exit 1; }

echo "== dist: what this installs"
# Said before it is done (a CI machine runs this as root): Debian packages only when missing, the
# PyPI tools into this clone's target/dist-tools/venv only.
need=()
[[ -x /usr/bin/cargo && -d /usr/lib/rustlib/src/rust/library ]] || need+=(rustc-web cargo-web rust-web-src)
command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || need+=(gcc-mingw-w64-x86-64)
if ((${#need[@]})); then
  echo "dist: apt-get install ${need[*]} (Debian: the cross compiler and its std source, mingw-w64)"
else
  echo "dist: Debian packages: none needed (rustc-web, cargo-web, rust-web-src, gcc-mingw-w64-x86-64 are here)"
fi
pinned=$(grep -v '^#' packaging/dist-tools.txt)
if [[ -x $tools/venv/bin/pip ]] && [[ -z $(comm -23 <(sort <<<"$pinned") <("$tools/venv/bin/pip" freeze --all 2>/dev/null | sort)) ]]; then
  echo "dist: PyPI tools: $(tr '\n' ' ' <<<"$pinned")already in $tools/venv"
  fresh_tools=0
else
  echo "dist: pip install into $tools/venv: $(tr '\n' ' ' <<<"$pinned")"
  fresh_tools=1
fi
if ((${#need[@]})); then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
if ((fresh_tools)); then
  python3 -m venv "$tools/venv"
  "$tools/venv/bin/pip" install --quiet --disable-pip-version-check -r packaging/dist-tools.txt
fi
# maturin runs `cargo` from PATH: for the cross targets, Debian's (never rustup's proxy, first on
# PATH otherwise).
mkdir -p "$tools/debian"
ln -sf /usr/bin/cargo "$tools/debian/cargo"
ln -sf /usr/bin/rustc "$tools/debian/rustc"
debian_path=$tools/debian:$tools/venv/bin:$PATH

rm -rf "$dist"
mkdir -p "$dist/bin"
export CARGO_TERM_COLOR=never CARGO_PROFILE_RELEASE_STRIP=symbols
export CARGO_TARGET_X86_64_UNKNOWN_LINUX_MUSL_RUSTFLAGS="-C link-self-contained=no -C relocation-model=static"
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_MUSL_RUSTFLAGS="-C link-self-contained=no -C relocation-model=static"

# One target: maturin builds the binary and writes the wheel; the binary is then copied out of its
# own target folder (one per target, so two builds can run at once).
build_one() { # triple, os, binary file name, wheel tags ("-": maturin's own)
  local triple=$1 exe=$3 tags=$4 start=$SECONDS
  local -a args=(build --release --locked --strip --target "$triple" --out "$build/wheels-$triple"
    --target-dir "$build/$triple")
  rm -rf "$build/wheels-$triple"
  (
    cd packaging/python
    case $triple in
      *-pc-windows-gnu)
        PATH=$debian_path RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 \
          maturin "${args[@]}" -Z build-std=std,panic_unwind ;;
      *)
        PATH=$debian_path RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 \
          maturin "${args[@]}" -Z build-std=std,panic_unwind --zig ;;
    esac
  )
  local wheel
  wheel=$(echo "$build/wheels-$triple"/*.whl)
  [[ -f $wheel ]] || { echo "dist: maturin wrote no wheel for $triple"; return 1; }
  if [[ $tags != - ]]; then
    # A static binary needs no libc of the system: the one wheel is for glibc and musl alike.
    "$tools/venv/bin/wheel" tags --remove --platform-tag "$tags" "$wheel" >/dev/null
    wheel=$(echo "$build/wheels-$triple"/*.whl)
  fi
  mv "$wheel" "$dist/"
  mkdir -p "$dist/bin/$triple"
  cp "$build/$triple/$triple/release/$exe" "$dist/bin/$triple/$exe"
  echo "dist: $triple built in $((SECONDS - start)) s ($(basename "$wheel"))"
}

# The last step of each build (fat LTO, one codegen unit) runs on one core: two builds at a time
# keep both cores of a CI machine busy (SOPHIA_DIST_JOBS).
jobs=${SOPHIA_DIST_JOBS:-2}
mkdir -p "$build/logs"
pids=() names=()
wait_one() { # waits for the oldest build; prints its log when it failed
  local pid=${pids[0]} name=${names[0]}
  pids=("${pids[@]:1}") names=("${names[@]:1}")
  if ! wait "$pid"; then
    cat "$build/logs/$name.log" >&2
    echo "dist: the $name build failed (log above)" >&2
    exit 1
  fi
  tail -n 1 "$build/logs/$name.log"
}
echo "== dist: building ${#selected[@]} targets, $jobs at a time"
for row in "${selected[@]}"; do
  IFS=$'\t' read -r triple os exe _asset tags <<<"$row"
  ((${#pids[@]} < jobs)) || wait_one
  build_one "$triple" "$os" "$exe" "$tags" >"$build/logs/$triple.log" 2>&1 &
  pids+=($!) names+=("$triple")
done
while ((${#pids[@]})); do wait_one; done

# The binary that runs here writes the plugin folders for every target.
tool=$dist/bin/x86_64-unknown-linux-musl/sophia-hook
[[ -x $tool ]] || { echo "dist: no x86_64-unknown-linux-musl binary built; it writes the plugin folders" >&2; exit 1; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
tar_to() { # archive, folder: its entries at the archive's root (no leading ./)
  local entries
  mapfile -t entries < <(cd "$2" && LC_ALL=C ls -A)
  # Readable by everyone who installs it (plugin build writes 0600/0700, the house rule for a
  # user's own files): group and others get read, and execute where the owner has it.
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
    --mode=go+rX,go-w -C "$2" -czf "$1" -- "${entries[@]}"
}
zip_to() { # archive, folder: its content at the archive's root
  python3 - "$1" "$2" <<'EOF'
import os, sys, time, zipfile
out, top = sys.argv[1], sys.argv[2]
stamp = time.gmtime(max(int(os.environ["SOURCE_DATE_EPOCH"]), 315532800))[:6]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for base, dirs, files in sorted(os.walk(top)):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(base, name)
            info = zipfile.ZipInfo(os.path.relpath(path, top).replace(os.sep, "/"), stamp)
            # As tar_to: group and others read, and execute where the owner has it.
            mode = os.stat(path).st_mode & 0o777
            mode = (mode | 0o044 | (0o011 if mode & 0o100 else 0)) & ~0o022
            info.external_attr = mode << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            with open(path, "rb") as f:
                z.writestr(info, f.read())
EOF
}
pack() { # archive base name (no suffix), folder, os
  if [[ $3 == windows ]]; then zip_to "$dist/$1.zip" "$2"; else tar_to "$dist/$1.tar.gz" "$2"; fi
}

npm_bins=()
for row in "${selected[@]}"; do
  IFS=$'\t' read -r triple os exe asset _tags <<<"$row"
  bin=$dist/bin/$triple/$exe
  npm_bins+=(--binary "$triple=$bin")

  echo "== dist: archives for $triple"
  # Release archive: <name>-<target>-v<version>/<bin> (cargo binstall's default bin-dir).
  name=sophia-hook-$triple-v$version
  mkdir -p "$stage/$name/$name"
  install -m 0755 "$bin" "$stage/$name/$name/$exe"
  cp packaging/LICENSE README.md "$stage/$name/$name/"
  pack "$name" "$stage/$name" "$os"

  # Plugins, from the one binary per OS and architecture that has a release-asset prefix: the
  # marketplace folder for Claude Code, Copilot CLI and Codex, and the Gemini CLI extension with
  # gemini-extension.json at the archive's root.
  [[ $asset == - ]] && continue
  "$tool" plugin build --out "$stage/plugins-$triple" --binary "$bin" --os "$os" >/dev/null
  cp packaging/LICENSE "$stage/plugins-$triple/marketplace/"
  cp packaging/LICENSE "$stage/plugins-$triple/gemini-extension/"
  pack "sophia-hook-plugins-$triple-v$version" "$stage/plugins-$triple/marketplace" "$os"
  pack "$asset.sophia-hook" "$stage/plugins-$triple/gemini-extension" "$os"
done

echo "== dist: npm packages"
node packaging/npm/pack.mjs --out "$dist" "${npm_bins[@]}"

echo "== dist: SHA256SUMS"
(cd "$dist" && find . -maxdepth 1 -type f ! -name SHA256SUMS -printf '%f\n' | LC_ALL=C sort |
  xargs sha256sum >SHA256SUMS)
echo "== dist: $dist"
(cd "$dist" && find . -maxdepth 1 -type f -printf '%f\t%s\n' | LC_ALL=C sort |
  awk -F'\t' '{ printf "%10.1f KiB  %s\n", $2 / 1024, $1 }')
