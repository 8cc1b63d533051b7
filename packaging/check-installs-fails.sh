#!/usr/bin/env bash
# Every check of packaging/check-installs.sh can fail: from a folder holding the launcher
# (sophia-hook-<version>.tgz), the linux-x64 package and the x86_64 glibc wheel, one artifact at a
# time is made wrong in the way a check exists for, and check-installs.sh must exit non-zero
# saying so. Usage: packaging/check-installs-fails.sh DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[[ $# == 1 && -d $1 ]] || { echo "usage: packaging/check-installs-fails.sh DIR" >&2; exit 2; }
src=$(cd "$1" && pwd)
fail() { echo "check-installs-fails: $*" >&2; exit 1; }
shopt -s nullglob
launcher=$(cd "$src" && for f in sophia-hook-[0-9]*.tgz; do echo "$f"; done | head -n 1)
platform=$(cd "$src" && for f in sophia-hook-linux-x64-[0-9]*.tgz; do echo "$f"; done | head -n 1)
wheel=$(cd "$src" && for f in sophia_hook-*-py3-none-*linux*_x86_64.whl; do echo "$f"; done | grep -v musllinux | head -n 1)
[[ -n $launcher && -n $platform && -n $wheel ]] ||
  fail "$src needs sophia-hook-<version>.tgz, sophia-hook-linux-x64-<version>.tgz and an x86_64 glibc wheel"
version=${launcher#sophia-hook-}
version=${version%.tgz}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0

fresh() { rm -rf "$work/m" "$work/x"; mkdir -p "$work/m" "$work/x"; cp "$src/$launcher" "$src/$platform" "$work/m/"; }
repack() { # .tgz, shell command run in its unpacked folder (package/ inside)
  tar -xzf "$work/m/$1" -C "$work/x"
  (cd "$work/x" && eval "$2")
  tar -czf "$work/m/$1" -C "$work/x" package
}
rewheel() { # python expression over (name, data) → (name, data) or None; the new file name
  python3 - "$src/$wheel" "$work/m/$2" "$1" <<'PY'
import sys, zipfile
src, out, edit = sys.argv[1:]
with zipfile.ZipFile(src) as z, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as o:
    for info in z.infolist():
        got = eval(edit)(info.filename, z.read(info))
        if got is None:
            continue
        new = zipfile.ZipInfo(got[0], info.date_time)
        new.external_attr = info.external_attr
        o.writestr(new, got[1], zipfile.ZIP_DEFLATED)
PY
}
expect_fail() { # what the check must say, description
  local out
  if out=$("$here/check-installs.sh" "$work/m" 2>&1); then fail "check-installs.sh passed on $2"; fi
  [[ $out == *"$1"* ]] || fail "on $2, check-installs.sh failed without saying \"$1\": $out"
  n=$((n + 1))
  echo "ok fails on $2: $1"
}

# The unchanged copies pass: each failure below comes from its planted fault.
fresh
cp "$src/$wheel" "$work/m/"
"$here/check-installs.sh" "$work/m" >/dev/null || fail "the unchanged artifacts do not pass"

fresh
repack "$platform" "mv package/bin/sophia-hook package/real && printf '#!/bin/sh\nexec \"\$(dirname \"\$0\")/../real\" \"\$@\"\n' >package/bin/sophia-hook && chmod +x package/bin/sophia-hook"
expect_fail "hooks.json does not name" "a script in front of the binary"
fresh
repack "$platform" "sed -i 's/\"version\": \"$version\"/\"version\": \"$version-x\"/' package/package.json"
expect_fail "the launcher's is $version" "a platform package of another version"
fresh
repack "$platform" "chmod -x package/bin/sophia-hook"
expect_fail "is not executable" "a binary without its x bit"
fresh
repack "$platform" "sed -i 's/\"libc\"/\"libc_\"/' package/package.json"
expect_fail "libc undefined, expected" "a Linux package without libc"
fresh
repack "$launcher" "node -e 'const f=\"./package/package.json\", p=require(f); delete p.optionalDependencies[\"@sophia-hook/darwin-x64\"]; require(\"fs\").writeFileSync(f, JSON.stringify(p))'"
expect_fail "optionalDependencies" "a launcher without one platform"
fresh
repack "$launcher" "sed -i 's/\"bin\": {/\"scripts\": { \"postinstall\": \"node x\" },\n  \"bin\": {/' package/package.json"
expect_fail "has a postinstall script" "a launcher with an install script"
fresh
rm "$work/m/$launcher"
expect_fail "no launcher package" "no launcher"
fresh
repack "$platform" "printf '#!/bin/sh\necho sophia-hook 0.0.0\n' >package/bin/sophia-hook"
expect_fail "--version printed 'sophia-hook 0.0.0'" "a binary of another version"
fresh
repack "$platform" "printf '#!/bin/sh\n[ \"\$1\" = --version ] && echo sophia-hook $version\nexit 0\n' >package/bin/sophia-hook"
expect_fail "printed no contextMode=light" "a binary that answers no hook"
fresh
repack "$launcher" "sed -i 's/is not installed/is missing/' package/bin/sophia-hook.js"
expect_fail "did not say which package to install" "a launcher whose message names no package"

rm -rf "$work/m"; mkdir -p "$work/m"
rewheel 'lambda n, d: (n, d.replace(b"py3-none-", b"cp311-cp311-")) if n.endswith("/WHEEL") else (n, d)' "${wheel/py3-none/cp311-cp311}"
expect_fail "expected py3-none-<platform>" "a wheel tagged for one Python"
rm -rf "$work/m"; mkdir -p "$work/m"
rewheel 'lambda n, d: None if n.endswith("/__main__.py") else (n, d)' "$wheel"
expect_fail "no sophia_hook/__main__.py" "a wheel without python -m sophia_hook"
rm -rf "$work/m"; mkdir -p "$work/m"
rewheel 'lambda n, d: (n.replace(".data/scripts/", ".data/purelib/"), d) if ".data/scripts/" in n else (n, d)' "$wheel"
expect_fail "no sophia-hook binary under" "a wheel with the binary outside scripts/"

echo "check-installs-fails: $n planted faults, each caught"
