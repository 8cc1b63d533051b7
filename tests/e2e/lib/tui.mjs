// Driving a host's interactive TUI under tmux: a tmux server of our own (its own socket, started inside
// the suite's network namespace and stopped at the end, never the user's), one session per TUI run.
// Used by tui-prefixes.mjs (which characters type through) and by the suite's `tui` scenarios (a step
// typed into a fresh TUI, e.g. the default hotword prefix, or a resumed session).

import { execFileSync } from 'node:child_process';
import { readLog } from './mock.mjs';
import { strings } from './text.mjs';

/** What the composer shows when the TUI is ready for a prompt. */
export const READY = {
  codex: /Ask Codex to do anything|\? for shortcuts/,
  claude: /shift\+tab to cycle|\? for shortcuts/,
  gemini: /Type your message/,
  copilot: /\/ commands · \? help/, // the footer under the `❯` composer
};

/** What the empty composer shows (and stops showing once something is typed). */
const PLACEHOLDER = {
  codex: /Ask Codex to do anything/,
  claude: /^(?![\s\S])/, // no placeholder we can rely on: never retype
  gemini: /Type your message/,
  copilot: /^❯\s*$/m, // no placeholder: the composer line holds only its prompt sign
};

/** The command-line arguments that open the TUI on the last session (a resumed conversation). */
export const RESUME_ARGS = {
  codex: ['resume', '--last'],
  claude: ['--continue'],
  gemini: ['--resume', 'latest'],
  copilot: ['--continue'],
};

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const socket = `sophia-e2e-${process.pid}`;
const run = (args) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'pipe'] });
// Killing the last session makes the server exit; a `new-session` right after can reach the socket
// of the server that is going away and fail with "server exited unexpectedly" (seen once in CI
// between the two steps of tui-resume). Starting a session is retried a few times for that, and
// for nothing else.
const SERVER_GOING = /server exited unexpectedly|lost server|no server running|error connecting to/;
export const tmux = (...args) => {
  for (let attempt = 0; ; attempt++) {
    try {
      return run(args);
    } catch (e) {
      const why = `${e.message}\n${e.stderr || ''}`;
      if (args[0] !== 'new-session' || attempt >= 4 || !SERVER_GOING.test(why)) throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250 * (attempt + 1));
    }
  }
};
export const screen = (s) => tmux('capture-pane', '-p', '-t', s);

/** Stops our tmux server (and every TUI still in it). */
export function killTmuxServer() {
  try {
    tmux('kill-server');
  } catch {}
}

export async function waitFor(pred, ms, step = 250) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const v = pred();
    if (v) return v;
    await sleep(step);
  }
  return null;
}

/** The logged conversation requests whose user text mentions `probe` (hook context removed), last first. */
export function requestsWith(logFile, probe) {
  return readLog(logFile)
    .reverse()
    .filter((r) => r.kind === 'turn')
    .filter((r) =>
      strings(r.body)
        .map((s) => s.replace(/<hook_context>[\s\S]*?<\/hook_context>/g, ''))
        .some((s) => s.includes(probe)),
    );
}

/** The user line that mentions `probe` in the last logged conversation request carrying it. */
export function received(logFile, probe) {
  const [r] = requestsWith(logFile, probe);
  if (!r) return null;
  const hit = strings(r.body)
    .map((s) => s.replace(/<hook_context>[\s\S]*?<\/hook_context>/g, ''))
    .flatMap((s) => s.split('\n'))
    .find((l) => l.includes(probe));
  return hit === undefined ? null : hit.trim();
}

/**
 * Starts `exe args…` in a fresh tmux session (`env` only, cwd `cwd`), waits for the host's composer,
 * types `text` as the very first characters and presses Enter (a second time when the text is still in
 * the composer: a popup may take the first). Resolves {result, typed, after, sent, got, request} where
 * `result` is `types-through`, `types-through (second Enter)`, `altered: "…"`, `not-sent` or
 * `tui-not-ready`, and `request` the logged request body that carried `probe` (null when none did).
 * The session is killed before it resolves.
 */
