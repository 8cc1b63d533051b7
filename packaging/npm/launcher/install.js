#!/usr/bin/env node
// The npm package's postinstall: puts the native binary where npm linked the `sophia-hook` command,
// so the command on PATH is the binary itself and no Node process starts per hook run (as
// esbuild's installer does). npm links `sophia-hook` to this package's bin/sophia-hook, which is
// the launcher as packed (it runs launcher.js); here it is replaced — by one rename — with the
// platform package's binary, once that binary has answered `--version` with this version.
//
// Only under npm, and never on Windows: npm's .cmd and .ps1 shims (and other package managers'
// shims) were written for the launcher (they start node on it), so there the launcher stays. Never fatal: anything that fails leaves the launcher in place,
// which runs the same binary (slower), and says why on stderr; `npm rebuild -g sophia-hook` runs
// this again (`--ignore-scripts` skips it).
"use strict";

const { execFileSync } = require("child_process");
const fs = require("fs");
const path = require("path");

const { findBinary } = require("./launcher.js");
const pkg = require("./package.json");
const command = path.join(__dirname, "bin", "sophia-hook");

function note(message) {
  process.stderr.write(`sophia-hook postinstall: ${message}\n`);
}

function main() {
  if (process.platform === "win32") return; // the shims start node on the launcher
  // npm links the command as a symbolic link to bin/sophia-hook, so what is there runs as itself.
  // Other package managers may write a shim that starts node on it (pnpm's cmd-shim does, read at
  // link time): there a binary in the script's place would not start, so the launcher stays.
  const agent = process.env.npm_config_user_agent || "";
  if (!agent.startsWith("npm/")) {
    note(`installed by ${agent.split(" ")[0] || "an unknown package manager"}, not npm: the node launcher stays on PATH`);
    return;
  }
  let native;
  try {
    // The launcher's own choice of platform package (this platform and libc first).
    native = findBinary({ honourVariable: false });
  } catch (e) {
    note(`${e.message}; the node launcher stays on PATH`);
    return;
  }
  let version;
  try {
    version = execFileSync(native, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch (e) {
    note(`${native} does not run here (${e.message}); the node launcher stays on PATH`);
    return;
  }
  if (version !== `sophia-hook ${pkg.version}`) {
    note(`${native} says "${version}", not sophia-hook ${pkg.version}; the node launcher stays on PATH`);
    return;
  }
  // A sibling of the launcher, then one rename: the command is the launcher or the binary, never
  // half of one.
  const tmp = path.join(__dirname, "bin", `.sophia-hook.${process.pid}.tmp`);
  try {
    fs.rmSync(tmp, { force: true });
    try {
      fs.linkSync(native, tmp);
    } catch (_) {
      fs.copyFileSync(native, tmp);
    }
    fs.chmodSync(tmp, 0o755);
    fs.renameSync(tmp, command);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    note(`could not put ${native} at ${command} (${e.message}); the node launcher stays on PATH`);
  }
}

main();
