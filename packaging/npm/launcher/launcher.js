// The npm launcher of sophia-hook: finds the native binary of this platform (the optional
// dependency @sophia-hook/<platform> npm installed next to this package) and runs it with the same
// arguments, standard streams and exit status (`bin/sophia-hook` calls `run`). No dependencies.
//
// Only the fallback: the package's postinstall (install.js, which asks `findBinary` here) replaces
// bin/sophia-hook — the command npm links on PATH — by that native binary, so no Node process
// starts per hook run. The launcher runs where that could not happen (Windows, whose npm shims
// start node; `--ignore-scripts`).
"use strict";

const { spawnSync } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");

// platforms.json is packaging/platforms.json, copied in by packaging/npm/pack.mjs.
const { platforms } = require(path.join(__dirname, "platforms.json"));

// A launcher failure: one line for the user (exit 1 from `run`), an exception for install.js.
class LaunchError extends Error {}
function fail(message) {
  throw new LaunchError(message);
}

// The binary installed for one platform row, or null when its package is not installed.
function resolveBinary(row) {
  try {
    return require.resolve(`${row.npm}/bin/${row.binary}`);
  } catch (_) {
    return null;
  }
}

// The binary to run: SOPHIA_HOOK_BINARY when set (and `honourVariable`), else the platform
// package's. Throws a LaunchError saying what to do when there is none.
function findBinary({ honourVariable = true } = {}) {
  const explicit = honourVariable ? process.env.SOPHIA_HOOK_BINARY : "";
  if (explicit) {
    if (!fs.existsSync(explicit)) {
      fail(`SOPHIA_HOOK_BINARY is ${explicit}, which does not exist`);
    }
    return explicit;
  }
  const here = platforms.filter(
    (p) => p.node_platform === process.platform && p.node_arch === process.arch,
  );
  if (here.length === 0) {
    fail(
      `no prebuilt binary for ${process.platform}-${process.arch}; ` +
        "build sophia-hook from source and set SOPHIA_HOOK_BINARY to its path",
    );
  }
  // One row per platform and architecture (the Linux binaries are static: one for every libc).
  for (const row of here) {
    const bin = resolveBinary(row);
    if (bin) return bin;
  }
  const wanted = here[0].npm;
  fail(
    `the package ${wanted} (the native binary for ${process.platform}-${process.arch}) ` +
      "is not installed; reinstall with optional dependencies " +
      "(npm i -g sophia-hook, without --omit=optional or --no-optional), " +
      "or set SOPHIA_HOOK_BINARY to the path of a sophia-hook binary",
  );
}

function run() {
  let bin;
  try {
    bin = findBinary();
  } catch (e) {
    if (!(e instanceof LaunchError)) throw e;
    process.stderr.write(`sophia-hook: ${e.message}\n`);
    process.exit(1);
  }
  const result = spawnSync(bin, process.argv.slice(2), { stdio: "inherit" });
  if (result.error) {
    process.stderr.write(`sophia-hook: could not run ${bin}: ${result.error.message}\n`);
    process.exit(1);
  }
  if (result.signal) {
    // The shell's convention for a child killed by a signal.
    const number = os.constants.signals[result.signal];
    process.exit(128 + (number || 0));
  }
  process.exit(result.status === null ? 1 : result.status);
}

module.exports = { findBinary, run, LaunchError };
