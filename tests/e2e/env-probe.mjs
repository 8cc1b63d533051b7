// Which hosts pass a *project's* environment settings to the hooks they run? For every host and every
// way a repository can set environment that we found in the host's docs or bundle (a "mechanism":
// Claude Code's `env` block, a project `.env`, Gemini CLI's `.gemini/.env`, Codex's
// `[shell_environment_policy]`, a hook handler's own `env`, …), run the real host non-interactively
// against the mock model (lib/mock.mjs) with a tiny shell script registered as its SessionStart and
// prompt hook, at project scope and trusted as the suite does it (the drivers of lib/hosts.mjs), and
// read the environment the script saw. Not sophia-hook: the script only writes `env` to a file.
//
//   tests/e2e/run --env-probe              every host, pinned (the run script installs the hosts)
//   tests/e2e/run --env-probe --latest     each host at npm's latest
//   tests/e2e/run --env-probe claude dotenv   only mechanisms whose "<host> <mechanism>" contains one of these
//   node tests/e2e/env-probe.mjs [filters] standalone, with the hosts cached by an earlier tests/e2e/run
//   … --verbose                            also print the env-file line behind every answer
//
// Env: SOPHIA_E2E_HOSTS, SOPHIA_E2E_BIN_<HOST> and SOPHIA_E2E_VERSION_<HOST> (set by tests/e2e/run; else
//      the pinned version cached under ${SOPHIA_E2E_CACHE:-~/.cache/sophia-hook-e2e}), SOPHIA_E2E_TIMEOUT
//      (seconds per host run, default 60), SOPHIA_E2E_KEEP=1 (keep the work directory), SOPHIA_E2E_NETNS=0.
//
// Each mechanism runs alone in a fresh HOME and project, twice:
//   run "vars": the mechanism sets its own marker (PROBE_<HOST>_<MECHANISM>=1) and the variables sophia-hook
//               reads: SOPHIA_ANALYTICS_FILE, SOPHIA_CACHE_DIR, XDG_STATE_HOME (unset in the host's own
//               environment) and SOPHIA_TIME_BUDGET_MS (set to 100 in the host's own environment, as a
//               user's might be, so the answer says whether a project value *overrides* a real one);
//   run "home": the marker, HOME, CODEX_HOME and PATH (HOME and PATH are always set, CODEX_HOME for Codex
//               only; the planted PATH is a folder of the project's in front of the real PATH).
// Every planted value names the mechanism (`/probe-claude-settings-env/home`, …), so an env file line
// is its own evidence.
//
// Output: one line per host × mechanism: `passes` (the hook saw the marker at every event), `does not
// pass` (at none), `passes at <event> only`, or `hook did not run (<event>)`, then which of the probed
// variables the hook saw with the project's value. A line is `ok` when that matches EXPECTED below and
// `FAIL` (with the expectation) otherwise; the last line is `N passed, N failed` and the exit code is
// non-zero on any failure — a host upgrade that changes what a project can do to a hook's environment
// fails here. The table of what each host does is in tests/e2e/README.md, "Project environment in hooks".

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { startMock, readLog } from './lib/mock.mjs';
import { HOSTS, codexTrustEntries } from './lib/hosts.mjs';
import { killStragglers } from './lib/proc.mjs';

// ---------------------------------------------------------------------------------------------------
// What the hosts do today (observed with this probe; see the findings for the bundle code behind each).
// `seen`: the probed variables the hook saw with the project's value (the marker aside), both runs.
// `home`: the verdict of the "home" run when it differs from `verdict`; `control`: what the mechanism's
// positive control shows (default true: the mechanism did take effect where it is meant to).

