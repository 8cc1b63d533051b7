#!/usr/bin/env bash
# Every check of packaging/check-installs.sh can fail: from a folder holding the launcher
# (sophia-hook-<version>.tgz), the linux-x64 package and the x86_64 manylinux wheel, one artifact at a
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
wheel=$(cd "$src" && for f in sophia_hook-*-py3-none-*manylinux*_x86_64*.whl; do echo "$f"; done | head -n 1)
[[ -n $launcher && -n $platform && -n $wheel ]] ||
  fail "$src needs sophia-hook-<version>.tgz, sophia-hook-linux-x64-<version>.tgz and an x86_64 manylinux wheel"
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
expect_fail "the command on PATH is not the native binary" "a script in front of the binary"
fresh
repack "$platform" "sed -i 's/\"version\": \"$version\"/\"version\": \"$version-x\"/' package/package.json"
expect_fail "the launcher's is $version" "a platform package of another version"
fresh
repack "$platform" "chmod -x package/bin/sophia-hook"
expect_fail "is not executable" "a binary without its x bit"
fresh
repack "$platform" "sed -i 's/\"os\": \\[/\"libc\": [\"glibc\"],\n  \"os\": [/' package/package.json"
expect_fail 'libc ["glibc"], expected none' "a static Linux package restricted to glibc"
fresh
repack "$launcher" "node -e 'const f=\"./package/package.json\", p=require(f); delete p.optionalDependencies[\"@sophia-hook/darwin-x64\"]; require(\"fs\").writeFileSync(f, JSON.stringify(p))'"
expect_fail "optionalDependencies" "a launcher without one platform"
fresh
repack "$launcher" "sed -i 's/\"postinstall\": \"node install.js\"/\"postinstall\": \"node install.js\", \"preinstall\": \"node x\"/' package/package.json"
expect_fail "expected {\"postinstall\":\"node install.js\"}" "a launcher with another install script"
# The planted launcher: a postinstall that leaves the node launcher on PATH.
fresh
repack "$launcher" "printf '// nothing\n' >package/install.js"
expect_fail "the command on PATH is not the native binary" "a postinstall that leaves the launcher on PATH"
fresh
rm "$work/m/$launcher"
expect_fail "no launcher package" "no launcher"
fresh
repack "$platform" "printf '#!/bin/sh\necho sophia-hook 0.0.0\n' >package/bin/sophia-hook"
expect_fail 'says "sophia-hook 0.0.0", not sophia-hook' "a binary of another version"
fresh
# A native binary (C, by the system's cc) that gives the right version and answers no hook.
printf '#include <stdio.h>\n#include <string.h>\nint main(int c, char **v) {\n  if (c > 1 && !strcmp(v[1], "--version")) puts("sophia-hook %s");\n  return 0;\n}\n' "$version" >"$work/mute.c"
cc -O2 -o "$work/mute" "$work/mute.c" || fail "cc could not build the planted binary"
repack "$platform" "cp '$work/mute' package/bin/sophia-hook"
expect_fail "printed no contextMode=light" "a binary that answers no hook"
fresh
repack "$launcher" "sed -i 's/is not installed/is missing/' package/launcher.js"
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
rm -rf "$work/m"; mkdir -p "$work/m"
rewheel 'lambda n, d: (n, b"#!/bin/sh\nexec sophia-hook \"$@\"\n") if n.endswith(".data/scripts/sophia-hook") else (n, d)' "$wheel"
expect_fail "the command on PATH is not the native binary" "a wheel whose command is a script"

echo "check-installs-fails: $n planted faults, each caught"
