// GitHub Copilot CLI hook-contract probe: runs the real `@github/copilot` from npm against the mock model
// server on 127.0.0.1 (lib/mock.mjs, OpenAI Responses API) through its bring-your-own-key provider
// settings, with small shell-script hooks that log their stdin and print a chosen output, and reports
// what reached the model and where. It is the evidence behind the "GitHub Copilot CLI" section of
// docs/host-protocols.md. Run it by hand (tests/e2e/run runs Copilot CLI with the suite's own checks;
// this probe records the contract behind them):
//
//   node tests/e2e/copilot-probe.mjs                 # every case
//   node tests/e2e/copilot-probe.mjs trust resume    # only cases whose name contains one of these
//   node tests/e2e/copilot-probe.mjs --tui           # the interactive TUI under tmux (trust dialog, first characters)
//
// Env: SOPHIA_E2E_BIN_COPILOT (the `copilot` executable; default: installed from npm into
//      ${SOPHIA_E2E_CACHE:-~/.cache/sophia-hook-e2e}/@github/copilot@<version>/ like tests/e2e/run does),
//      SOPHIA_E2E_TIMEOUT (seconds per run, default 120), SOPHIA_E2E_KEEP=1 (keep the work directory),
//      SOPHIA_E2E_NETNS=0 (do not re-run inside a private, loopback-only network namespace).
//
// Every line it prints is `ok` or `FAIL` with the evidence; the last line is `N passed, N failed` and
// the exit code is non-zero on any failure. The work directory (printed) holds, per case, the hooks'
// logged stdin (`calls/`), the mock's `requests.jsonl`, the host's stdout/stderr, logs and session events.
//
// How the CLI is pointed at the mock (read from `copilot help providers`, observed here):
//   COPILOT_PROVIDER_BASE_URL=http://127.0.0.1:<port>/v1  COPILOT_PROVIDER_WIRE_API=responses
//   COPILOT_MODEL=gpt-5.4  COPILOT_OFFLINE=true  (no GitHub sign-in, no other network access)
// Repository hooks load in `-p` mode only for a trusted folder: COPILOT_ALLOW_ALL=true, --trust-folder,
// or the folder in `trustedFolders` of $COPILOT_HOME/settings.json (the cases below check each).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { startMock, readLog, DEFAULT_REPLY } from './lib/mock.mjs';
import { killStragglers } from './lib/proc.mjs';

// `copilot --version` unpacks the bundled package (235 MB) into $COPILOT_PKG_CACHE_HOME (default
// ~/.cache/copilot): keep that out of HOME for the version checks too.
process.env.COPILOT_PKG_CACHE_HOME ??= path.join(os.tmpdir(), 'sophia-copilot-probe-pkg');

export const COPILOT = { pkg: '@github/copilot', version: '1.0.102' };

const here = path.dirname(new URL(import.meta.url).pathname);
const timeoutMs = 1000 * Number(process.env.SOPHIA_E2E_TIMEOUT || 120);
const filters = process.argv.slice(2);
const tuiMode = filters[0] === '--tui';

// A private network namespace with only loopback up, when the machine allows it (as tests/e2e/run does).
if (process.env.SOPHIA_E2E_NETNS !== '0' && !process.env.SOPHIA_PROBE_IN_NETNS) {
  const ok = spawnSync('unshare', ['-n', 'ip', 'link', 'set', 'lo', 'up'], { stdio: 'ignore' }).status === 0;
  if (ok) {
    const exe = findOrInstallCopilot(); // install (npm) before the network goes away
    const r = spawnSync(
      'unshare',
      ['-n', 'sh', '-c', 'ip link set lo up && exec node "$@"', 'sh', process.argv[1], ...filters],
      { stdio: 'inherit', env: { ...process.env, SOPHIA_PROBE_IN_NETNS: '1', SOPHIA_E2E_BIN_COPILOT: exe } },
    );
    process.exit(r.status ?? 1);
  }
  console.error('probe: network: shared (no private namespace here); every configured endpoint is 127.0.0.1');
}

function findOrInstallCopilot() {
  if (process.env.SOPHIA_E2E_BIN_COPILOT) return process.env.SOPHIA_E2E_BIN_COPILOT;
  const cache = process.env.SOPHIA_E2E_CACHE || path.join(os.homedir(), '.cache', 'sophia-hook-e2e');
  const dest = path.join(cache, `${COPILOT.pkg}@${COPILOT.version}`);
  const exe = path.join(dest, 'node_modules', '.bin', 'copilot');
  const works = () => spawnSync(exe, ['--version'], { timeout: 60_000, encoding: 'utf8' }).stdout?.includes(COPILOT.version);
  if (fs.existsSync(exe) && works()) return exe;
  console.error(`probe: installing ${COPILOT.pkg}@${COPILOT.version} from npm into ${dest}`);
  fs.mkdirSync(dest, { recursive: true });
  execFileSync('npm', ['install', '--prefix', dest, '--no-audit', '--no-fund', '--no-save', '--loglevel=error', `${COPILOT.pkg}@${COPILOT.version}`], {
    stdio: 'inherit',
    timeout: 900_000,
  });
  if (!works()) throw new Error(`${exe} --version does not answer ${COPILOT.version}`);
  return exe;
}

// ---------------------------------------------------------------------------------------------------
// Cases. A case writes hook files / settings / agents / skills into a fresh HOME and project, runs one
// or more `copilot -p` steps, and checks the hooks' logged stdin and the mock's request bodies.
//
// hook(label, {out, exit, sleep, stderr}) is a handler command: a generated sh script that saves its stdin
// to calls/<label>.<n>.json (and a few env vars beside it) and prints `out` (a string; objects are
// JSON-encoded), optionally after `sleep` seconds, with exit code `exit`.

const M = (name) => `MARKER-${name}`;
const ctxOut = (marker) => ({ additionalContext: marker });
const hsoOut = (event, marker) => ({ hookSpecificOutput: { hookEventName: event, additionalContext: marker } });

