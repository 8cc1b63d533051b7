#!/usr/bin/env node
// Writes the npm packages of sophia-hook and packs each one with `npm pack`:
//   sophia-hook                 the command (bin/sophia-hook: the launcher, launcher.js, until its
//                               postinstall, install.js, puts the native binary there),
//                               optionalDependencies on every platform package of
//                               packaging/platforms.json
//   @sophia-hook/<platform>     one per --binary given: the native binary at bin/<binary name>,
//                               with the row's os, cpu and (Linux) libc
// Name and version come from Cargo.toml, the rows from packaging/platforms.json, so every
// package has the crate's version. No dependencies.
//
// Usage: node packaging/npm/pack.mjs --out DIR --binary <rust-triple>=<path> [--binary ...]
// Prints the path of each .tgz written.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const packaging = path.resolve(here, "..");
const root = path.resolve(packaging, "..");

function die(message) {
  process.stderr.write(`pack.mjs: ${message}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const args = { out: null, binaries: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) die(`${arg} needs a value`);
      return argv[++i];
    };
    if (arg === "--out") args.out = value();
    else if (arg === "--binary") {
      const spec = value();
      const eq = spec.indexOf("=");
      if (eq <= 0) die(`--binary ${spec}: expected <rust-triple>=<path>`);
      args.binaries.push({ triple: spec.slice(0, eq), file: spec.slice(eq + 1) });
    } else if (arg === "-h" || arg === "--help") {
      process.stdout.write(
        "usage: node packaging/npm/pack.mjs --out DIR --binary <rust-triple>=<path> [--binary ...]\n",
      );
      process.exit(0);
    } else die(`unknown argument ${arg}`);
  }
  if (!args.out) die("--out DIR is required");
  return args;
}

// The string fields of Cargo.toml's [package] table (name, version, description, license,
// repository, homepage): one `key = "value"` per line, as cargo writes and this crate keeps them.
function cargoPackage() {
  const text = fs.readFileSync(path.join(root, "Cargo.toml"), "utf8");
  const fields = {};
  let inPackage = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith("[")) {
      inPackage = line === "[package]";
      continue;
    }
    if (!inPackage) continue;
    const m = /^([A-Za-z0-9_-]+)\s*=\s*"((?:[^"\\]|\\.)*)"\s*(#.*)?$/.exec(line);
    if (m) fields[m[1]] = JSON.parse(`"${m[2]}"`);
  }
  for (const key of ["name", "version"]) {
    if (!fields[key]) die(`no ${key} in Cargo.toml's [package]`);
  }
  return fields;
}

// The fields every package.json takes from Cargo.toml when it has them.
function common(cargo) {
  const out = {};
  if (cargo.license) out.license = cargo.license;
  if (cargo.repository) out.repository = { type: "git", url: cargo.repository };
  if (cargo.homepage) out.homepage = cargo.homepage;
  return out;
}

function writeJson(file, value) {
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

// packaging/LICENSE, when the project has one, goes into every package.
function copyLicense(dir) {
  const license = path.join(packaging, "LICENSE");
  if (fs.existsSync(license)) fs.copyFileSync(license, path.join(dir, "LICENSE"));
}

function npmPack(dir, out) {
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const run = spawnSync(npm, ["pack", "--json", "--pack-destination", out], {
    cwd: dir,
    encoding: "utf8",
    shell: process.platform === "win32",
    env: { ...process.env, npm_config_ignore_scripts: "true", npm_config_fund: "false" },
  });
  if (run.status !== 0) die(`npm pack in ${dir} failed:\n${run.stderr}${run.stdout}`);
  const [info] = JSON.parse(run.stdout);
  return path.join(out, info.filename);
}

const args = parseArgs(process.argv.slice(2));
const cargo = cargoPackage();
const { platforms } = JSON.parse(fs.readFileSync(path.join(packaging, "platforms.json"), "utf8"));
const byTriple = new Map(platforms.map((p) => [p.triple, p]));
for (const b of args.binaries) {
  if (!byTriple.has(b.triple)) {
    die(`--binary ${b.triple}: not a triple of packaging/platforms.json (${[...byTriple.keys()].join(", ")})`);
  }
  if (!fs.statSync(b.file, { throwIfNoEntry: false })?.isFile()) die(`--binary ${b.triple}: no file ${b.file}`);
}
if (new Set(args.binaries.map((b) => b.triple)).size !== args.binaries.length) {
  die("a triple is given twice");
}

const out = path.resolve(args.out);
fs.mkdirSync(out, { recursive: true });
const stage = fs.mkdtempSync(path.join(os.tmpdir(), "sophia-hook-npm-"));
const written = [];
try {
  // The launcher: bin/sophia-hook (the command npm links), launcher.js, and the postinstall
  // (install.js) that replaces bin/sophia-hook by the native binary.
  const launcher = path.join(stage, "launcher");
  fs.mkdirSync(path.join(launcher, "bin"), { recursive: true });
  for (const [from, mode] of [["bin/sophia-hook", 0o755], ["launcher.js", 0o644], ["install.js", 0o644]]) {
    fs.copyFileSync(path.join(here, "launcher", from), path.join(launcher, from));
    fs.chmodSync(path.join(launcher, from), mode);
  }
  fs.copyFileSync(path.join(packaging, "platforms.json"), path.join(launcher, "platforms.json"));
  fs.copyFileSync(path.join(here, "README.md"), path.join(launcher, "README.md"));
  copyLicense(launcher);
  writeJson(path.join(launcher, "package.json"), {
    name: cargo.name,
    version: cargo.version,
    ...(cargo.description ? { description: cargo.description } : {}),
    ...common(cargo),
    bin: { [cargo.name]: "bin/sophia-hook" },
    scripts: { postinstall: "node install.js" },
    files: ["bin/sophia-hook", "launcher.js", "install.js", "platforms.json"],
    engines: { node: ">=16" },
    optionalDependencies: Object.fromEntries(platforms.map((p) => [p.npm, cargo.version])),
  });
  written.push(npmPack(launcher, out));

  // One package per binary given.
  for (const b of args.binaries) {
    const row = byTriple.get(b.triple);
    const dir = path.join(stage, row.npm.replace("/", "+"));
    fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
    const target = path.join(dir, "bin", row.binary);
    fs.copyFileSync(b.file, target);
    fs.chmodSync(target, 0o755);
    copyLicense(dir);
    fs.writeFileSync(
      path.join(dir, "README.md"),
      `# ${row.npm}\n\nThe \`${cargo.name}\` binary for \`${row.triple}\`. Install \`${cargo.name}\`, ` +
        `which depends on this package where it runs:\n\n    npm i -g ${cargo.name}\n`,
    );
    writeJson(path.join(dir, "package.json"), {
      name: row.npm,
      version: cargo.version,
      description: `The ${cargo.name} binary for ${row.triple}`,
      ...common(cargo),
      os: [row.node_platform],
      cpu: [row.node_arch],
      ...(row.libc ? { libc: [row.libc] } : {}),
      files: [`bin/${row.binary}`],
      preferUnplugged: true,
    });
    written.push(npmPack(dir, out));
  }
} finally {
  fs.rmSync(stage, { recursive: true, force: true });
}
for (const file of written) process.stdout.write(`${file}\n`);
