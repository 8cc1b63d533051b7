// Loads a `sophia-hook report` page in headless Chromium and checks it the way a person would see
// it: no console errors (script errors, blocked or failed loads, CSP violations), the catalog
// fingerprint and an SVG chart in the DOM, and a screenshot that is not blank.
//
// Usage: node check.mjs PAGE.html FINGERPRINT [SCREENSHOT.png]
//
// Talks to Chromium over the DevTools protocol on a pipe (--remote-debugging-pipe: commands on
// fd 3, answers on fd 4, NUL-separated JSON), so it needs Node and Chromium only: no npm
// package, no port. Exits 0 when every check passes, 1 with one line per failed check otherwise.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { inflateSync } from "node:zlib";

const [page, fingerprint, screenshot] = process.argv.slice(2);
if (!page || !fingerprint) {
  console.error("usage: node check.mjs PAGE.html FINGERPRINT [SCREENSHOT.png]");
  process.exit(2);
}
const chromium = process.env.CHROMIUM || "chromium";
const WIDTH = 1280;
const MAX_HEIGHT = 4000;
const TIMEOUT_MS = 60_000;

const profile = mkdtempSync(join(tmpdir(), "sophia-report-chromium-"));
const child = spawn(
  chromium,
  [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
    `--user-data-dir=${profile}`,
    `--window-size=${WIDTH},1000`,
    "--remote-debugging-pipe",
    "about:blank",
  ],
  { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] },
);
let chromiumLog = "";
child.stderr.on("data", (d) => (chromiumLog = (chromiumLog + d).slice(-4000)));

const failures = [];
function finish(code) {
  clearTimeout(timer);
  try {
    child.kill("SIGKILL");
  } catch {}
  // Chromium's helper processes may still be writing to the profile after the kill: removing it
  // is best effort (retried), and a leftover temporary folder never changes the verdict.
  try {
    rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  } catch {}
  process.exit(code);
}
function fail(message) {
  console.error(`browser check: FAILED: ${message}`);
  finish(1);
}
const timer = setTimeout(() => fail(`no answer from Chromium within ${TIMEOUT_MS / 1000} s\n${chromiumLog}`), TIMEOUT_MS);
child.on("error", (e) => fail(`cannot start ${chromium}: ${e.message}`));
child.on("exit", (code) => fail(`Chromium exited early (${code})\n${chromiumLog}`));

// The protocol: requests by id, events by name.
let nextId = 1;
const pending = new Map();
const listeners = [];
let buffer = "";
child.stdio[4].on("data", (chunk) => {
  buffer += chunk.toString("utf8");
  let end;
  while ((end = buffer.indexOf("\0")) >= 0) {
    const message = JSON.parse(buffer.slice(0, end));
    buffer = buffer.slice(end + 1);
    if (message.id && pending.has(message.id)) {
      const { ok, ko } = pending.get(message.id);
      pending.delete(message.id);
      message.error ? ko(new Error(JSON.stringify(message.error))) : ok(message.result);
    } else if (message.method) {
      for (const l of listeners) l(message);
    }
  }
});
function send(method, params = {}, sessionId) {
  const id = nextId++;
  child.stdio[3].write(JSON.stringify({ id, method, params, sessionId }) + "\0");
  return new Promise((ok, ko) => pending.set(id, { ok, ko }));
}
function once(method, sessionId) {
  return new Promise((ok) => {
    const l = (m) => {
      if (m.method === method && m.sessionId === sessionId) {
        listeners.splice(listeners.indexOf(l), 1);
        ok(m.params);
      }
    };
    listeners.push(l);
  });
}