const CASES = [
  {
    name: 'camel-repo-allow-all',
    about: 'repo .github/hooks/*.json, camelCase events, {"additionalContext"} output, COPILOT_ALLOW_ALL=true',
    repoHooks: (h) => ({
      version: 1,
      hooks: {
        sessionStart: [h('ss', { out: ctxOut(M('SS')) })],
        userPromptSubmitted: [h('ups', { out: ctxOut(M('UPS')) })],
      },
    }),
    env: { COPILOT_ALLOW_ALL: 'true' },
    checks: (c) => [
      c.fired('ss', 1),
      c.fired('ups', 1),
      c.payloadKeys('ss', ['sessionId', 'timestamp', 'cwd', 'source', 'initialPrompt']),
      c.payloadKeys('ups', ['sessionId', 'timestamp', 'cwd', 'prompt']),
      c.payload('ss', 'source is "new" on a first -p run', (p) => p.source === 'new'),
      c.payload('ss', 'initialPrompt is the -p prompt', (p) => p.initialPrompt === c.prompt(0)),
      c.payload('ups', 'prompt is the -p prompt', (p) => p.prompt === c.prompt(0)),
      c.payload('ups', 'timestamp is epoch milliseconds (a number)', (p) => typeof p.timestamp === 'number' && p.timestamp > 1e12),
      c.payload('ups', 'cwd is the project', (p) => p.cwd === c.ws.project),
      c.env('ups', 'COPILOT_PROJECT_DIR is the project', (e) => e.COPILOT_PROJECT_DIR === c.ws.project),
      c.env('ups', 'COPILOT_HOOK_DIR is the hook file folder', (e) => e.COPILOT_HOOK_DIR === path.join(c.ws.project, '.github', 'hooks')),
      c.landed(M('SS'), 'sessionStart context is its own user message before the prompt', (w) => w.kind === 'input' && w.role === 'user' && w.text === M('SS') && w.beforePrompt),
      c.landed(M('UPS'), 'userPromptSubmitted context is a <system_reminder> after the prompt in the user message', (w) => w.kind === 'input' && w.samePrompt && w.text.includes(`<system_reminder>\n${M('UPS')}\n</system_reminder>`)),
      c.count(M('SS'), 1),
      c.count(M('UPS'), 1),
      c.landed('AGENTS-MD-PROBE', 'AGENTS.md is loaded by the CLI itself, as <custom_instruction> in the instructions', (w) => w.kind === 'instructions' && w.around.includes('<custom_instruction>')),
      c.count('AGENTS-MD-PROBE', 1),
      c.hookEnd('sessionStart', true),
      c.hookEnd('userPromptSubmitted', true),
    ],
  },
  {
    name: 'pascal-repo-hso',
    about: 'PascalCase events (SessionStart, UserPromptSubmit) with the Claude/Codex hookSpecificOutput shape: ignored',
    repoHooks: (h) => ({
      version: 1,
      hooks: {
        SessionStart: [h('ss', { out: hsoOut('SessionStart', M('SS')) })],
        UserPromptSubmit: [h('ups', { out: hsoOut('UserPromptSubmit', M('UPS')) })],
      },
    }),
    env: { COPILOT_ALLOW_ALL: 'true' },
    checks: (c) => [
      c.fired('ss', 1),
      c.fired('ups', 1),
      c.payloadKeys('ss', ['hook_event_name', 'session_id', 'timestamp', 'cwd', 'source', 'initial_prompt']),
      c.payloadKeys('ups', ['hook_event_name', 'session_id', 'timestamp', 'cwd', 'prompt']),
      c.payload('ss', 'hook_event_name is "SessionStart"', (p) => p.hook_event_name === 'SessionStart'),
      c.payload('ups', 'hook_event_name is "UserPromptSubmit"', (p) => p.hook_event_name === 'UserPromptSubmit'),
      c.payload('ups', 'timestamp is an ISO 8601 string', (p) => typeof p.timestamp === 'string' && !Number.isNaN(Date.parse(p.timestamp))),
      c.payload('ups', 'prompt is the -p prompt', (p) => p.prompt === c.prompt(0)),
      c.payload('ss', 'initial_prompt is the -p prompt', (p) => p.initial_prompt === c.prompt(0)),
      c.payload('ss', 'source is "new"', (p) => p.source === 'new'),
      // hookSpecificOutput is not read: the hook "succeeds" and its context is dropped.
      c.count(M('SS'), 0),
      c.count(M('UPS'), 0),
      c.hookEnd('userPromptSubmitted', true),
    ],
  },
  {
    name: 'pascal-repo-flat',
    about: 'PascalCase events with the flat {"additionalContext"} output',
    repoHooks: (h) => ({
      version: 1,
      hooks: {
        SessionStart: [h('ss', { out: ctxOut(M('SS')) })],
        UserPromptSubmit: [h('ups', { out: ctxOut(M('UPS')) })],
      },
    }),
    env: { COPILOT_ALLOW_ALL: 'true' },
    checks: (c) => [c.fired('ss', 1), c.fired('ups', 1), c.count(M('SS'), 1), c.count(M('UPS'), 1)],
  },
  {
    name: 'camel-repo-hso',
    about: 'camelCase events answering with hookSpecificOutput (the Claude/Codex shape): ignored',
    repoHooks: (h) => ({
      version: 1,
      hooks: {
        sessionStart: [h('ss', { out: hsoOut('SessionStart', M('SS')) })],
        userPromptSubmitted: [h('ups', { out: hsoOut('UserPromptSubmit', M('UPS')) })],
      },
    }),
    env: { COPILOT_ALLOW_ALL: 'true' },
    checks: (c) => [c.fired('ss', 1), c.fired('ups', 1), c.count(M('SS'), 0), c.count(M('UPS'), 0)],
  },
  {
    name: 'claude-nested-groups',
    about: 'Claude-style nested {matcher, hooks:[{type, command, timeout}]} groups under PascalCase events',
    repoHooks: (h) => ({
      hooks: {
        SessionStart: [{ hooks: [h('ss', { out: ctxOut(M('SS')) }, { claude: true })] }],
        UserPromptSubmit: [{ hooks: [h('ups', { out: ctxOut(M('UPS')) }, { claude: true })] }],
      },
    }),
    env: { COPILOT_ALLOW_ALL: 'true' },
    checks: (c) => [c.fired('ss', 1), c.fired('ups', 1), c.count(M('SS'), 1), c.count(M('UPS'), 1)],
  },
  {
    name: 'user-scope-untrusted-folder',
    about: '$COPILOT_HOME/hooks/*.json (user scope) in an untrusted folder, only --allow-all-tools',
    userHooks: (h) => ({
      version: 1,
      hooks: {
        sessionStart: [h('ss', { out: ctxOut(M('SS')) })],
        userPromptSubmitted: [h('ups', { out: ctxOut(M('UPS')) })],
      },
    }),
    checks: (c) => [
      c.fired('ss', 1),
      c.fired('ups', 1),
      c.count(M('SS'), 1),
      c.count(M('UPS'), 1),
      c.env('ups', 'COPILOT_HOOK_DIR is $COPILOT_HOME/hooks', (e) => e.COPILOT_HOOK_DIR === path.join(c.ws.home, '.copilot', 'hooks')),
    ],
  },
  {
    name: 'user-settings-inline',
    about: 'inline "hooks" in $COPILOT_HOME/settings.json (user scope)',
    userSettings: (h) => ({
      hooks: {
        sessionStart: [h('ss', { out: ctxOut(M('SS')) })],
        userPromptSubmitted: [h('ups', { out: ctxOut(M('UPS')) })],
      },
    }),
    checks: (c) => [c.fired('ss', 1), c.fired('ups', 1), c.count(M('SS'), 1), c.count(M('UPS'), 1)],
  },
  {
    name: 'repo-settings-inline-allow-all',
    about: 'inline "hooks" in the repository .github/copilot/settings.json, trusted by COPILOT_ALLOW_ALL=true',
    repoSettings: (h) => ({
      hooks: {
        sessionStart: [h('ss', { out: ctxOut(M('SS')) })],
        userPromptSubmitted: [h('ups', { out: ctxOut(M('UPS')) })],
      },
    }),
    env: { COPILOT_ALLOW_ALL: 'true' },
    checks: (c) => [c.fired('ss', 1), c.fired('ups', 1), c.count(M('SS'), 1), c.count(M('UPS'), 1)],
  },
  {
    name: 'trust-none',
    about: 'repo hooks, untrusted folder, only --allow-all-tools: repo hooks must not run',
    repoHooks: (h) => ({ version: 1, hooks: { sessionStart: [h('ss', { out: ctxOut(M('SS')) })], userPromptSubmitted: [h('ups', { out: ctxOut(M('UPS')) })] } }),
    checks: (c) => [c.fired('ss', 0), c.fired('ups', 0), c.count(M('SS'), 0), c.count(M('UPS'), 0), c.exitCode(0)],
  },
  {
    name: 'trust-allow-all-yes',
    about: 'COPILOT_ALLOW_ALL=yes (truthy but not exactly "true"): approves tools, does not trust the folder',
    repoHooks: (h) => ({ version: 1, hooks: { userPromptSubmitted: [h('ups', { out: ctxOut(M('UPS')) })] } }),
    env: { COPILOT_ALLOW_ALL: 'yes' },
    checks: (c) => [c.fired('ups', 0), c.count(M('UPS'), 0)],
  },
  {
    name: 'trust-flag',
    about: '--trust-folder (one prompt-mode session only)',
    repoHooks: (h) => ({ version: 1, hooks: { userPromptSubmitted: [h('ups', { out: ctxOut(M('UPS')) })] } }),
    args: ['--trust-folder'],
    checks: (c) => [c.fired('ups', 1), c.count(M('UPS'), 1), c.notWritten('trust is not saved', () => !/trustedFolders/.test(c.readHome('.copilot/settings.json')))],
  },
  {
    name: 'trust-settings',
    about: 'the project in "trustedFolders" of $COPILOT_HOME/settings.json: not trusted (the list lives in config.json)',
    repoHooks: (h) => ({ version: 1, hooks: { userPromptSubmitted: [h('ups', { out: ctxOut(M('UPS')) })] } }),
    beforeRun: (ws) => writeJson(path.join(ws.home, '.copilot', 'settings.json'), { trustedFolders: [ws.project] }),
    checks: (c) => [c.fired('ups', 0), c.count(M('UPS'), 0)],
  },
  {
    name: 'trust-config-json',
    about: 'the project in "trustedFolders" of $COPILOT_HOME/config.json (the CLI-managed file)',
    repoHooks: (h) => ({ version: 1, hooks: { userPromptSubmitted: [h('ups', { out: ctxOut(M('UPS')) })] } }),
    beforeRun: (ws) => writeJson(path.join(ws.home, '.copilot', 'config.json'), { trustedFolders: [ws.project] }),
    checks: (c) => [c.fired('ups', 1), c.count(M('UPS'), 1)],
  },
  {
    name: 'trust-config-parent',
    about: 'the project\'s parent folder in "trustedFolders" of $COPILOT_HOME/config.json',
    repoHooks: (h) => ({ version: 1, hooks: { userPromptSubmitted: [h('ups', { out: ctxOut(M('UPS')) })] } }),
    beforeRun: (ws) => writeJson(path.join(ws.home, '.copilot', 'config.json'), { trustedFolders: [path.dirname(ws.project)] }),
    checks: (c) => [c.fired('ups', 1), c.count(M('UPS'), 1)],
  },
  {
    name: 'snake-event-names',
    about: 'snake_case event keys (session_start, user_prompt_submitted): "Ignoring unknown hook event(s)"',
    repoHooks: (h) => ({ version: 1, hooks: { session_start: [h('ss', { out: ctxOut(M('SS')) })], user_prompt_submitted: [h('ups', { out: ctxOut(M('UPS')) })] } }),
    env: { COPILOT_ALLOW_ALL: 'true' },
    checks: (c) => [c.fired('ss', 0), c.fired('ups', 0), c.exitCode(0), c.logHas('the CLI logs the unknown events', /Ignoring unknown hook event\(s\) in .*: session_start, user_prompt_submitted/)],
  },
  {
    name: 'event-name-inventory',
    about: 'every candidate event key with a no-op handler: which ones the CLI skips as unknown',
    repoHooks: (h) => ({ version: 1, hooks: Object.fromEntries(EVENT_CANDIDATES.map((e) => [e, [h(`ev-${e}`, { out: '' })]])) }),
    env: { COPILOT_ALLOW_ALL: 'true' },
    checks: (c) => {
      const ignored = c.logMatch(/Ignoring unknown hook event\(s\) in [^:]*: (.*)/)?.[1]?.split(', ').map((x) => x.trim()) || [];
      return [
        c.report('skipped as unknown', JSON.stringify(ignored)),
        c.report('accepted', JSON.stringify(EVENT_CANDIDATES.filter((e) => !ignored.includes(e)))),
        ...['sessionStart', 'userPromptSubmitted', 'SessionStart', 'UserPromptSubmit'].map((e) => c.notWritten(`${e} is accepted`, () => !ignored.includes(e))),
        ...['session_start', 'user_prompt_submitted', 'UserPromptSubmitted', 'BeforeAgent'].map((e) => c.notWritten(`${e} is skipped as unknown`, () => ignored.includes(e))),
      ];
    },
  },
  {
    name: 'matchers',
    about: 'Claude-style groups with matchers on SessionStart / UserPromptSubmit: matchers are not applied to these events',
    repoHooks: (h) => ({
      hooks: {
        SessionStart: [
          { matcher: 'startup', hooks: [h('ss-startup', { out: '' }, { claude: true })] },
          { matcher: 'new', hooks: [h('ss-new', { out: '' }, { claude: true })] },
          { matcher: 'startup|resume|clear', hooks: [h('ss-alt', { out: '' }, { claude: true })] },
          { matcher: '*', hooks: [h('ss-star', { out: '' }, { claude: true })] },
          { hooks: [h('ss-none', { out: '' }, { claude: true })] },
        ],
        UserPromptSubmit: [
          { matcher: 'nomatch-xyz', hooks: [h('ups-nomatch', { out: '' }, { claude: true })] },
          { hooks: [h('ups-none', { out: '' }, { claude: true })] },
        ],
      },
    }),
    env: { COPILOT_ALLOW_ALL: 'true' },
    checks: (c) => ['ss-startup', 'ss-new', 'ss-alt', 'ss-star', 'ss-none', 'ups-nomatch', 'ups-none'].map((l) => c.fired(l, 1)),
  },
  {
    name: 'handler-cwd-env',
    about: 'handler "cwd" (relative to the repo) and "env" keys',
    repoHooks: (h) => ({ version: 1, hooks: { userPromptSubmitted: [{ ...h('ups', { out: ctxOut(M('UPS')) }), cwd: 'sub', env: { PROBE_ENV: 'probe-env-value' } }] } }),
    files: { 'sub/.keep': '' },
    env: { COPILOT_ALLOW_ALL: 'true' },
    checks: (c) => [c.fired('ups', 1), c.env('ups', 'env reaches the command', (e) => e.PROBE_ENV === 'probe-env-value'), c.env('ups', 'cwd is <repo>/sub', (e) => e.PWD === path.join(c.ws.project, 'sub')), c.count(M('UPS'), 1)],
  },
  {
    name: 'root-unknown-key',
    about: 'an unknown top-level key and an unknown handler key in the hook file',
    repoHooks: (h) => ({ version: 1, sophiaProbe: { x: 1 }, hooks: { userPromptSubmitted: [{ ...h('ups', { out: ctxOut(M('UPS')) }), sophiaProbe: true }] } }),
    env: { COPILOT_ALLOW_ALL: 'true' },
    checks: (c) => [c.fired('ups', 1), c.count(M('UPS'), 1)],
  },
  {
    name: 'default-timeout',
    about: 'a handler without timeoutSec that sleeps 40 s: the default timeout',
    repoHooks: (h) => ({ version: 1, hooks: { userPromptSubmitted: [{ type: 'command', bash: h('ups', { out: ctxOut(M('UPS')), sleep: 40 }).bash }] } }),
    env: { COPILOT_ALLOW_ALL: 'true' },
    checks: (c) => [
      c.fired('ups', 1),
      c.notWritten('the hook is stopped after 30 s (the default timeoutSec)', () => c.hookEnds('userPromptSubmitted').some((d) => d.success === false && /timed out after 30 seconds/.test(d.error?.message || ''))),
      c.count(M('UPS'), 0),
      c.turns(1),
    ],
  },
  {
    name: 'bad-plain-text',
    about: 'a hook printing plain text (not JSON) on stdout',
    repoHooks: (h) => ({ version: 1, hooks: { sessionStart: [h('ss', { out: `plain ${M('SS')}` })], userPromptSubmitted: [h('ups', { out: `plain ${M('UPS')}` })] } }),
    env: { COPILOT_ALLOW_ALL: 'true' },
    checks: (c) => [c.fired('ups', 1), c.exitCode(0), c.turns(1), c.count(M('SS'), 0), c.count(M('UPS'), 0), c.count(c.prompt(0), 1), c.hookEnd('userPromptSubmitted', true)],
  },
  {
    name: 'bad-exit-1',
    about: 'a hook exiting 1 after printing valid JSON',
    repoHooks: (h) => ({ version: 1, hooks: { sessionStart: [h('ss', { out: ctxOut(M('SS')), exit: 1 })], userPromptSubmitted: [h('ups', { out: ctxOut(M('UPS')), exit: 1 })] } }),
    env: { COPILOT_ALLOW_ALL: 'true' },
    checks: (c) => [c.fired('ups', 1), c.exitCode(0), c.turns(1), c.count(M('SS'), 0), c.count(M('UPS'), 0), c.hookEnd('userPromptSubmitted', false), c.logHas('the CLI logs the failure', /execution failed: Error: Hook command failed with code 1/)],
  },
  {
    name: 'bad-exit-2',
    about: 'a hook exiting 2 (Claude Code\'s "block" code) with JSON on stdout and text on stderr: the output is still used',
    repoHooks: (h) => ({ version: 1, hooks: { userPromptSubmitted: [h('ups', { out: ctxOut(M('UPS')), exit: 2, stderr: `stderr ${M('ERR')}` })] } }),
    env: { COPILOT_ALLOW_ALL: 'true' },
    checks: (c) => [c.fired('ups', 1), c.exitCode(0), c.turns(1), c.count(M('UPS'), 1), c.count(M('ERR'), 0), c.count(c.prompt(0), 1)],
  },
  {
    name: 'bad-timeout',
    about: 'a hook sleeping past its timeoutSec: 1',
    repoHooks: (h) => ({ version: 1, hooks: { userPromptSubmitted: [h('ups', { out: ctxOut(M('UPS')), sleep: 4, timeoutSec: 1 })] } }),
    env: { COPILOT_ALLOW_ALL: 'true' },
    checks: (c) => [c.fired('ups', 1), c.exitCode(0), c.turns(1), c.count(M('UPS'), 0), c.elapsedBelow(30), c.logHas('the CLI logs the time-out and proceeds', /timed out; allowing processing to proceed/)],
  },
  {
    name: 'bad-unknown-key',
    about: 'valid additionalContext next to an unknown top-level key',
    repoHooks: (h) => ({ version: 1, hooks: { userPromptSubmitted: [h('ups', { out: { ...ctxOut(M('UPS')), sophiaUnknown: 1 } })] } }),
    env: { COPILOT_ALLOW_ALL: 'true' },
    checks: (c) => [c.fired('ups', 1), c.count(M('UPS'), 1)],
  },
  {
    name: 'trailing-newline',
    about: 'the JSON output followed by a newline (what a println! prints)',
    repoHooks: (h) => ({ version: 1, hooks: { sessionStart: [h('ss', { out: JSON.stringify(ctxOut(M('SS'))) + '\n' })], userPromptSubmitted: [h('ups', { out: JSON.stringify(ctxOut(M('UPS'))) + '\n' })] } }),
    env: { COPILOT_ALLOW_ALL: 'true' },
    checks: (c) => [c.count(M('SS'), 1), c.count(M('UPS'), 1), c.landed(M('UPS'), 'no newline is added inside the <system_reminder>', (w) => w.text.includes(`<system_reminder>\n${M('UPS')}\n</system_reminder>`))],
  },
  {
    name: 'empty-output',
    about: 'a hook printing nothing, then one printing {} (the no-op answers)',
    repoHooks: (h) => ({ version: 1, hooks: { sessionStart: [h('ss', { out: '' })], userPromptSubmitted: [h('ups', { out: {} })] } }),
    env: { COPILOT_ALLOW_ALL: 'true' },
    checks: (c) => [c.fired('ss', 1), c.fired('ups', 1), c.exitCode(0), c.turns(1), c.hookEnd('sessionStart', true), c.hookEnd('userPromptSubmitted', true)],
  },
  {
    name: 'size-cap',
    about: 'additionalContext of 30,000 and 12,000 characters: how much reaches the model',
    repoHooks: (h) => ({
      version: 1,
      hooks: {
        sessionStart: [h('ss', { out: ctxOut(`${M('SSBIG')}${'s'.repeat(12_000)}${M('SSEND')}`) })],
        userPromptSubmitted: [h('ups', { out: ctxOut(`${M('UPSBIG')}${'u'.repeat(30_000)}${M('UPSEND')}`) })],
      },
    }),
    env: { COPILOT_ALLOW_ALL: 'true' },
    checks: (c) => [c.fired('ups', 1), c.report('sessionStart 12,000-char context', c.sizeReport(M('SSBIG'), M('SSEND'))), c.report('userPromptSubmitted 30,000-char context', c.sizeReport(M('UPSBIG'), M('UPSEND')))],
  },
  {
    name: 'size-cap-large',
    about: 'additionalContext of 120,000 characters on both events: how much reaches the model',
    repoHooks: (h) => ({
      version: 1,
      hooks: {
        sessionStart: [h('ss', { out: ctxOut(`${M('SSBIG')}${'s'.repeat(120_000)}${M('SSEND')}`) })],
        userPromptSubmitted: [h('ups', { out: ctxOut(`${M('UPSBIG')}${'u'.repeat(120_000)}${M('UPSEND')}`) })],
      },
    }),
    env: { COPILOT_ALLOW_ALL: 'true' },
    checks: (c) => [c.fired('ups', 1), c.report('sessionStart 120,000-char context', c.sizeReport(M('SSBIG'), M('SSEND'))), c.report('userPromptSubmitted 120,000-char context', c.sizeReport(M('UPSBIG'), M('UPSEND')))],
  },
  {
    name: 'size-cap-huge',
    about: 'additionalContext of 1,100,000 characters on userPromptSubmitted',
    repoHooks: (h) => ({ version: 1, hooks: { userPromptSubmitted: [h('ups', { out: ctxOut(`${M('UPSBIG')}${'u'.repeat(1_100_000)}${M('UPSEND')}`) })] } }),
    env: { COPILOT_ALLOW_ALL: 'true' },
    checks: (c) => [c.fired('ups', 1), c.exitCode(0), c.report('userPromptSubmitted 1,100,000-char context', c.sizeReport(M('UPSBIG'), M('UPSEND')))],
  },
  {
    name: 'two-handlers',
    about: 'handlers at user and repo scope for both events: all run; sessionStart contexts combine, userPromptSubmitted keeps one',
    repoHooks: (h) => ({ version: 1, hooks: { sessionStart: [h('ss-repo', { out: ctxOut(M('SSREPO')) })], userPromptSubmitted: [h('ups-repo', { out: ctxOut(M('REPO')) })] } }),
    userHooks: (h) => ({ version: 1, hooks: { sessionStart: [h('ss-user', { out: ctxOut(M('SSUSER')) })], userPromptSubmitted: [h('ups-user', { out: ctxOut(M('USER')) })] } }),
    env: { COPILOT_ALLOW_ALL: 'true' },
    checks: (c) => [
      c.fired('ss-repo', 1),
      c.fired('ss-user', 1),
      c.fired('ups-repo', 1),
      c.fired('ups-user', 1),
      c.count(M('SSREPO'), 1),
      c.count(M('SSUSER'), 1),
      c.count(M('REPO'), 1),
      c.count(M('USER'), 0),
    ],
  },
  {
    name: 'resume-continue',
    about: 'a second step with --continue: sessionStart source and the earlier contexts in the history',
    repoHooks: (h) => ({ version: 1, hooks: { sessionStart: [h('ss', { out: ctxOut(`${M('SS')}-@K@`) })], userPromptSubmitted: [h('ups', { out: ctxOut(`${M('UPS')}-@K@`) })] } }),
    env: { COPILOT_ALLOW_ALL: 'true' },
    steps: [{ prompt: 'first probe prompt' }, { prompt: 'second probe prompt', args: ['--continue'] }],
    checks: (c) => [
      c.fired('ss', 2),
      c.fired('ups', 2),
      c.payloadAt('ss', 1, 'source on --continue is "resume"', (p) => p.source === 'resume'),
      c.report('where the contexts are in the resumed request', JSON.stringify(['SS-1', 'SS-2', 'UPS-1', 'UPS-2'].map((k) => [k, c.where(M(k))]))),
      // The sessionStart context is not kept in the history: a resumed session gets only the new one.
      c.count(M('SS-1'), 0),
      c.count(M('SS-2'), 1),
      c.count(M('UPS-1'), 1),
      c.count(M('UPS-2'), 1),
    ],
  },
  {
    name: 'resume-silent',
    about: '--continue with a sessionStart hook that answers nothing on source "resume": is the first context replayed?',
    repoHooks: (h) => ({ version: 1, hooks: { sessionStart: [h('ss', { out: ctxOut(`${M('SS')}-@K@`), onResume: '' })], userPromptSubmitted: [h('ups', { out: ctxOut(`${M('UPS')}-@K@`) })] } }),
    env: { COPILOT_ALLOW_ALL: 'true' },
    steps: [{ prompt: 'first probe prompt' }, { prompt: 'second probe prompt', args: ['--continue'] }],
    checks: (c) => [
      c.fired('ss', 2),
      c.payloadAt('ss', 1, 'source on --continue is "resume"', (p) => p.source === 'resume'),
      c.payloadAt('ss', 1, 'initialPrompt on resume is the new prompt', (p) => p.initialPrompt === c.prompt(1)),
      c.count(M('SS-1'), 0),
      c.count(M('UPS-1'), 1),
      c.count(M('UPS-2'), 1),
    ],
  },
  {
    name: 'agents-and-skills',
    about: 'custom agents (*.agent.md) and skills (SKILL.md) in every candidate folder: which the CLI offers',
    repoHooks: (h) => ({ version: 1, hooks: { userPromptSubmitted: [h('ups', { out: ctxOut(M('UPS')) })] } }),
    env: { COPILOT_ALLOW_ALL: 'true' },
    files: {
      '.github/agents/probe-github-agents.agent.md': agentMd('probe-github-agents'),
      '.copilot/agents/probe-dot-copilot-agents.agent.md': agentMd('probe-dot-copilot-agents'),
      '.claude/agents/probe-claude-agents.md': agentMd('probe-claude-agents'),
      '.github/agents/probe-plain-md.md': agentMd('probe-plain-md'),
      '.github/skills/probe-github-skill/SKILL.md': skillMd('probe-github-skill'),
      '.claude/skills/probe-claude-skill/SKILL.md': skillMd('probe-claude-skill'),
      '.agents/skills/probe-agents-skill/SKILL.md': skillMd('probe-agents-skill'),
      '.copilot/skills/probe-dot-copilot-skill/SKILL.md': skillMd('probe-dot-copilot-skill'),
    },
    homeFiles: {
      '.copilot/agents/probe-home-agent.agent.md': agentMd('probe-home-agent'),
      '.copilot/skills/probe-home-skill/SKILL.md': skillMd('probe-home-skill'),
      '.claude/skills/probe-home-claude-skill/SKILL.md': skillMd('probe-home-claude-skill'),
      '.agents/skills/probe-home-agents-skill/SKILL.md': skillMd('probe-home-agents-skill'),
    },
    checks: (c) => {
      const types = c.taskAgentTypes() || [];
      const skills = c.skillsOffered();
      const has = (list, what, name, yes) => c.notWritten(`${what} ${name} ${yes ? 'is' : 'is not'} offered`, () => list.includes(name) === yes);
      return [
        c.report('task tool agent_type values', JSON.stringify(types)),
        c.report('skills offered', JSON.stringify(skills)),
        has(types, 'agent', 'probe-github-agents', true), // .github/agents/*.agent.md
        has(types, 'agent', 'probe-plain-md', true), // .github/agents/*.md
        has(types, 'agent', 'probe-claude-agents', true), // .claude/agents/*.md
        has(types, 'agent', 'probe-home-agent', true), // ~/.copilot/agents/*.agent.md
        has(types, 'agent', 'probe-dot-copilot-agents', false), // .copilot/agents/ in the repo
        has(skills, 'skill', 'probe-github-skill', true),
        has(skills, 'skill', 'probe-claude-skill', true),
        has(skills, 'skill', 'probe-agents-skill', true),
        has(skills, 'skill', 'probe-home-skill', true), // ~/.copilot/skills
        has(skills, 'skill', 'probe-home-agents-skill', true), // ~/.agents/skills
        has(skills, 'skill', 'probe-dot-copilot-skill', false), // .copilot/skills in the repo
        has(skills, 'skill', 'probe-home-claude-skill', false), // ~/.claude/skills
      ];
    },
  },
  {
    name: 'agents-frontmatter',
    about: 'which *.agent.md files become task agent types: name vs file name, no name, unknown key, model, nested folder',
    env: { COPILOT_ALLOW_ALL: 'true' },
    files: {
      '.github/agents/file-name-a.agent.md': agentMd('named_role_a'),
      '.github/agents/no-name-b.agent.md': '---\ndescription: Probe agent without a name.\n---\n\nBody.\n',
      '.github/agents/unknown-key-c.agent.md': '---\nname: unknown_key_c\ndescription: Probe agent with an unknown key.\nsophia-unknown: 1\n---\n\nBody.\n',
      '.github/agents/model-d.agent.md': '---\nname: model_d\ndescription: Probe agent with a model.\nmodel: gpt-5.4\ntools: ["view"]\n---\n\nBody.\n',
      '.github/agents/nested/nested-e.agent.md': agentMd('nested_e'),
      '.github/agents/no-frontmatter-f.agent.md': 'Just a body, no frontmatter.\n',
    },
    checks: (c) => {
      const types = c.taskAgentTypes() || [];
      return [
        c.report('task agent_type values', JSON.stringify(types)),
        c.notWritten('the frontmatter name is the agent type (not the file name)', () => types.includes('named_role_a') && !types.includes('file-name-a')),
        c.notWritten('without a name the file name (minus .agent.md) is the type', () => types.includes('no-name-b')),
        c.notWritten('an unknown frontmatter key does not drop the agent', () => types.includes('unknown_key_c')),
        c.notWritten('model and tools keys are accepted', () => types.includes('model_d')),
        c.notWritten('agents in a sub-folder of .github/agents are found', () => types.includes('nested_e')),
        c.notWritten('a file without frontmatter is not an agent', () => !types.includes('no-frontmatter-f')),
      ];
    },
  },
  {
    name: 'skills-from-subdir',
    about: 'skills seen from a cwd below the git root: root folders, cwd folders, nested groups',
    env: { COPILOT_ALLOW_ALL: 'true' },
    cwd: 'sub/deeper',
    files: {
      'sub/deeper/.keep': '',
      '.github/skills/probe-root-skill/SKILL.md': skillMd('probe-root-skill'),
      'sub/deeper/.github/skills/probe-cwd-skill/SKILL.md': skillMd('probe-cwd-skill'),
      'sub/.github/skills/probe-mid-skill/SKILL.md': skillMd('probe-mid-skill'),
      '.github/skills/group/probe-nested-skill/SKILL.md': skillMd('probe-nested-skill'),
      '.github/skills/.probe-hidden-skill/SKILL.md': skillMd('probe-hidden-skill'),
    },
    checks: (c) => {
      const skills = c.skillsOffered();
      return [
        c.report('skills offered', JSON.stringify(skills)),
        ...['probe-root-skill', 'probe-mid-skill', 'probe-cwd-skill', 'probe-nested-skill'].map((n) => c.notWritten(`skill ${n} is offered`, () => skills.includes(n))),
        c.notWritten('a hidden skill folder is not offered', () => !skills.includes('probe-hidden-skill')),
      ];
    },
  },
  {
    name: 'agents-skills-untrusted',
    about: 'repository agents and skills in an untrusted folder (only --allow-all-tools): offered anyway, unlike hooks',
    files: {
      '.github/agents/probe-untrusted-agent.agent.md': agentMd('probe-untrusted-agent'),
      '.github/skills/probe-untrusted-skill/SKILL.md': skillMd('probe-untrusted-skill'),
    },
    homeFiles: { '.copilot/agents/probe-home-agent.agent.md': agentMd('probe-home-agent'), '.copilot/skills/probe-home-skill/SKILL.md': skillMd('probe-home-skill') },
    checks: (c) => {
      const types = c.taskAgentTypes() || [];
      const skills = c.skillsOffered();
      return [
        c.report('task agent_type values', JSON.stringify(types)),
        c.report('skills offered', JSON.stringify(skills)),
        c.notWritten('the repository agent is offered', () => types.includes('probe-untrusted-agent')),
        c.notWritten('the repository skill is offered', () => skills.includes('probe-untrusted-skill')),
        c.notWritten('the user agent is offered', () => types.includes('probe-home-agent')),
        c.notWritten('the user skill is offered', () => skills.includes('probe-home-skill')),
        c.count('AGENTS-MD-PROBE', 1),
      ];
    },
  },
  {
    name: 'agents-md-with-claude-md',
    about: 'AGENTS.md next to CLAUDE.md: the CLI loads both',
    files: { 'CLAUDE.md': '# Claude file\n\nCLAUDE-MD-PROBE marker line.\n' },
    env: { COPILOT_ALLOW_ALL: 'true' },
    checks: (c) => [c.count('AGENTS-MD-PROBE', 1), c.count('CLAUDE-MD-PROBE', 1)],
  },
  {
    name: 'hotword-bang-p',
    about: 'copilot -p with a prompt starting with "!": sent as a prompt, to the hook and the model',
    repoHooks: (h) => ({ version: 1, hooks: { userPromptSubmitted: [h('ups', { out: ctxOut(M('UPS')) })] } }),
    env: { COPILOT_ALLOW_ALL: 'true' },
    steps: [{ prompt: '!quick probe the bang prompt' }],
    checks: (c) => [c.fired('ups', 1), c.payload('ups', 'prompt is the text, "!" included', (p) => p.prompt === '!quick probe the bang prompt'), c.count('!quick probe the bang prompt', 1), c.count(M('UPS'), 1)],
  },
  {
    name: 'agents-spawn',
    about: 'the model calls task with agent_type = a custom agent: the child runs, with hooks',
    repoHooks: (h) => ({ version: 1, hooks: { sessionStart: [h('ss', { out: ctxOut(M('SS')) })], userPromptSubmitted: [h('ups', { out: ctxOut(M('UPS')) })], subagentStart: [h('sub', { out: ctxOut(M('SUB')) })] } }),
    env: { COPILOT_ALLOW_ALL: 'true' },
    files: { '.github/agents/technical_analyst.agent.md': agentMd('technical_analyst') },
    script: (req, turn) =>
      turn === 0 ? { toolCall: { name: 'task', args: { description: 'probe child', prompt: `child brief ${M('CHILD')}`, agent_type: 'technical_analyst', name: 'probe-child' } } } : undefined,
    checks: (c) => [
      c.report('task agent_type values', JSON.stringify(c.taskAgentTypes())),
      c.report('hook calls', JSON.stringify(c.callSummary())),
      c.notWritten('task offers the custom agent under agent_type', () => (c.taskAgentTypes() || []).includes('technical_analyst')),
      c.fired('sub', 1),
      c.fired('ups', 2),
      c.fired('ss', 1),
      c.payloadAt('ups', 1, 'the child prompt carries agentId, agentType and parentAgentId', (p) => p.agentType === 'technical_analyst' && !!p.agentId && !!p.parentAgentId && p.agentId !== p.parentAgentId && p.sessionId === p.agentId),
      c.payloadAt('ups', 1, 'the child prompt is the subagentStart context, a blank line, then the brief', (p) => p.prompt === `${M('SUB')}\n\nchild brief ${M('CHILD')}`),
      c.payloadAt('sub', 0, 'subagentStart names the agent', (p) => p.agentName === 'technical_analyst' && p.agentType === 'technical_analyst'),
      c.report('requests carrying the child brief', String(c.requestsWith(M('CHILD')).length)),
      c.notWritten('the task result is the child\'s reply', () => c.toolResults().some((o) => String(o).includes(DEFAULT_REPLY))),
      c.report('child requests: markers', JSON.stringify(c.requestsWith(M('CHILD')).map((e) => ['SS', 'UPS', 'SUB'].filter((k) => JSON.stringify(e.body).includes(M(k)))))),
    ],
  },
  {
    name: 'byok-fake-token-online',
    about: 'COPILOT_OFFLINE unset, COPILOT_GITHUB_TOKEN=fake (network: loopback only)',
    repoHooks: (h) => ({ version: 1, hooks: { userPromptSubmitted: [h('ups', { out: ctxOut(M('UPS')) })] } }),
    env: { COPILOT_ALLOW_ALL: 'true', COPILOT_OFFLINE: null, COPILOT_GITHUB_TOKEN: 'github_pat_11FAKEPROBE0000000000_fakeprobetokenfakeprobetokenfakeprobetoken' },
    checks: (c) => [c.exitCode(0), c.turns(1), c.count(M('UPS'), 1), c.elapsedBelow(60)],
  },
  {
    name: 'byok-no-token-online',
    about: 'COPILOT_OFFLINE unset and no token at all (network: loopback only)',
    repoHooks: (h) => ({ version: 1, hooks: { userPromptSubmitted: [h('ups', { out: ctxOut(M('UPS')) })] } }),
    env: { COPILOT_ALLOW_ALL: 'true', COPILOT_OFFLINE: null },
    checks: (c) => [c.exitCode(0), c.turns(1), c.count(M('UPS'), 1), c.elapsedBelow(60)],
  },
];