export async function typeIntoTui({ host, exe, args = [], env, cwd, session, text, probe, logFile, waitMs = 8_000 }) {
  const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  try {
    tmux('new-session', '-d', '-s', session, '-x', '160', '-y', '45', '-c', cwd, 'env', '-i', ...envArgs, exe, ...args);
    const ready = await waitFor(() => READY[host].test(screen(session)), 30_000);
    if (!ready) return { result: 'tui-not-ready', typed: '', after: screen(session), got: null, request: null };
    await sleep(2000); // start-up animations and hook warnings settle
    // Type, and wait until the composer shows it. A TUI still starting up (Gemini CLI while its
    // SessionStart hooks run on a loaded machine) drops keys: while the empty composer still shows
    // its placeholder, type again.
    for (let attempt = 0; attempt < 5; attempt++) {
      tmux('send-keys', '-t', session, '-l', '--', text);
      if (await waitFor(() => screen(session).includes(probe), 4_000)) break;
      if (!PLACEHOLDER[host].test(screen(session))) break;
    }
    await sleep(500);
    const typed = screen(session);
    tmux('send-keys', '-t', session, 'Enter');
    let got = await waitFor(() => received(logFile, probe), waitMs);
    let enters = 1;
    if (!got && screen(session).includes(probe)) {
      enters = 2;
      tmux('send-keys', '-t', session, 'Enter');
      got = await waitFor(() => received(logFile, probe), waitMs);
    }
    // Let the host finish the turn (the mock's answer, the session file) before the TUI is stopped.
    await sleep(1500);
    const after = screen(session);
    let result;
    if (got === text) result = enters === 1 ? 'types-through' : 'types-through (second Enter)';
    else if (got) result = `altered: ${JSON.stringify(got)}`;
    else result = 'not-sent';
    const [request] = requestsWith(logFile, probe);
    return { result, typed, after, got, request: request ? request.body : null };
  } finally {
    try {
      tmux('kill-session', '-t', session);
    } catch {}
  }
}

/**
 * Codex's hook review, as a user gives it: opens the TUI (`env` only, cwd `cwd`), waits for "Hooks need
 * review", chooses "Trust all and continue" and waits until `config` records a `[hooks.state."<key>…"]`
 * entry with a `trusted_hash`. Resolves {trusted, screen}; the session is killed before it resolves.
 */
export async function trustHooksInCodexTui({ exe, env, cwd, session, config, key }) {
  const fs = await import('node:fs');
  const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  const recorded = () => {
    const text = fs.existsSync(config) ? fs.readFileSync(config, 'utf8') : '';
    return text.includes(`[hooks.state."${key}`) && text.includes('trusted_hash');
  };
  let last = '';
  try {
    tmux('new-session', '-d', '-s', session, '-x', '160', '-y', '45', '-c', cwd, 'env', '-i', ...envArgs, exe);
    const review = await waitFor(() => /Hooks need review/.test((last = screen(session))), 30_000);
    if (!review) return { trusted: false, screen: last };
    // The review can be painted before the TUI reads keys (seen once in CI, on a loaded machine:
    // the choice was lost and nothing recorded). While the review is still on screen and nothing
    // is recorded, the choice is given again, at most three times.
    for (let attempt = 0; attempt < 3; attempt++) {
      const option = /(\d)\.\s+Trust all and continue/.exec(last);
      if (!option) return { trusted: false, screen: last };
      tmux('send-keys', '-t', session, option[1]);
      await sleep(300);
      tmux('send-keys', '-t', session, 'Enter');
      if (await waitFor(recorded, 10_000)) return { trusted: true, screen: screen(session) };
      last = screen(session);
      if (!/Hooks need review/.test(last)) break;
    }
    return { trusted: recorded(), screen: last };
  } finally {
    try {
      tmux('kill-session', '-t', session);
    } catch {}
  }
}
