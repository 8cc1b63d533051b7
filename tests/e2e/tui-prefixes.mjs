// Which characters can start a typed prompt in each host's interactive TUI? For every candidate prefix
// character and host: start the real TUI under tmux (temporary HOME and project, sophia-hook installed
// and trusted, the mock model on 127.0.0.1), type `<char>quick tuiprobe<n>` into the empty composer,
// press Enter, and read from the mock's request log what reached the model. A character "types
// through" when the model received the text exactly as typed. Run it through `tests/e2e/run --tui`;
// the result table is recorded in tests/e2e/README.md.
//
// Env: SOPHIA_E2E_TUI_CHARS (default: the candidates below), SOPHIA_E2E_HOSTS, SOPHIA_E2E_BIN_<HOST>,
// SOPHIA_E2E_BINARY (from tests/e2e/run).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startMock, readLog } from './lib/mock.mjs';
import { HOSTS } from './lib/hosts.mjs';
import { strings } from './lib/text.mjs';
import { killStragglers } from './lib/proc.mjs';

const CANDIDATES = process.env.SOPHIA_E2E_TUI_CHARS || '!?/@#%+=~^&;:.,-*';
const hostNames = (process.env.SOPHIA_E2E_HOSTS || 'codex,claude,gemini').split(',').filter(Boolean);
const binary = process.env.SOPHIA_E2E_BINARY;

// What the composer shows when the TUI is ready for a prompt.
const READY = {
  codex: /Ask Codex to do anything|\? for shortcuts/,
  claude: /shift\+tab to cycle|\? for shortcuts/,
  gemini: /Type your message/,
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// A tmux server of our own (its own socket), started inside the suite's network namespace and stopped
// at the end, never the user's.
const socket = `sophia-e2e-${process.pid}`;
const tmux = (...args) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'pipe'] });
const screen = (s) => tmux('capture-pane', '-p', '-t', s);

async function waitFor(pred, ms, step = 250) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const v = pred();
    if (v) return v;
    await sleep(step);
  }
  return null;
}

/** The user text of the logged conversation requests that mention `probe`. */
function received(logFile, probe) {
  for (const r of readLog(logFile).reverse()) {
    if (r.kind !== 'turn') continue;
    const hit = strings(r.body)
      .map((s) => s.replace(/<hook_context>[\s\S]*?<\/hook_context>/g, ''))
      .flatMap((s) => s.split('\n'))
      .find((l) => l.includes(probe));
    if (hit !== undefined) return hit.trim();
  }
  return null;
}

async function probe(host, char, n, root) {
  const dir = path.join(root, `${host.name}-${n}`);
  const ws = { root: dir, home: path.join(dir, 'home'), project: path.join(dir, 'project'), tmp: path.join(dir, 'tmp'), binary };
  for (const d of [ws.home, ws.project, ws.tmp]) fs.mkdirSync(d, { recursive: true });
  ws.baseEnv = { PATH: process.env.PATH, HOME: ws.home, USER: 'e2e', LANG: 'C.UTF-8', TERM: 'xterm-256color', TMPDIR: ws.tmp, NO_PROXY: '127.0.0.1,localhost' };
  execFileSync('git', ['init', '-q', '-b', 'main', ws.project], { env: ws.baseEnv });
  fs.writeFileSync(path.join(ws.project, 'AGENTS.md'), '# Project rules\n');
  const logFile = path.join(dir, 'requests.jsonl');
  const mock = await startMock({ api: host.api, logFile });
  const session = `sophia-e2e-tui-${process.pid}-${host.name}-${n}`;
  try {
    ws.mockUrl = mock.url;
    host.prepare(ws);
    const env = { ...ws.baseEnv, ...host.env(ws) };
    const exe = process.env[`SOPHIA_E2E_BIN_${host.name.toUpperCase()}`];
    const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
    tmux('new-session', '-d', '-s', session, '-x', '160', '-y', '45', '-c', ws.project, 'env', '-i', ...envArgs, exe);
    const ready = await waitFor(() => READY[host.name].test(screen(session)), 30_000);
    if (!ready) return { char, result: 'tui-not-ready', screen: screen(session) };
    await sleep(2000); // start-up animations and hook warnings settle
    const text = `${char}quick tuiprobe${n}`;
    tmux('send-keys', '-t', session, '-l', '--', text);
    // Wait until the composer shows what was typed (a TUI may still be starting up), then send it.
    await waitFor(() => screen(session).includes(`quick tuiprobe${n}`), 10_000);
    await sleep(500);
    const typed = screen(session);
    tmux('send-keys', '-t', session, 'Enter');
    let got = await waitFor(() => received(logFile, `tuiprobe${n}`), 8_000);
    let enters = 1;
    if (!got && screen(session).includes(`quick tuiprobe${n}`)) {
      enters = 2;
      // Still in the composer: the first Enter may have been taken by a popup; one more.
      tmux('send-keys', '-t', session, 'Enter');
      got = await waitFor(() => received(logFile, `tuiprobe${n}`), 8_000);
    }
    const after = screen(session);
    let result;
    if (got === text) result = enters === 1 ? 'types-through' : 'types-through (second Enter)';
    else if (got) result = `altered: ${JSON.stringify(got)}`;
    else result = 'not-sent';
    return { char, result, typed, after };
  } finally {
    try {
      tmux('kill-session', '-t', session);
    } catch {}
    await mock.close();
    killStragglers(dir);
  }
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sophia-e2e-tui-'));
console.log(`e2e tui: work directory ${root}`);
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    try {
      tmux('kill-server');
    } catch {}
    killStragglers(root);
    process.exit(130);
  });
}

const table = {};
let n = 0;
for (const name of hostNames) {
  const host = HOSTS[name];
  for (const char of CANDIDATES) {
    const r = await probe(host, char, n++, root);
    (table[char] ||= {})[name] = r.result;
    console.log(`${name} ${JSON.stringify(char)}: ${r.result}`);
    fs.writeFileSync(path.join(root, `${name}-${n - 1}.screen.txt`), `typed:\n${r.typed || ''}\n\nafter Enter:\n${r.after || r.screen || ''}\n`);
  }
}
console.log(`\n| character | ${hostNames.join(' | ')} | all |`);
console.log(`|---|${hostNames.map(() => '---').join('|')}|---|`);
for (const [char, row] of Object.entries(table)) {
  const all = hostNames.every((h) => row[h] === 'types-through');
  console.log(`| \`${char}\` | ${hostNames.map((h) => row[h]).join(' | ')} | ${all ? 'yes' : 'no'} |`);
}
try {
  tmux('kill-server');
} catch {}
console.log(`\ne2e tui: screens kept in ${root}`);