const VARS = ['SOPHIA_ANALYTICS_FILE', 'SOPHIA_CACHE_DIR', 'XDG_STATE_HOME', 'SOPHIA_TIME_BUDGET_MS'];
const HOME_VARS = ['HOME', 'CODEX_HOME', 'PATH'];
const NONE = { verdict: 'does not pass', seen: [] };
const EVERY = { verdict: 'passes', seen: [...VARS, ...HOME_VARS] };
// A .env Gemini CLI loads sets only names the environment does not have yet (HOME, PATH, and
// SOPHIA_TIME_BUDGET_MS here, are kept; CODEX_HOME is unset in Gemini's environment here, so it is set).
const UNSET_ONLY = { verdict: 'passes', seen: ['SOPHIA_ANALYTICS_FILE', 'SOPHIA_CACHE_DIR', 'XDG_STATE_HOME', 'CODEX_HOME'] };
// Claude Code drops names on its list of keys a project's settings can't set (HOME, XDG_*, …) with a warning.
// PATH is not on that list.
const CLAUDE_SETTINGS = { verdict: 'passes', seen: ['SOPHIA_ANALYTICS_FILE', 'SOPHIA_CACHE_DIR', 'SOPHIA_TIME_BUDGET_MS', 'CODEX_HOME', 'PATH'] };

export const EXPECTED = {
  codex: {
    'config-shell-env': { ...NONE, control: true }, // the agent's shell commands get it, hooks do not
    'config-shell-env-untrusted': { ...NONE, control: false }, // an untrusted folder's config is not read at all
    'handler-env': NONE,
    dotenv: NONE,
    'codex-dotenv': NONE,
  },
  claude: {
    'settings-env': CLAUDE_SETTINGS,
    'settings-local-env': CLAUDE_SETTINGS,
    'handler-env': NONE,
    'session-env-file': { ...NONE, control: true },
    'session-env-file-shell': { ...NONE, control: true },
    dotenv: NONE,
    'dotenv-local': NONE,
  },
  gemini: {
    dotenv: UNSET_ONLY,
    'gemini-dotenv': UNSET_ONLY,
    'parent-dotenv': UNSET_ONLY,
    'handler-env': EVERY,
  },
  copilot: {
    'handler-env': EVERY,
    dotenv: NONE,
  },
};

// ---------------------------------------------------------------------------------------------------
// The mechanisms. plant(ws, vars) writes the project's files (after the hooks are registered, before
// trust is granted: Codex trusts the project's hooks.json as it then is). `vars` is {NAME: value}.

const dotenv = (vars) => Object.entries(vars).map(([k, v]) => `${k}=${v}\n`).join('');
const tomlString = (s) => JSON.stringify(s);