const EVENT_CANDIDATES = [
  'sessionStart', 'sessionEnd', 'userPromptSubmitted', 'userPromptTransformed', 'preToolUse', 'preMcpToolCall', 'postToolUse',
  'postToolUseFailure', 'postResult', 'prePRDescription', 'errorOccurred', 'agentStop', 'subagentStart', 'subagentStop', 'preCompact',
  'permissionRequest', 'notification',
  'SessionStart', 'SessionEnd', 'UserPromptSubmit', 'UserPromptSubmitted', 'PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'Stop',
  'SubagentStart', 'SubagentStop', 'PreCompact', 'PermissionRequest', 'Notification', 'ErrorOccurred',
  'session_start', 'user_prompt_submitted', 'user_prompt_submit', 'BeforeAgent',
];

function agentMd(name) {
  return `---\nname: ${name}\ndescription: Probe agent ${name} for the hook-contract probe.\ntools: ["view", "rg", "glob"]\n---\n\nYou are ${name}. Answer briefly.\n`;
}
function skillMd(name) {
  return `---\nname: ${name}\ndescription: Probe skill ${name}; use it when asked about ${name}.\n---\n\n# ${name}\n\nReply with the word ${name}.\n`;
}

// ---------------------------------------------------------------------------------------------------
// Running one case.

