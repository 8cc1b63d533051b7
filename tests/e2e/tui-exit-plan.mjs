// Claude Code's "Exit plan mode?" dialog, for real: the TUI in plan mode under tmux, the mock model
// answering the planning prompt with an ExitPlanMode call, the dialog approved with Enter, and the next
// model request checked for the planned delegation the hook carried forward (PostToolUse on
// ExitPlanMode). Prints `N passed, N failed` and exits non-zero on a failure.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startMock, readLog } from './lib/mock.mjs';
import { HOSTS } from './lib/hosts.mjs';
import { strings } from './lib/text.mjs';
import { killStragglers } from './lib/proc.mjs';

const binary = process.env.SOPHIA_E2E_BINARY;
const PLANNED = 'Planned delegation carried forward: agent=technical_analyst';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const socket = `sophia-e2e-plan-${process.pid}`;
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

const host = HOSTS.claude;
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sophia-e2e-plan-'));
const ws = { root, home: path.join(root, 'home'), project: path.join(root, 'project'), tmp: path.join(root, 'tmp'), binary };
for (const d of [ws.home, ws.project, ws.tmp]) fs.mkdirSync(d, { recursive: true });
ws.baseEnv = { PATH: `${path.dirname(binary)}${path.delimiter}${process.env.PATH}`, HOME: ws.home, USER: 'e2e', LANG: 'C.UTF-8', TERM: 'xterm-256color', TMPDIR: ws.tmp, NO_PROXY: '127.0.0.1,localhost' };
execFileSync('git', ['init', '-q', '-b', 'main', ws.project], { env: ws.baseEnv });
fs.writeFileSync(path.join(ws.project, 'AGENTS.md'), '# Project rules\n');
const logFile = path.join(root, 'requests.jsonl');
const script = (request, turn) =>
  turn === 0 ? { toolCall: { name: 'ExitPlanMode', args: { plan: '1. Delegate the analysis of ticket 123 to technical_analyst.' } } } : undefined;
const mock = await startMock({ api: host.api, logFile, script });
const session = `sophia-e2e-plan-${process.pid}`;
const results = [];
const check = (name, ok, detail) => {
  results.push(ok);
  console.log(`${ok ? 'ok  ' : 'FAIL'}  claude tui-exit-plan-mode: ${name}${ok ? '' : `\n       ${String(detail).slice(0, 1500).replace(/\n/g, '\n       ')}`}`);
};
try {
  ws.mockUrl = mock.url;
  host.prepare(ws);
  const env = { ...ws.baseEnv, ...host.env(ws) };
  const exe = process.env.SOPHIA_E2E_BIN_CLAUDE;
  const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  tmux('new-session', '-d', '-s', session, '-x', '160', '-y', '45', '-c', ws.project, 'env', '-i', ...envArgs, exe, '--permission-mode', 'plan');
  const ready = await waitFor(() => /shift\+tab to cycle|\? for shortcuts|plan mode/i.test(screen(session)), 30_000);
  check('the TUI starts in plan mode', !!ready, screen(session));
  await sleep(2000);
  tmux('send-keys', '-t', session, '-l', '--', '!agents analizza il ticket Mantis 123 e ricostruisci la causa'.replace(/^!/, ' !'));
  await sleep(500);
  tmux('send-keys', '-t', session, 'Enter');
  // Claude Code 2.1.328 shows "Exit plan mode?" with "1. Yes, and switch to default …" / "2. No".
  const dialog = await waitFor(() => /Exit plan mode\?/.test(screen(session)) && screen(session), 30_000);
  check('the "Exit plan mode?" dialog appears', !!dialog, screen(session));
  await sleep(1000); // the dialog takes keys once it has settled
  const approvedLog = () => readLog(logFile).some((r) => r.kind === 'turn' && strings(r.body).some((s) => s.includes(PLANNED)));
  tmux('send-keys', '-t', session, 'Enter');
  let carried = await waitFor(approvedLog, 15_000);
  if (!carried && /Exit plan mode\?/.test(screen(session))) {
    // The first Enter came too early for the dialog: once more.
    tmux('send-keys', '-t', session, 'Enter');
    carried = await waitFor(approvedLog, 15_000);
  }
  check('the approval carries the planned delegation forward (PostToolUse on ExitPlanMode)', !!carried, screen(session));
  fs.writeFileSync(path.join(root, 'screen.txt'), screen(session));
  if (process.env.SOPHIA_E2E_KEEP !== '1' && results.every(Boolean)) fs.rmSync(root, { recursive: true, force: true });
} finally {
  try {
    tmux('kill-server');
  } catch {}
  await mock.close();
  killStragglers(root);
}
const failed = results.filter((r) => !r).length;
if (fs.existsSync(root)) console.log(`e2e: requests, screen and homes kept in ${root}`);
console.log(`${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