const MECHANISMS = [
  {
    host: 'codex',
    id: 'config-shell-env',
    about: 'project .codex/config.toml [shell_environment_policy] set = {…} (folder trusted)',
    plant: (ws, vars) =>
      write(ws.project, '.codex/config.toml', `[shell_environment_policy]\nset = { ${Object.entries(vars).map(([k, v]) => `${k} = ${tomlString(v)}`).join(', ')} }\n`),
    // The positive control: the agent's own shell command (exec_command `env`) reads the policy.
    control: {
      reply: { toolCall: { name: 'exec_command', args: { cmd: 'env' } } },
      label: "the agent's own shell command (exec_command env)",
      check: (c) => c.toolOutputs.some((o) => o.includes(`${c.marker}=1`)),
    },
  },
  {
    host: 'codex',
    id: 'config-shell-env-untrusted',
    about: 'the same in a folder that is not trusted, the probe hook at user scope ($CODEX_HOME/hooks.json, trusted)',
    register(ws, script) {
      REGISTER.codex(ws, script);
      fs.mkdirSync(path.join(ws.home, '.codex'), { recursive: true });
      fs.renameSync(path.join(ws.project, '.codex', 'hooks.json'), path.join(ws.home, '.codex', 'hooks.json'));
      writeJson(path.join(ws.project, '.codex', 'hooks.json'), { hooks: {} }); // the driver hashes this one: nothing
    },
    plant: (ws, vars) => MECHANISMS.find((m) => m.id === 'config-shell-env').plant(ws, vars),
    // The driver trusted the folder: take that back, and trust the user-scope handlers instead.
    afterPrepare(ws) {
      const config = path.join(ws.home, '.codex', 'config.toml');
      const text = fs.readFileSync(config, 'utf8').replace(`[projects.${JSON.stringify(ws.project)}]\ntrust_level = "trusted"\n`, '');
      const trust = codexTrustEntries(path.join(ws.home, '.codex', 'hooks.json')).map(({ key, hash }) => `\n[hooks.state.${JSON.stringify(key)}]\ntrusted_hash = ${JSON.stringify(hash)}\n`);
      fs.writeFileSync(config, text + trust.join(''));
    },
    get control() {
      return MECHANISMS.find((m) => m.id === 'config-shell-env').control;
    },
  },
  { host: 'codex', id: 'handler-env', about: 'an "env" key on the handler in .codex/hooks.json (not in its schema)', plant: (ws, vars) => setHandlerEnv(path.join(ws.project, '.codex', 'hooks.json'), vars) },
  { host: 'codex', id: 'dotenv', about: 'project .env', plant: (ws, vars) => write(ws.project, '.env', dotenv(vars)) },
  { host: 'codex', id: 'codex-dotenv', about: 'project .codex/.env (the file Codex loads from $CODEX_HOME)', plant: (ws, vars) => write(ws.project, '.codex/.env', dotenv(vars)) },

  { host: 'claude', id: 'settings-env', about: '"env" block of .claude/settings.json', plant: (ws, vars) => mergeJson(path.join(ws.project, '.claude', 'settings.json'), { env: vars }) },
  { host: 'claude', id: 'settings-local-env', about: '"env" block of .claude/settings.local.json', plant: (ws, vars) => mergeJson(path.join(ws.project, '.claude', 'settings.local.json'), { env: vars }) },
  { host: 'claude', id: 'handler-env', about: 'an "env" key on the handler in .claude/settings.json (not in its schema)', plant: (ws, vars) => setHandlerEnv(path.join(ws.project, '.claude', 'settings.json'), vars) },
  {
    host: 'claude',
    id: 'session-env-file',
    about: "a project's own SessionStart hook appending `export` lines to $CLAUDE_ENV_FILE",
    plant(ws, vars) {
      const script = path.join(ws.root, 'set-env-file.sh');
      const lines = Object.entries(vars).map(([k, v]) => shq(`export ${k}=${shq(v)}`)).join(' ');
      fs.writeFileSync(script, `#!/bin/sh
cat >/dev/null
[ -n "$CLAUDE_ENV_FILE" ] && printf '%s\\n' ${lines} >> "$CLAUDE_ENV_FILE"
printf '{}\\n'
`, { mode: 0o755 });
      const file = path.join(ws.project, '.claude', 'settings.json');
      const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
      doc.hooks.SessionStart.unshift({ hooks: [{ type: 'command', command: script, timeout: 30 }] });
      writeJson(file, doc);
    },
    control: {
      label: '$CLAUDE_ENV_FILE (the file under ~/.claude/session-env/ the SessionStart hook wrote)',
      check: (c) => findFiles(path.join(c.ws.home, '.claude', 'session-env')).some((f) => fs.readFileSync(f, 'utf8').includes(`export ${c.marker}='1'`)),
    },
  },
  {
    host: 'claude',
    id: 'session-env-file-shell',
    about: 'the same, the probe hook in the shell form (a command line, as in a plugin\'s hooks.json)',
    shellForm: true,
    plant: (ws, vars) => MECHANISMS.find((m) => m.id === 'session-env-file').plant(ws, vars),
    get control() {
      return MECHANISMS.find((m) => m.id === 'session-env-file').control;
    },
  },
  { host: 'claude', id: 'dotenv', about: 'project .env', plant: (ws, vars) => write(ws.project, '.env', dotenv(vars)) },
  { host: 'claude', id: 'dotenv-local', about: 'project .env.local', plant: (ws, vars) => write(ws.project, '.env.local', dotenv(vars)) },

  { host: 'gemini', id: 'dotenv', about: 'project .env', plant: (ws, vars) => write(ws.project, '.env', dotenv(vars)) },
  { host: 'gemini', id: 'gemini-dotenv', about: 'project .gemini/.env', plant: (ws, vars) => write(ws.project, '.gemini/.env', dotenv(vars)) },
  { host: 'gemini', id: 'parent-dotenv', about: ".env in the project's parent folder (the project has none)", plant: (ws, vars) => write(path.dirname(ws.project), '.env', dotenv(vars)) },
  { host: 'gemini', id: 'handler-env', about: '"env" of the hook handler in .gemini/settings.json', plant: (ws, vars) => setHandlerEnv(path.join(ws.project, '.gemini', 'settings.json'), vars) },

  { host: 'copilot', id: 'handler-env', about: '"env" of the hook handler in .github/hooks/env-probe.json', plant: (ws, vars) => setHandlerEnv(path.join(ws.project, '.github', 'hooks', 'env-probe.json'), vars) },
  { host: 'copilot', id: 'dotenv', about: 'project .env', plant: (ws, vars) => write(ws.project, '.env', dotenv(vars)) },
];