function writeJson(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + '\n');
}

function shq(s) {
  return `'${String(s).replace(/'/g, `'\\''`)}'`;
}

/** A handler object for the hook file, backed by a generated script that logs and answers. */
function handlerFactory(dir) {
  fs.mkdirSync(path.join(dir, 'calls'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'scripts'), { recursive: true });
  // onResume: a different output when the payload says source "resume" (sessionStart on --continue).
  return (label, { out = '', exit = 0, sleep = 0, stderr = '', timeoutSec = 10, onResume } = {}, { claude = false } = {}) => {
    const script = path.join(dir, 'scripts', `${label}.sh`);
    const outFile = path.join(dir, 'scripts', `${label}.out`);
    const enc = (o) => (typeof o === 'string' ? o : JSON.stringify(o));
    fs.writeFileSync(outFile, enc(out));
    const resumeFile = `${outFile}.resume`;
    if (onResume !== undefined) fs.writeFileSync(resumeFile, enc(onResume));
    const calls = path.join(dir, 'calls');
    fs.writeFileSync(
      script,
      [
        '#!/bin/sh',
        `n=$(date +%s%N)`,
        `cat > ${shq(calls)}/${label}.$n.json`,
        `{ echo "COPILOT_PROJECT_DIR=$COPILOT_PROJECT_DIR"; echo "COPILOT_HOOK_DIR=$COPILOT_HOOK_DIR"; echo "CLAUDE_PROJECT_DIR=$CLAUDE_PROJECT_DIR"; echo "PWD=$(pwd)"; echo "TRACEPARENT=$TRACEPARENT"; echo "PROBE_ENV=$PROBE_ENV"; } > ${shq(calls)}/${label}.$n.env`,
        sleep ? `sleep ${sleep}` : '',
        stderr ? `printf '%s\\n' ${shq(stderr)} >&2` : '',
        `k=$(ls ${shq(calls)}/${label}.*.json | wc -l)`,
        `o=${shq(outFile)}`,
        onResume !== undefined ? `grep -q '"source": *"resume"' ${shq(calls)}/${label}.$n.json && o=${shq(resumeFile)}` : '',
        `sed "s/@K@/$k/g" "$o"`,
        `exit ${exit}`,
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    return claude ? { type: 'command', command: script, timeout: timeoutSec } : { type: 'command', bash: script, timeoutSec };
  };
}

function runCopilot(exe, args, { cwd, env, dir }) {
  const out = fs.openSync(path.join(dir, 'stdout.txt'), 'w');
  const err = fs.openSync(path.join(dir, 'stderr.txt'), 'w');
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(exe, args, { cwd, env, stdio: ['ignore', out, err], detached: true });
    const kill = (sig) => {
      try {
        process.kill(-child.pid, sig);
      } catch {}
    };
    let timedOut = false;
    const t1 = setTimeout(() => ((timedOut = true), kill('SIGTERM')), timeoutMs);
    const t2 = setTimeout(() => kill('SIGKILL'), timeoutMs + 5000);
    const finish = (code, error) => {
      clearTimeout(t1);
      clearTimeout(t2);
      kill('SIGKILL');
      fs.closeSync(out);
      fs.closeSync(err);
      resolve({ code, timedOut, error, elapsed: (Date.now() - started) / 1000, stdout: fs.readFileSync(path.join(dir, 'stdout.txt'), 'utf8'), stderr: fs.readFileSync(path.join(dir, 'stderr.txt'), 'utf8') });
    };
    child.on('error', (e) => finish(-1, String(e)));
    child.on('exit', (code, signal) => finish(code ?? signal, null));
  });
}

/** Where `needle` occurs in a Responses API request body: instructions, or an input item. */
function locate(body, needle, promptText) {
  const where = [];
  if (!body) return where;
  const ins = typeof body.instructions === 'string' ? body.instructions : '';
  for (let i = ins.indexOf(needle); i !== -1; i = ins.indexOf(needle, i + needle.length)) {
    where.push({ kind: 'instructions', around: ins.slice(Math.max(0, i - 200), i + needle.length + 50) });
  }
  const items = Array.isArray(body.input) ? body.input : [];
  const promptIdx = items.findIndex((it) => itemText(it).includes(promptText));
  items.forEach((it, idx) => {
    const text = itemText(it);
    let from = text.indexOf(needle);
    while (from !== -1) {
      where.push({ kind: 'input', index: idx, role: it.role, type: it.type, text, beforePrompt: promptIdx !== -1 && idx < promptIdx, samePrompt: idx === promptIdx, afterPromptText: promptIdx === idx && text.indexOf(promptText) < from });
      from = text.indexOf(needle, from + needle.length);
    }
  });
  return where;
}

function itemText(it) {
  if (!it) return '';
  if (typeof it.content === 'string') return it.content;
  if (Array.isArray(it.content)) return it.content.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('\n');
  if (typeof it.output === 'string') return it.output;
  return '';
}

function occurrences(text, needle) {
  let n = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) n++;
  return n;
}

async function runCase(exe, root, kase, pkgCache) {
  const dir = path.join(root, kase.name);
  const ws = { dir, home: path.join(dir, 'home'), project: path.join(dir, 'project'), tmp: path.join(dir, 'tmp') };
  for (const d of [ws.home, ws.project, ws.tmp]) fs.mkdirSync(d, { recursive: true });
  const baseEnv = { PATH: process.env.PATH, HOME: ws.home, USER: process.env.USER || 'e2e', LANG: 'C.UTF-8', TERM: 'dumb', TMPDIR: ws.tmp, NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost' };
  execFileSync('git', ['init', '-q', '-b', 'main', ws.project], { env: baseEnv, timeout: 30_000 });
  const files = { 'AGENTS.md': '# Probe project\n\nAGENTS-MD-PROBE marker line.\n', 'notes.txt': 'probe notes\n', ...(kase.files || {}) };
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(ws.project, rel)), { recursive: true });
    fs.writeFileSync(path.join(ws.project, rel), content);
  }
  for (const [rel, content] of Object.entries(kase.homeFiles || {})) {
    fs.mkdirSync(path.dirname(path.join(ws.home, rel)), { recursive: true });
    fs.writeFileSync(path.join(ws.home, rel), content);
  }
  const h = handlerFactory(dir);
  if (kase.repoHooks) writeJson(path.join(ws.project, '.github', 'hooks', 'probe.json'), kase.repoHooks(h));
  if (kase.userHooks) writeJson(path.join(ws.home, '.copilot', 'hooks', 'probe.json'), kase.userHooks(h));
  if (kase.userSettings) writeJson(path.join(ws.home, '.copilot', 'settings.json'), kase.userSettings(h));
  if (kase.repoSettings) writeJson(path.join(ws.project, '.github', 'copilot', 'settings.json'), kase.repoSettings(h));
  if (kase.beforeRun) kase.beforeRun(ws);

  const logFile = path.join(dir, 'requests.jsonl');
  const mock = await startMock({ api: 'responses', logFile, script: kase.script });
  const env = {
    ...baseEnv,
    COPILOT_PROVIDER_BASE_URL: `${mock.url}/v1`,
    COPILOT_PROVIDER_WIRE_API: 'responses',
    COPILOT_MODEL: 'gpt-5.4',
    COPILOT_OFFLINE: 'true',
    COPILOT_AUTO_UPDATE: 'false',
    // The executable unpacks its bundled package into $COPILOT_PKG_CACHE_HOME/pkg (235 MB) on first
    // launch; one shared cache spares each fresh HOME that (sea-loader.js reads this variable).
    COPILOT_PKG_CACHE_HOME: pkgCache,
  };
  for (const [k, v] of Object.entries(kase.env || {})) {
    if (v === null) delete env[k];
    else env[k] = v;
  }
  const steps = kase.steps || [{ prompt: `probe prompt for ${kase.name}` }];
  const runs = [];
  try {
    for (const [i, step] of steps.entries()) {
      const sdir = path.join(dir, `step${i}`);
      fs.mkdirSync(sdir, { recursive: true });
      const before = readLog(logFile).length;
      const args = ['-p', step.prompt, '--allow-all-tools', '--no-auto-update', '--log-level', 'all', '--log-dir', path.join(sdir, 'logs'), ...(kase.args || []), ...(step.args || [])];
      const run = await runCopilot(exe, args, { cwd: path.join(ws.project, kase.cwd || ''), env, dir: sdir });
      run.requests = readLog(logFile).slice(before);
      runs.push(run);
    }
  } finally {
    await mock.close();
    killStragglers(dir);
  }
  return { ws, runs, steps, dir };
}

function caseChecks(kase, r) {
  const { ws, runs, steps } = r;
  const last = runs[runs.length - 1];
  const lastPrompt = steps[steps.length - 1].prompt;
  const turns = last.requests.filter((e) => e.kind === 'turn');
  // The parent's request for this step: the last conversation request that carries the step's prompt.
  const main = [...turns].reverse().find((e) => JSON.stringify(e.body).includes(lastPrompt))?.body || turns[turns.length - 1]?.body;
  const callsDir = path.join(r.dir, 'calls');
  const calls = fs
    .readdirSync(callsDir)
    .filter((f) => f.endsWith('.json'))
    .sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]))
    .map((f) => {
      const label = f.split('.')[0];
      const raw = fs.readFileSync(path.join(callsDir, f), 'utf8');
      let payload = null;
      try {
        payload = JSON.parse(raw);
      } catch {}
      const envText = fs.existsSync(path.join(callsDir, f.replace(/\.json$/, '.env'))) ? fs.readFileSync(path.join(callsDir, f.replace(/\.json$/, '.env')), 'utf8') : '';
      const envv = Object.fromEntries(envText.split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
      return { label, raw, payload, env: envv };
    });
  const of = (label) => calls.filter((x) => x.label === label);
  const ck = (name, ok, detail) => ({ name, ok: !!ok, detail });
  const events = () => {
    const base = path.join(ws.home, '.copilot', 'session-state');
    if (!fs.existsSync(base)) return [];
    const out = [];
    for (const s of fs.readdirSync(base)) {
      const f = path.join(base, s, 'events.jsonl');
      if (!fs.existsSync(f)) continue;
      for (const l of fs.readFileSync(f, 'utf8').split('\n').filter(Boolean)) {
        try {
          out.push(JSON.parse(l));
        } catch {}
      }
    }
    return out;
  };
  const c = {
    ws,
    prompt: (i) => steps[i].prompt,
    readHome: (rel) => (fs.existsSync(path.join(ws.home, rel)) ? fs.readFileSync(path.join(ws.home, rel), 'utf8') : ''),
    fired: (label, n) => ck(`hook ${label} ran ${n} time(s)`, of(label).length === n, `ran ${of(label).length} times`),
    payloadKeys: (label, keys) => {
      const p = of(label)[0]?.payload;
      const got = p ? Object.keys(p).sort() : null;
      return ck(`hook ${label} payload keys are ${keys.join(', ')}`, got && JSON.stringify(got) === JSON.stringify([...keys].sort()), `got ${JSON.stringify(got)}: ${of(label)[0]?.raw.slice(0, 400)}`);
    },
    payload: (label, name, pred) => {
      const p = of(label)[0]?.payload;
      return ck(`hook ${label}: ${name}`, p && pred(p), of(label)[0]?.raw.slice(0, 400));
    },
    payloadAt: (label, i, name, pred) => {
      const p = of(label)[i]?.payload;
      return ck(`hook ${label} call ${i}: ${name}`, p && pred(p), of(label)[i]?.raw.slice(0, 400));
    },
    env: (label, name, pred) => {
      const e = of(label)[0]?.env;
      return ck(`hook ${label} env: ${name}`, e && pred(e), JSON.stringify(e));
    },
    where: (needle) => locate(main, needle, lastPrompt).map((w) => (w.kind === 'input' ? `input[${w.index}] ${w.role}${w.samePrompt ? ' (the prompt\'s message)' : ''}` : w.kind)),
    landed: (needle, name, pred) => {
      const where = locate(main, needle, lastPrompt);
      return ck(name, where.length > 0 && where.every(pred), JSON.stringify(where).slice(0, 600));
    },
    count: (needle, n) => {
      const got = main ? occurrences(JSON.stringify(main), needle) : 0;
      return ck(n === undefined ? `count ${needle}` : `${needle} reaches the model ${n} time(s)`, n === undefined || got === n, `found ${got} times in the step's request`);
    },
    turns: (min) => ck(`the model got at least ${min} conversation request(s)`, turns.length >= min, `${turns.length} turns; exit ${last.code}; stderr ${last.stderr.slice(0, 300)}`),
    exitCode: (code) => ck(`copilot exited ${code}`, runs.every((x) => x.code === code), runs.map((x) => `${x.code}${x.timedOut ? ' (timed out)' : ''}: ${x.stderr.slice(0, 300)}`).join(' | ')),
    elapsedBelow: (s) => ck(`each run took under ${s} s`, runs.every((x) => x.elapsed < s), runs.map((x) => `${x.elapsed.toFixed(1)} s`).join(', ')),
    hookEnd: (hookType, success) => {
      const ends = events().filter((e) => e.type === 'hook.end' && e.data?.hookType === hookType);
      return ck(`session events: ${hookType} hook.end success=${success}`, ends.length > 0 && ends.every((e) => e.data.success === success), JSON.stringify(ends.map((e) => e.data)).slice(0, 500));
    },
    notWritten: (name, pred) => ck(name, pred(), ''),
    logHas: (name, re) => {
      const logs = runs.flatMap((_, i) => {
        const d = path.join(r.dir, `step${i}`, 'logs');
        return fs.existsSync(d) ? fs.readdirSync(d).map((f) => fs.readFileSync(path.join(d, f), 'utf8')) : [];
      });
      return ck(name, logs.some((t) => re.test(t)), `no log line matches ${re}`);
    },
    logMatch: (re) => {
      for (const [i] of runs.entries()) {
        const d = path.join(r.dir, `step${i}`, 'logs');
        if (!fs.existsSync(d)) continue;
        for (const f of fs.readdirSync(d)) {
          const m = fs.readFileSync(path.join(d, f), 'utf8').match(re);
          if (m) return m;
        }
      }
      return null;
    },
    hookEnds: (hookType) => events().filter((e) => e.type === 'hook.end' && e.data?.hookType === hookType).map((e) => e.data),
    report: (name, detail) => ({ name, ok: true, detail, info: true }),
    sizeReport: (start, end) => {
      const s = main ? JSON.stringify(main) : '';
      const where = locate(main, start, lastPrompt)[0];
      if (!where) return 'start marker absent';
      const text = where.text ?? where.around;
      const from = text.indexOf(start);
      const to = text.indexOf(end);
      return `start present; end ${to === -1 ? 'absent' : 'present'}; ${to === -1 ? text.length - from : to + end.length - from} chars from the start marker in that ${where.kind} item; body ${s.length} chars`;
    },
    taskAgentTypes: () => {
      const t = (main?.tools || []).find((x) => x.name === 'task');
      return t?.parameters?.properties?.agent_type?.enum || null;
    },
    skillsOffered: () => {
      const s = JSON.stringify(main || {});
      const names = [...new Set(s.match(/probe-[a-z-]+-skill/g) || [])];
      return names.sort();
    },
    callSummary: () => calls.map((x) => ({ label: x.label, keys: x.payload ? Object.keys(x.payload) : null, agent: x.payload?.agentType || x.payload?.agentName || x.payload?.agent_type || undefined })),
    requestsWith: (needle) => last.requests.filter((e) => JSON.stringify(e.body || {}).includes(needle)),
    toolResults: () => {
      const out = [];
      for (const e of last.requests) for (const it of e.body?.input || []) if (it.type === 'function_call_output') out.push(typeof it.output === 'string' ? it.output.slice(0, 300) : it.output);
      return out;
    },
  };
  return kase.checks(c);
}