/// Distinct colours and the share of the commonest one, from an 8-bit RGB or RGBA PNG.
function colours(png) {
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const depth = png[24];
  const type = png[25];
  if (depth !== 8 || (type !== 2 && type !== 6)) throw new Error(`unexpected PNG: depth ${depth}, type ${type}`);
  const bpp = type === 6 ? 4 : 3;
  const idat = [];
  for (let at = 8; at < png.length; ) {
    const len = png.readUInt32BE(at);
    const kind = png.toString("ascii", at + 4, at + 8);
    if (kind === "IDAT") idat.push(png.subarray(at + 8, at + 8 + len));
    at += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const rows = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const row = rows.subarray(y * stride, (y + 1) * stride);
    const up = y > 0 ? rows.subarray((y - 1) * stride, y * stride) : Buffer.alloc(stride);
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? row[x - bpp] : 0;
      const b = up[x];
      const c = x >= bpp ? up[x - bpp] : 0;
      let v = src[x];
      if (filter === 1) v += a;
      else if (filter === 2) v += b;
      else if (filter === 3) v += (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      row[x] = v & 0xff;
    }
  }
  const counts = new Map();
  for (let i = 0; i < rows.length; i += bpp) {
    const key = (rows[i] << 16) | (rows[i + 1] << 8) | rows[i + 2];
    counts.set(key, (counts.get(key) || 0) + 1);
  }
  const top = Math.max(...counts.values());
  return { distinct: counts.size, commonest: top / (width * height), width, height };
}

try {
  const { targetId } = await send("Target.createTarget", { url: "about:blank" });
  const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true });
  listeners.push((m) => {
    if (m.sessionId !== sessionId) return;
    if (m.method === "Runtime.exceptionThrown") {
      const d = m.params.exceptionDetails;
      failures.push(`uncaught exception: ${d.exception?.description ?? d.text}`);
    } else if (m.method === "Runtime.consoleAPICalled" && ["error", "assert"].includes(m.params.type)) {
      failures.push(`console.${m.params.type}: ${m.params.args.map((a) => a.value ?? a.description).join(" ")}`);
    } else if (m.method === "Log.entryAdded" && m.params.entry.level === "error") {
      failures.push(`console error (${m.params.entry.source}): ${m.params.entry.text}${m.params.entry.url ? " " + m.params.entry.url : ""}`);
    }
  });
  await send("Runtime.enable", {}, sessionId);
  await send("Log.enable", {}, sessionId);
  await send("Page.enable", {}, sessionId);
  const loaded = once("Page.loadEventFired", sessionId);
  const nav = await send("Page.navigate", { url: pathToFileURL(resolve(page)).href }, sessionId);
  if (nav.errorText) fail(`cannot load ${page}: ${nav.errorText}`);
  await loaded;
  // Late messages (a failed image, a CSP report) arrive just after load.
  await new Promise((r) => setTimeout(r, 500));

  const { root } = await send("DOM.getDocument", { depth: 0 }, sessionId);
  const { outerHTML: dom } = await send("DOM.getOuterHTML", { nodeId: root.nodeId }, sessionId);
  if (!dom.includes(`id="fingerprint">${fingerprint}<`)) {
    failures.push(`the catalog fingerprint ${fingerprint} is not in the DOM`);
  }
  if (!/<svg[^>]*>[\s\S]*?<rect[^>]*class="bar"/.test(dom)) {
    failures.push("no SVG chart with bars in the DOM");
  }

  const { result } = await send(
    "Runtime.evaluate",
    { expression: "document.documentElement.scrollHeight", returnByValue: true },
    sessionId,
  );
  const height = Math.min(Math.max(result.value, 600), MAX_HEIGHT);
  await send(
    "Emulation.setDeviceMetricsOverride",
    { width: WIDTH, height, deviceScaleFactor: 1, mobile: false },
    sessionId,
  );
  const { data } = await send("Page.captureScreenshot", { format: "png" }, sessionId);
  const png = Buffer.from(data, "base64");
  if (screenshot) writeFileSync(screenshot, png);
  const c = colours(png);
  if (c.distinct < 16 || c.commonest > 0.97) {
    failures.push(
      `the screenshot looks blank: ${c.distinct} distinct colours, the commonest covers ${(c.commonest * 100).toFixed(1)}% of ${c.width}x${c.height}`,
    );
  }
  if (failures.length) {
    for (const f of failures) console.error(`browser check: FAILED: ${f}`);
    finish(1);
  }
  console.log(
    `browser check: ok (no console errors; fingerprint and chart in the DOM; screenshot ${c.width}x${c.height}, ${c.distinct} colours${screenshot ? ", saved to " + screenshot : ""})`,
  );
  child.removeAllListeners("exit");
  await send("Browser.close").catch(() => {});
  finish(0);
} catch (e) {
  fail(e.message);
}