// ---------------------------------------------------------------------------------------------------
// The hook: a shell script with an absolute path that writes its environment and stdin beside each
// other (`<event>.<ns>.env`, `.json`) and answers `{}` (a no-op for every host; Gemini CLI wants JSON).
// Registered at project scope in each host's own file, as `sophia-hook install` registers itself.

function writeHookScript(ws) {
  const script = path.join(ws.root, 'env-dump.sh');
  fs.mkdirSync(ws.calls, { recursive: true });
  fs.writeFileSync(
    script,
    ['#!/bin/sh', `out=${shq(ws.calls)}`, 'n=$(date +%s%N)', 'env > "$out/$1.$n.env"', 'cat > "$out/$1.$n.json"', "printf '{}\\n'", ''].join('\n'),
    { mode: 0o755 },
  );
  return script;
}

const REGISTER = {
  codex(ws, script) {
    const h = (ev) => [{ hooks: [{ type: 'command', command: `${shq(script)} ${ev}`, timeout: 30 }] }];
    writeJson(path.join(ws.project, '.codex', 'hooks.json'), { hooks: { SessionStart: h('SessionStart'), UserPromptSubmit: h('UserPromptSubmit') } });
  },
  claude(ws, script, mech) {
    // The exec form `install` writes: the program and its arguments, no shell (or the shell form, a
    // command line, where the mechanism asks for it).
    const h = (ev) => [{ hooks: [mech.shellForm ? { type: 'command', command: `${shq(script)} ${ev}`, timeout: 30 } : { type: 'command', command: script, args: [ev], timeout: 30 }] }];
    mergeJson(path.join(ws.project, '.claude', 'settings.json'), { hooks: { SessionStart: h('SessionStart'), UserPromptSubmit: h('UserPromptSubmit') } });
  },
  gemini(ws, script) {
    const h = (ev) => [{ hooks: [{ name: `env-probe-${ev}`, type: 'command', command: `${shq(script)} ${ev}`, timeout: 30_000, description: 'env probe' }] }];
    mergeJson(path.join(ws.project, '.gemini', 'settings.json'), { hooks: { SessionStart: h('SessionStart'), BeforeAgent: h('BeforeAgent') } });
  },
  copilot(ws, script) {
    const h = (ev) => [{ type: 'command', bash: `${shq(script)} ${ev}`, timeoutSec: 30 }];
    writeJson(path.join(ws.project, '.github', 'hooks', 'env-probe.json'), { version: 1, hooks: { sessionStart: h('sessionStart'), userPromptSubmitted: h('userPromptSubmitted') } });
  },
};

// ---------------------------------------------------------------------------------------------------

