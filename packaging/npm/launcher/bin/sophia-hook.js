#!/usr/bin/env node
// The npm launcher of sophia-hook: finds the native binary of this platform (the optional
// dependency @sophia-hook/<platform> npm installed next to this package) and runs it with the same
// arguments, standard streams and exit status. No dependencies, no install script.
//
// Hook commands never point here (a Node start costs far more than the hook): the binary sees its
// own path as its executable, and that is what `sophia-hook install` registers.
"use strict";

const { spawnSync } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");

// platforms.json is packaging/platforms.json, copied in by packaging/npm/pack.mjs.
const { platforms } = require(path.join(__dirname, "..", "platforms.json"));

function fail(message) {
  process.stderr.write(`sophia-hook: ${message}\n`);
  process.exit(1);
}

// glibc or musl, for a Linux node; null elsewhere. Node's diagnostic report names the glibc it runs
// on; a node built for musl has no such field.
function linuxLibc() {
  if (process.platform !== "linux") return null;
  try {
    if (process.report && typeof process.report.getReport === "function") {
      if ("excludeNetwork" in process.report) process.report.excludeNetwork = true;
      const header = process.report.getReport().header;
      return header && header.glibcVersionRuntime ? "glibc" : "musl";
    }
  } catch (_) {
    // fall through to the file test
  }
  return fs.existsSync("/etc/alpine-release") ? "musl" : "glibc";
}

// The binary installed for one platform row, or null when its package is not installed.
function resolveBinary(row) {
  try {
    return require.resolve(`${row.npm}/bin/${row.binary}`);
  } catch (_) {
    return null;
  }
}

function findBinary() {
  const explicit = process.env.SOPHIA_HOOK_BINARY;
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
  // On Linux the row of this libc first; the other one still serves (a static musl binary runs on
  // glibc too; npm may have installed only the other one).
  const libc = linuxLibc();
  const ordered = here
    .filter((p) => !p.libc || p.libc === libc)
    .concat(here.filter((p) => p.libc && p.libc !== libc));
  for (const row of ordered) {
    const bin = resolveBinary(row);
    if (bin) return bin;
  }
  const wanted = ordered[0].npm;
  fail(
    `the package ${wanted} (the native binary for ${process.platform}-${process.arch}` +
      `${libc ? ` ${libc}` : ""}) is not installed; reinstall with optional dependencies ` +
      "(npm i -g sophia-hook, without --omit=optional or --no-optional), " +
      "or set SOPHIA_HOOK_BINARY to the path of a sophia-hook binary",
  );
}

const bin = findBinary();
const result = spawnSync(bin, process.argv.slice(2), { stdio: "inherit" });
if (result.error) {
  fail(`could not run ${bin}: ${result.error.message}`);
}
if (result.signal) {
  // The shell's convention for a child killed by a signal.
  const number = os.constants.signals[result.signal];
  process.exit(128 + (number || 0));
}
process.exit(result.status === null ? 1 : result.status);
