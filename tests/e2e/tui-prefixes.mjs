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
import { startMock } from './lib/mock.mjs';
import { HOSTS } from './lib/hosts.mjs';
import { killStragglers } from './lib/proc.mjs';
import { typeIntoTui, killTmuxServer } from './lib/tui.mjs';

const CANDIDATES = process.env.SOPHIA_E2E_TUI_CHARS || '!?/@#%+=~^&;:.,-*';
const hostNames = (process.env.SOPHIA_E2E_HOSTS || 'codex,claude,gemini,copilot').split(',').filter(Boolean);
const binary = process.env.SOPHIA_E2E_BINARY;

async function probe(host, char, n, root) {
  const dir = path.join(root, `${host.name}-${n}`);
  // No agent definitions (as the suite's TUI scenarios): Gemini CLI's "New Agents Discovered" dialog
  // would take the keys meant for the composer.
  const ws = { root: dir, home: path.join(dir, 'home'), project: path.join(dir, 'project'), tmp: path.join(dir, 'tmp'), binary, installArgs: ['--no-agents'] };
  for (const d of [ws.home, ws.project, ws.tmp]) fs.mkdirSync(d, { recursive: true });
  ws.baseEnv = { PATH: `${path.dirname(binary)}${path.delimiter}${process.env.PATH}`, HOME: ws.home, USER: 'e2e', LANG: 'C.UTF-8', TERM: 'xterm-256color', TMPDIR: ws.tmp, NO_PROXY: '127.0.0.1,localhost' };
  execFileSync('git', ['init', '-q', '-b', 'main', ws.project], { env: ws.baseEnv });
  fs.writeFileSync(path.join(ws.project, 'AGENTS.md'), '# Project rules\n');
  const logFile = path.join(dir, 'requests.jsonl');
  const mock = await startMock({ api: host.api, logFile });
  try {
    ws.mockUrl = mock.url;
    host.prepare(ws);
    const r = await typeIntoTui({
      host: host.name,
      exe: process.env[`SOPHIA_E2E_BIN_${host.name.toUpperCase()}`],
      env: { ...ws.baseEnv, ...host.env(ws) },
      cwd: ws.project,
      session: `sophia-e2e-tui-${process.pid}-${host.name}-${n}`,
      text: `${char}quick tuiprobe${n}`,
      probe: `quick tuiprobe${n}`,
      logFile,
    });
    return { char, ...r, screen: r.after };
  } finally {
    await mock.close();
    killStragglers(dir);
  }
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sophia-e2e-tui-'));
console.log(`e2e tui: work directory ${root}`);
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    killTmuxServer();
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
killTmuxServer();
console.log(`\ne2e tui: screens kept in ${root}`);