// ---------------------------------------------------------------------------------------------------
// --tui: the interactive TUI under tmux (a server of its own), against the same mock: the folder-trust
// dialog and where it records trust, when sessionStart fires, and which first characters of a typed
// message reach the hook and the model. One TUI; each candidate is typed into an empty composer.

const TUI_CANDIDATES = [
  { chars: '!', expect: 'not-sent' }, // shell command
  { chars: ' !', expect: 'not-sent' }, // the leading space is trimmed: still a shell command
  { chars: '?', expect: 'swallowed' },
  { chars: '/', expect: 'not-sent' }, // "Unknown command"
  { chars: '#', expect: 'typed' },
  { chars: '%', expect: 'typed' },
  { chars: '+', expect: 'typed' },
  { chars: '@', expect: 'typed' },
  { chars: '&', expect: 'typed' },
];

async function tuiProbe(exe, root, pkgCache) {
  if (spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status !== 0) throw new Error('tmux is not installed (apt-get install tmux)');
  const dir = path.join(root, 'tui');
  const ws = { home: path.join(dir, 'home'), project: path.join(dir, 'project'), tmp: path.join(dir, 'tmp') };
  for (const d of [ws.home, ws.project, ws.tmp]) fs.mkdirSync(d, { recursive: true });
  execFileSync('git', ['init', '-q', '-b', 'main', ws.project], { env: { PATH: process.env.PATH, HOME: ws.home }, timeout: 30_000 });
  const h = handlerFactory(dir);
  writeJson(path.join(ws.project, '.github', 'hooks', 'probe.json'), {
    version: 1,
    hooks: { sessionStart: [h('ss', { out: ctxOut(M('SS')) })], userPromptSubmitted: [h('ups', { out: ctxOut(M('UPS')) })] },
  });
  const logFile = path.join(dir, 'requests.jsonl');
  const mock = await startMock({ api: 'responses', logFile });
  const env = {
    PATH: process.env.PATH, HOME: ws.home, TMPDIR: ws.tmp, TERM: 'xterm-256color', LANG: 'C.UTF-8', NO_PROXY: '127.0.0.1,localhost',
    COPILOT_PROVIDER_BASE_URL: `${mock.url}/v1`, COPILOT_PROVIDER_WIRE_API: 'responses', COPILOT_MODEL: 'gpt-5.4', COPILOT_OFFLINE: 'true',
    COPILOT_AUTO_UPDATE: 'false', COPILOT_PKG_CACHE_HOME: pkgCache,
  };
  const script = path.join(dir, 'run-tui.sh');
  const envArgs = Object.entries(env).map(([k, v]) => shq(`${k}=${v}`)).join(' ');
  fs.writeFileSync(script, `#!/bin/sh\ncd ${shq(ws.project)} || exit 1\nexec env -i ${envArgs} ${shq(exe)} --no-auto-update --log-level all --log-dir ${shq(path.join(dir, 'logs'))}\n`, { mode: 0o755 });
  const sock = `sophia-copilot-probe-${process.pid}`;
  const tmux = (...args) => spawnSync('tmux', ['-L', sock, ...args], { encoding: 'utf8', timeout: 10_000 });
  const screen = () => tmux('capture-pane', '-p', '-t', 't').stdout || '';
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const waitFor = async (pred, ms) => {
    for (const end = Date.now() + ms; Date.now() < end; await sleep(250)) if (pred()) return true;
    return pred();
  };
  const callsOf = (label) =>
    fs.readdirSync(path.join(dir, 'calls')).filter((f) => f.startsWith(`${label}.`) && f.endsWith('.json')).map((f) => {
      try {
        return JSON.parse(fs.readFileSync(path.join(dir, 'calls', f), 'utf8'));
      } catch {
        return null;
      }
    });
  // The user message that carries `needle`, as the model got it (the CLI's <current_datetime> prefix cut).
  const sentText = (needle) => {
    for (const e of readLog(logFile).reverse()) {
      for (const it of e.body?.input || []) {
        const t = itemText(it);
        if (it.role === 'user' && t.includes(needle)) return t.replace(/^<current_datetime>[^<]*<\/current_datetime>\n\n/, '').split('\n\n<system_reminder>')[0];
      }
    }
    return null;
  };
  const ck = (name, ok, detail) => ({ name, ok: !!ok, detail });
  const out = [];
  try {
    tmux('new-session', '-d', '-s', 't', '-x', '160', '-y', '45', script);
    const dialog = await waitFor(() => screen().includes('Confirm folder trust'), 90_000);
    out.push(ck('the TUI asks to confirm folder trust for a new folder', dialog, screen().slice(-1500)));
    tmux('send-keys', '-t', 't', '2'); // "Yes, and remember this folder for future sessions"
    await sleep(500);
    tmux('send-keys', '-t', 't', 'Enter');
    const cfg = path.join(ws.home, '.copilot', 'config.json');
    const saved = await waitFor(() => fs.existsSync(cfg) && fs.readFileSync(cfg, 'utf8').includes(ws.project), 15_000);
    const text = fs.existsSync(cfg) ? fs.readFileSync(cfg, 'utf8') : '';
    let parsed = null;
    try {
      parsed = JSON.parse(text.split('\n').filter((l) => !l.trim().startsWith('//')).join('\n'));
    } catch {}
    out.push(ck('"remember" records the folder in trustedFolders of ~/.copilot/config.json', saved && parsed?.trustedFolders?.includes(ws.project), text));
    out.push(ck('config.json is JSON after // comment lines', /^\/\//.test(text) && parsed !== null, text.slice(0, 200)));
    out.push(ck('sessionStart has not fired before the first prompt', callsOf('ss').length === 0, `${callsOf('ss').length} calls`));
    await waitFor(() => /❯/.test(screen()), 15_000);
    const first = 'tui first prompt';
    tmux('send-keys', '-t', 't', '-l', first);
    await sleep(500);
    tmux('send-keys', '-t', 't', 'Enter');
    await waitFor(() => sentText(first) !== null, 30_000);
    out.push(ck('the first prompt fires sessionStart (source "new", initialPrompt the prompt)', callsOf('ss').length === 1 && callsOf('ss')[0]?.source === 'new' && callsOf('ss')[0]?.initialPrompt === first, JSON.stringify(callsOf('ss'))));
    const items = readLog(logFile).flatMap((e) => (e.body?.input || []).filter((it) => it.role === 'user').map(itemText));
    out.push(
      ck(
        'both contexts reach the model as in -p mode (own message; <system_reminder> after the prompt)',
        items.includes(M('SS')) && items.some((t) => t.includes(`${first}\n\n<system_reminder>\n${M('UPS')}\n</system_reminder>`)),
        JSON.stringify(items).slice(0, 600),
      ),
    );
    for (const [i, cand] of TUI_CANDIDATES.entries()) {
      await sleep(1500);
      const tag = `tuiprobe${i}x`;
      const typed = `${cand.chars}quick ${tag}`;
      tmux('send-keys', '-t', 't', '-l', typed);
      await sleep(700);
      tmux('send-keys', '-t', 't', 'Enter');
      await waitFor(() => sentText(tag) !== null, 12_000);
      const sent = sentText(tag);
      const hooked = callsOf('ups').some((p) => p?.prompt?.includes(tag));
      const got = sent === null ? 'not-sent' : sent === typed ? 'typed' : sent === typed.replace(cand.chars, '') ? 'swallowed' : `altered: ${sent}`;
      out.push(ck(`"${typed}": ${cand.expect}`, got === cand.expect && hooked === (got !== 'not-sent'), `got ${got}; hook ${hooked ? 'fired' : 'did not fire'}; screen:\n${screen().split('\n').filter((l) => l.trim()).slice(-6).join('\n')}`));
      tmux('send-keys', '-t', 't', 'Escape');
    }
    out.push(ck('sessionStart fired once for the whole TUI session', callsOf('ss').length === 1, `${callsOf('ss').length} calls`));
  } finally {
    tmux('kill-server');
    await mock.close();
    killStragglers(dir);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------

const exe = findOrInstallCopilot();
const version = spawnSync(exe, ['--version'], { encoding: 'utf8', timeout: 60_000 }).stdout.trim().split('\n')[0];
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sophia-copilot-probe-'));
const pkgCache = path.join(root, 'pkg-cache');
console.log(`probe: ${version}; work directory ${root}`);
let passed = 0;
let failed = 0;
const report = (label, results) => {
  for (const x of results) {
    const status = x.info ? 'info' : x.ok ? 'ok' : 'FAIL';
    if (!x.info) x.ok ? passed++ : failed++;
    const detail = x.info || !x.ok ? `\n       ${String(x.detail ?? '').replace(/\n/g, '\n       ')}` : '';
    console.log(`${status.padEnd(5)} ${label}: ${x.name}${detail}`);
  }
};
if (tuiMode) {
  let results;
  try {
    results = await tuiProbe(exe, root, pkgCache);
  } catch (e) {
    results = [{ name: 'TUI probe ran', ok: false, detail: String(e && e.stack) }];
  }
  report('tui', results);
} else {
  for (const kase of CASES) {
    if (filters.length && !filters.some((f) => kase.name.includes(f))) continue;
    let results;
    try {
      const r = await runCase(exe, root, kase, pkgCache);
      results = caseChecks(kase, r);
    } catch (e) {
      results = [{ name: 'case ran', ok: false, detail: String(e && e.stack) }];
    }
    report(kase.name, results);
  }
}
if (failed === 0 && process.env.SOPHIA_E2E_KEEP !== '1') fs.rmSync(root, { recursive: true, force: true });
else console.log(`probe: work directory kept: ${root}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