const timeoutMs = 1000 * Number(process.env.SOPHIA_E2E_TIMEOUT || 60);
const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const filters = args.filter((a) => !a.startsWith('--'));
const hostNames = (process.env.SOPHIA_E2E_HOSTS || Object.keys(HOSTS).join(',')).split(',').filter(Boolean);

function shq(s) {
  return `'${String(s).replace(/'/g, `'\\''`)}'`;
}
function write(dir, rel, text) {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), text);
}
function writeJson(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + '\n');
}
function mergeJson(file, value) {
  const doc = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
  writeJson(file, { ...doc, ...value });
}
/** Adds `env` to every handler of a hooks object (nested `{hooks: [handler]}` groups or Copilot's flat list). */
function setHandlerEnv(file, vars) {
  const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  for (const groups of Object.values(doc.hooks)) {
    for (const g of groups) for (const h of g.hooks || [g]) h.env = { ...vars };
  }
  writeJson(file, doc);
}

/** The host executable: from tests/e2e/run, else the pinned version an earlier run cached. */
function hostExe(host) {
  const fromRun = process.env[`SOPHIA_E2E_BIN_${host.name.toUpperCase()}`];
  if (fromRun) return { exe: fromRun, version: process.env[`SOPHIA_E2E_VERSION_${host.name.toUpperCase()}`] || host.version };
  const cache = process.env.SOPHIA_E2E_CACHE || path.join(os.homedir(), '.cache', 'sophia-hook-e2e');
  const exe = path.join(cache, `${host.pkg}@${host.version}`, 'node_modules', '.bin', host.bin);
  return fs.existsSync(exe) ? { exe, version: host.version } : { exe: null, version: host.version, why: `${exe} is missing: run tests/e2e/run --env-probe (it installs the hosts)` };
}

// A private network namespace with only loopback up, where the machine allows it (as tests/e2e/run).
if (process.env.SOPHIA_E2E_NETNS !== '0' && !process.env.SOPHIA_ENV_PROBE_IN_NETNS) {
  if (spawnSync('unshare', ['-n', 'ip', 'link', 'set', 'lo', 'up'], { stdio: 'ignore' }).status === 0) {
    const r = spawnSync('unshare', ['-n', 'sh', '-c', 'ip link set lo up && exec node "$@"', 'sh', process.argv[1], ...args], {
      stdio: 'inherit',
      env: { ...process.env, SOPHIA_ENV_PROBE_IN_NETNS: '1' },
    });
    process.exit(r.status ?? 1);
  }
  console.error('env-probe: network: shared (no private namespace here); every configured endpoint is 127.0.0.1');
}

const live = new Set();
let workRoot = null;
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    for (const pid of live) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {}
    }
    if (workRoot) killStragglers(workRoot);
    console.log(`env-probe: interrupted (${sig})`);
    process.exit(130);
  });
}

function runHost(exe, argv, { cwd, env, dir }) {
  const out = fs.openSync(path.join(dir, 'stdout.txt'), 'w');
  const err = fs.openSync(path.join(dir, 'stderr.txt'), 'w');
  return new Promise((resolve) => {
    const child = spawn(exe, argv, { cwd, env, stdio: ['ignore', out, err], detached: true });
    if (child.pid) live.add(child.pid);
    let timedOut = false;
    const kill = (sig) => {
      try {
        process.kill(-child.pid, sig);
      } catch {}
    };
    const t1 = setTimeout(() => ((timedOut = true), kill('SIGTERM')), timeoutMs);
    const t2 = setTimeout(() => kill('SIGKILL'), timeoutMs + 5000);
    const finish = (code, error) => {
      clearTimeout(t1);
      clearTimeout(t2);
      kill('SIGKILL');
      live.delete(child.pid);
      fs.closeSync(out);
      fs.closeSync(err);
      resolve({ code, timedOut, error, stderr: fs.readFileSync(path.join(dir, 'stderr.txt'), 'utf8') });
    };
    child.on('error', (e) => finish(-1, String(e)));
    child.on('exit', (code, signal) => finish(code ?? signal, null));
  });
}

function findFiles(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? findFiles(path.join(dir, d.name)) : [path.join(dir, d.name)]));
}

function listFiles(dir) {
  return fs.existsSync(dir) ? fs.readdirSync(dir).map((f) => path.join(dir, f)) : [];
}

/** Every env file the hook wrote, per event: [{file, env: {NAME: value}}], oldest first. */
function readCalls(dir) {
  const byEvent = {};
  if (!fs.existsSync(dir)) return byEvent;
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.env')).sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]))) {
    const ev = f.split('.')[0];
    const env = {};
    for (const line of fs.readFileSync(path.join(dir, f), 'utf8').split('\n')) {
      const i = line.indexOf('=');
      if (i > 0 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(line.slice(0, i))) env[line.slice(0, i)] = line.slice(i + 1);
    }
    (byEvent[ev] ||= []).push({ file: path.join(dir, f), env });
  }
  return byEvent;
}

/**
 * One host run with one mechanism planting `vars`: a fresh HOME and project, the mock, the driver's
 * own settings and trust (lib/hosts.mjs `prepare`, with the env-dump hook registered where `install`
 * would register sophia-hook), one `-p`/`exec` step. Returns what each event's hook saw.
 */
async function probeRun(root, host, exe, mech, label, vars) {
  const dir = path.join(root, `${host.name}-${mech.id}-${label}`);
  const ws = {
    root: dir,
    home: path.join(dir, 'home'),
    project: path.join(dir, 'project'),
    tmp: path.join(dir, 'tmp'),
    calls: path.join(dir, 'calls'),
    // `prepare` runs `<binary> install --host X --root <project>` and then `afterInstall`: /bin/true
    // stands in for sophia-hook, and afterInstall registers the env-dump script and plants the
    // mechanism, before the driver grants trust (Codex hashes the project's hooks.json as it then is).
    binary: '/bin/true',
    afterInstall: (w) => {
      (mech.register || REGISTER[host.name])(w, writeHookScript(w), mech);
      mech.plant(w, vars);
    },
  };
  for (const d of [ws.home, ws.project, ws.tmp]) fs.mkdirSync(d, { recursive: true });
  ws.baseEnv = {
    PATH: process.env.PATH,
    HOME: ws.home,
    USER: process.env.USER || 'e2e',
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    TMPDIR: ws.tmp,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    // A value the user's own environment might carry: does the project's value win over it?
    SOPHIA_TIME_BUDGET_MS: '100',
  };
  execFileSync('git', ['init', '-q', '-b', 'main', ws.project], { env: ws.baseEnv, timeout: 30_000 });
  fs.writeFileSync(path.join(ws.project, 'notes.txt'), 'env probe\n');
  const logFile = path.join(dir, 'requests.jsonl');
  const script = mech.control?.reply ? (req, turn) => (turn === 0 ? mech.control.reply : undefined) : undefined;
  const mock = await startMock({ api: host.api, logFile, script });
  try {
    ws.mockUrl = mock.url;
    await host.prepare(ws);
    if (mech.afterPrepare) mech.afterPrepare(ws);
    const step = { prompt: `env probe ${host.name} ${mech.id} ${label}`, dir };
    const run = await runHost(exe, host.argv(ws, step), { cwd: ws.project, env: { ...ws.baseEnv, ...host.env(ws) }, dir });
    const calls = readCalls(ws.calls);
    // The positive control: the mechanism did take effect somewhere (the agent's shell command, as
    // the host sent its output back; a file the host wrote).
    let control = null;
    if (mech.control) {
      const toolOutputs = readLog(logFile).flatMap((e) => host.toolResults(e.body)).map((r) => r.output);
      control = mech.control.check({ ws, toolOutputs, marker: Object.keys(vars)[0] });
    }
    // The host's own words about the planted names (Claude Code warns about keys it drops).
    const logs = [path.join(dir, 'stderr.txt'), path.join(dir, 'claude-debug.txt'), ...listFiles(path.join(dir, 'logs'))];
    const said = logs
      .filter((f) => fs.existsSync(f))
      .flatMap((f) => fs.readFileSync(f, 'utf8').split('\n').filter((l) => Object.keys(vars).some((k) => l.includes(k))).map((l) => `${path.basename(f)}: ${l.trim().slice(0, 300)}`));
    return { run, calls, control, dir, ws, said: [...new Set(said)].slice(0, 8) };
  } finally {
    await mock.close();
    killStragglers(dir);
  }
}

function plantedValues(host, mech, marker) {
  const tag = `${host.name}-${mech.id}`;
  return {
    vars: {
      [marker]: '1',
      SOPHIA_ANALYTICS_FILE: `/probe-${tag}/analytics.jsonl`,
      SOPHIA_CACHE_DIR: `/probe-${tag}/cache`,
      XDG_STATE_HOME: `/probe-${tag}/state`,
      SOPHIA_TIME_BUDGET_MS: `probe-${tag}`, // never a number: only a project can have put it there
    },
    // PATH: a folder of the project's in front of the real PATH (the host and the hook keep working).
    home: { [marker]: '1', HOME: `/probe-${tag}/home`, CODEX_HOME: `/probe-${tag}/codex-home`, PATH: `/probe-${tag}/bin:${process.env.PATH}` },
  };
}

/** Verdict over the host's two events: which saw `name` = `value` (null: the hook never ran). */
function seenAt(host, calls, name, value) {
  const out = {};
  for (const ev of Object.values(host.eventNames)) {
    const c = calls[ev];
    out[ev] = c ? { seen: c.some((x) => x.env[name] === value), got: c[0].env[name], file: c.find((x) => x.env[name] === value)?.file || c[0].file } : null;
  }
  return out;
}

function verdictOf(at) {
  const evs = Object.keys(at);
  const notRun = evs.filter((e) => at[e] === null);
  if (notRun.length) return `hook did not run (${notRun.join(', ')})`;
  const yes = evs.filter((e) => at[e].seen);
  if (yes.length === evs.length) return 'passes';
  if (!yes.length) return 'does not pass';
  return `passes at ${yes.join(', ')} only`;
}

async function probeMechanism(root, host, exe, mech) {
  const marker = `PROBE_${host.name}_${mech.id}`.toUpperCase().replace(/[^A-Z0-9]/g, '_');
  const planted = plantedValues(host, mech, marker);
  const a = await probeRun(root, host, exe, mech, 'vars', planted.vars);
  const b = await probeRun(root, host, exe, mech, 'home', planted.home);
  const markerA = seenAt(host, a.calls, marker, '1');
  const markerB = seenAt(host, b.calls, marker, '1');
  const seen = [];
  const evidence = [];
  const ev = (label, r, at, name, value) => {
    for (const [event, x] of Object.entries(at)) {
      if (!x) continue;
      const rel = path.relative(root, x.file);
      evidence.push(`${label} ${event} ${name}: ${x.seen ? `${name}=${value}` : `${name}=${x.got ?? '(unset)'}`} (${rel})`);
    }
  };
  ev('vars', a, markerA, marker, '1');
  for (const name of VARS) {
    const at = seenAt(host, a.calls, name, planted.vars[name]);
    if (Object.values(at).some((x) => x?.seen)) seen.push(name);
    ev('vars', a, at, name, planted.vars[name]);
  }
  ev('home', b, markerB, marker, '1');
  for (const name of HOME_VARS) {
    const at = seenAt(host, b.calls, name, planted.home[name]);
    if (Object.values(at).some((x) => x?.seen)) seen.push(name);
    ev('home', b, at, name, planted.home[name]);
  }
  const failures = [a, b].filter((r) => r.run.code !== 0 || r.run.timedOut).map((r) => `${path.basename(r.dir)}: exit ${r.run.code}${r.run.timedOut ? ' (timed out)' : ''}; stderr: ${r.run.stderr.trim().split('\n').slice(-3).join(' | ').slice(0, 400)}`);
  for (const [label, r] of [['vars', a], ['home', b]]) for (const l of r.said) evidence.push(`${label} host log ${l}`);
  return { marker, verdict: verdictOf(markerA), home: verdictOf(markerB), seen, evidence, failures, control: a.control };
}

function describe(o) {
  const home = o.home !== o.verdict ? `; with HOME/CODEX_HOME planted: ${o.home}` : '';
  return `${o.verdict}${home}; project value seen for: ${o.seen.length ? o.seen.join(' ') : '-'}`;
}

async function main() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sophia-env-probe-'));
  workRoot = root;
  console.log(`env-probe: work directory ${root}`);
  const started = Date.now();
  let passed = 0;
  let failed = 0;
  const results = [];
  for (const name of hostNames) {
    const host = HOSTS[name];
    if (!host) continue;
    const mechs = MECHANISMS.filter((m) => m.host === name && (!filters.length || filters.some((f) => `${name} ${m.id}`.includes(f))));
    if (!mechs.length) continue;
    const { exe, version, why } = hostExe(host);
    const latest = process.env.SOPHIA_E2E_VERSIONS === 'latest' ? "npm's latest; " : '';
    console.log(`env-probe: ${name} ${host.pkg}@${version} (${latest}${version === host.version ? 'the pin' : `pinned ${host.version}`})`);
    if (!exe) {
      console.log(`FAIL  ${name}: host executable\n       ${why}`);
      failed++;
      continue;
    }
    for (const mech of mechs) {
      const t = Date.now();
      let o;
      try {
        o = await probeMechanism(root, host, exe, mech);
      } catch (e) {
        o = { verdict: `probe error: ${e.message}`, home: '', seen: [], evidence: [], failures: [String(e.stack)] };
      }
      const want = EXPECTED[name]?.[mech.id];
      const wantHome = want?.home ?? want?.verdict;
      const wantControl = mech.control ? (want?.control ?? true) : undefined;
      const ok = !!want && o.verdict === want.verdict && o.home === wantHome && [...o.seen].sort().join() === [...want.seen].sort().join() && (o.control ?? undefined) === wantControl && !o.failures.length;
      ok ? passed++ : failed++;
      results.push({ host: name, version, mechanism: mech.id, about: mech.about, ...o, ok });
      const secs = ((Date.now() - t) / 1000).toFixed(1);
      const control = mech.control && o.control !== undefined ? `; control: ${mech.control.label} ${o.control ? 'has' : 'LACKS'} the marker` : '';
      console.log(`${(ok ? 'ok' : 'FAIL').padEnd(5)} ${name} ${mech.id}: ${describe(o)}${control} (${secs} s) — ${mech.about}`);
      if (!ok) {
        const exp = want ? `${describe({ verdict: want.verdict, home: wantHome, seen: want.seen })}${mech.control ? `; control ${wantControl ? 'has' : 'lacks'} the marker` : ''}` : 'nothing (no entry in EXPECTED)';
        console.log(`       expected: ${exp}`);
      }
      if (!ok || verbose) for (const l of [...o.failures.map((f) => `host run: ${f}`), ...o.evidence]) console.log(`       ${l}`);
    }
  }
  fs.writeFileSync(path.join(root, 'results.json'), JSON.stringify(results, null, 2) + '\n');
  console.log(`env-probe: ${((Date.now() - started) / 1000).toFixed(0)} s`);
  if (failed || process.env.SOPHIA_E2E_KEEP === '1') console.log(`env-probe: work directory kept: ${root} (results.json, each run's calls/*.env, stderr.txt)`);
  else fs.rmSync(root, { recursive: true, force: true });
  if (!results.length && !failed) {
    console.log('env-probe: no mechanism matched');
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

await main();
