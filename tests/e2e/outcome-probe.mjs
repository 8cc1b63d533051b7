// What do the hosts write into their own session transcript when the model loads a skill or spawns a
// subagent, and what does sophia-hook see of it at the next prompt? For every host, one session of
// several prompts against the mock model (lib/mock.mjs), with sophia-hook installed as a user installs
// it (`sophia-hook install --host X`, lib/hosts.mjs `prepare`) and two skills of the user's where the host
// reads them. The mock model is scripted, step by step (STEPS below), to load the hinted skill, load
// another one, load none, spawn the hinted subagent role, spawn another, spawn none; a last prompt lets
// the hook look back at the sixth.
//
// Beside sophia-hook, a capture hook (a small node script, registered first for the same events) saves,
// at every hook run, the payload and a byte copy of the file the host names as the transcript
// (`transcript_path`; Copilot CLI names none: `$COPILOT_HOME/session-state/<sessionId>/events.jsonl`).
// After every step the probe copies sophia-hook's analytics log and the host's session folders.
//
//   tests/e2e/run --outcome-probe              every host, pinned (the run script installs the hosts and
//                                              builds sophia-hook)
//   tests/e2e/run --outcome-probe --latest     each host at npm's latest
//   tests/e2e/run --outcome-probe claude       only these hosts
//   node tests/e2e/outcome-probe.mjs [hosts]   standalone: the hosts an earlier run cached and
//                                              target/release/sophia-hook (or SOPHIA_E2E_BINARY)
//
// Env: SOPHIA_E2E_HOSTS, SOPHIA_E2E_BIN_<HOST>, SOPHIA_E2E_VERSION_<HOST>, SOPHIA_E2E_BINARY,
//      SOPHIA_E2E_TIMEOUT (seconds per host run, default 120), SOPHIA_E2E_KEEP=1 (keep the work
//      directory even when every step ran), SOPHIA_E2E_NETNS=0.
//
// Work directory, per host (`<root>/<host>/`):
//   captures/<seq>-<event>.payload.json        what the host sent the hook, as received
//   captures/<seq>-<event>.transcript          the transcript file as it was when the hook ran
//   captures/<seq>-<event>.meta.json           {transcriptPath, exists, size, mtimeMs, sessionFiles: [...]}
//   steps/<n>/analytics.jsonl                  sophia-hook's analytics log after step n
//   steps/<n>/state/…                          the host's session folders after step n
//   steps/<n>/stdout.txt, stderr.txt           the host's output
//   requests.jsonl                             every model request (lib/mock.mjs)
//   summary.json                               per step: the prompt hook's transcript path, size, whether
//                                              it is the same file as before and grew by appending,
//                                              whether it already holds this prompt and the previous
//                                              step's tool calls; the step's analytics lines
//
// Output: one `info` line per host and step, one `ok`/`FAIL` line per host (every step ran, exit 0, the
// hook captured a transcript, and the `"event":"hint-outcome"` analytics lines of each step are exactly
// what `expect` of the step before says: `expectedLines`), then `N passed, N failed`.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { startMock, readLog } from './lib/mock.mjs';
import { HOSTS } from './lib/hosts.mjs';
import { contentText, readJsonLines } from './lib/text.mjs';
import { killStragglers } from './lib/proc.mjs';

// ---------------------------------------------------------------------------------------------------
// The session: one row per prompt. `act` is what the mock model does in the parent's turn, in order
// (`{skill: NAME}` loads a skill the host's way, `{agent: ROLE}` spawns a subagent role; the roles
// `recommended`/`other` resolve per host in ROLES). `expect` is the outcome of THIS step's hint as the
// hook should judge it at the NEXT prompt (followed: the model did what the hint named; other: it
// loaded/spawned something else; ignored: nothing), `null` where no later prompt looks back.

export const SKILLS = {
  'e2e-invoice-parser': '---\nname: e2e-invoice-parser\ndescription: Extract totals and line items from supplier invoices.\n---\n# Invoice parser\n\nRead each invoice, sum the line items.\n',
  'e2e-status-report': '---\nname: e2e-status-report\ndescription: Write the weekly status report from the git history of the repository.\n---\n# Status report\n\nSummarise the week\'s commits.\n',
};
const CHILD_MARKER = 'E2E-CHILD-BRIEF-4c1d';
const UNKNOWN_SKILL = 'e2e-no-such-skill';

export const STEPS = [
  { step: 1, prompt: 'estrai i totali dalle fatture di marzo', hint: { skill: 'e2e-invoice-parser' }, act: [{ skill: 'e2e-invoice-parser' }], expect: 'followed' },
  { step: 2, prompt: 'write the weekly status report from the git history', hint: { skill: 'e2e-status-report' }, act: [{ skill: 'e2e-invoice-parser' }], expect: 'other' },
  { step: 3, prompt: 'estrai i totali dalle fatture di aprile', hint: { skill: 'e2e-invoice-parser' }, act: [], expect: 'ignored' },
  { step: 4, prompt: '!agents analizza il ticket Mantis 123 e ricostruisci la causa', hint: { agent: 'recommended' }, act: [{ agent: 'recommended' }], expect: 'followed' },
  { step: 5, prompt: '!agents analizza il ticket Mantis 124 e ricostruisci la causa', hint: { agent: 'recommended' }, act: [{ agent: 'other' }], expect: 'other' },
  { step: 6, prompt: '!agents analizza il ticket Mantis 125 e ricostruisci la causa', hint: { agent: 'recommended' }, act: [], expect: 'ignored' },
  // Looks back at step 6; its own unknown-skill load shows whether a failed tool call is recorded.
  { step: 7, prompt: 'grazie, chiudi qui', act: [{ skill: UNKNOWN_SKILL }], expect: null },
];

// The role the hint names on each host after `install` (Gemini CLI: the built-in one until the user
// acknowledged the project's agents in the TUI), and another role.
export const ROLES = {
  codex: { recommended: 'technical_analyst', other: 'scout' },
  claude: { recommended: 'technical_analyst', other: 'scout' },
  gemini: { recommended: 'codebase_investigator', other: 'technical_analyst' },
  copilot: { recommended: 'technical_analyst', other: 'scout' },
};

// Where each host reads a user's skills in the project (docs/skills.md; the suite's installed-skill-*).
const SKILL_DIR = { codex: '.agents/skills', claude: '.claude/skills', gemini: '.agents/skills', copilot: '.agents/skills' };

// Extra command-line arguments per host. Gemini CLI's `-p` in the default approval mode does not offer
// `activate_skill` (observed in 0.61.0: the model request's tools are update_topic, list_directory,
// read_file, grep_search, glob, google_web_search, enter_plan_mode, invoke_agent, and a call to
// activate_skill fails with `Tool "activate_skill" not found`); with `--approval-mode yolo` it does.
const EXTRA_ARGS = { gemini: ['--approval-mode', 'yolo'] };

// The host's session folders under HOME, copied after every step.
const STATE_DIRS = { codex: ['.codex/sessions'], claude: ['.claude/projects'], gemini: ['.gemini/tmp'], copilot: ['.copilot/session-state'] };

// ---------------------------------------------------------------------------------------------------
// The model's tool calls, per host. `req` is the logged request (the tools it offers).

const toolsOf = (body) => (body?.tools || []).flatMap((t) => [t, ...(t.tools || []), ...(t.functionDeclarations || [])]);
const findTool = (body, names) => toolsOf(body).find((t) => names.includes(t.name || t.function?.name));

const CALLS = {
  codex: {
    skill: (name, ws) => ({ name: 'exec_command', args: { cmd: `sed -n 1,200p ${ws.project}/${SKILL_DIR.codex}/${name}/SKILL.md` } }),
    agent: (role, brief) => ({ name: 'spawn_agent', args: { agent_type: role, message: brief }, item: { namespace: 'multi_agent_v1' } }),
    read: () => ({ name: 'exec_command', args: { cmd: 'cat notes.txt' } }),
  },
  claude: {
    skill: (name) => ({ name: 'Skill', args: { skill: name } }),
    agent: (role, brief, req) => ({ name: (findTool(req.body, ['Agent', 'Task']) || {}).name || 'Agent', args: { subagent_type: role, description: `Probe ${role}`, prompt: brief } }),
    read: (ws) => ({ name: 'Read', args: { file_path: `${ws.project}/notes.txt` } }),
  },
  gemini: {
    // The activation tool's first required parameter (0.61.0: activate_skill {name}).
    skill: (name, ws, req) => {
      const t = findTool(req.body, ['activate_skill']);
      const params = t?.parameters || t?.parametersJsonSchema || {};
      const key = (params.required || Object.keys(params.properties || {}))[0] || 'name';
      return { name: 'activate_skill', args: { [key]: name } };
    },
    agent: (role, brief) => ({ name: 'invoke_agent', args: { agent_name: role, prompt: brief } }),
    read: (ws) => ({ name: 'read_file', args: { file_path: `${ws.project}/notes.txt` } }),
  },
  copilot: {
    skill: (name) => ({ name: 'skill', args: { skill: name } }),
    agent: (role, brief) => ({ name: 'task', args: { agent_type: role, description: `Probe ${role}`, prompt: brief, name: `e2e-${role.replace(/_/g, '-')}` } }),
    read: (ws) => ({ name: 'view', args: { path: `${ws.project}/notes.txt` } }),
  },
};

/** A minimal value that satisfies a JSON schema's required properties. */
function fillSchema(schema) {
  const type = String(schema?.type || 'object').toLowerCase();
  if (type === 'object') return Object.fromEntries((schema.required || []).map((k) => [k, fillSchema(schema.properties?.[k] || {})]));
  if (type === 'array') return [];
  if (type === 'boolean') return false;
  if (type === 'number' || type === 'integer') return 0;
  return 'child finished: notes read';
}

/** The user-typed texts of a request (not tool results), per API. */
function userTexts(body) {
  const out = [];
  for (const m of body?.input || []) if (m.role === 'user') out.push(contentText(m.content));
  for (const m of body?.messages || []) {
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') out.push(m.content);
    else for (const c of m.content || []) if (c?.type === 'text') out.push(c.text);
  }
  for (const c of body?.contents || []) if (c.role === 'user') for (const p of c.parts || []) if (typeof p.text === 'string') out.push(p.text);
  return out;
}

/**
 * The mock model's script for one host: a child agent (its user message carries CHILD_MARKER) reads
 * notes.txt once, then finishes (Gemini's `complete_task` when offered); the parent plays the current
 * step's `act` queue, one tool call per request, then answers with text. Codex: after a spawn_agent,
 * the parent waits for the child (wait_agent), as a model does.
 */
function makeScript(host, ws, state) {
  const calls = CALLS[host.name];
  return (req) => {
    const body = req.body;
    if (userTexts(body).some((t) => t.includes(CHILD_MARKER))) {
      const results = host.toolResults(body);
      if (!results.length) return { toolCall: calls.read(ws) };
      // Gemini CLI's built-in agents finish only through complete_task, with the report its schema asks for.
      const done = findTool(body, ['complete_task']);
      if (done) return { toolCall: { name: 'complete_task', args: fillSchema(done.parameters || done.parametersJsonSchema || {}) } };
      return { text: 'child finished: notes read' };
    }
    if (host.name === 'codex') {
      const input = body?.input || [];
      const last = input[input.length - 1];
      const id = last?.type === 'function_call_output' && /"agent_id"\s*:\s*"([^"]+)"/.exec(String(last.output));
      if (id && !state.waited) {
        state.waited = true;
        return { toolCall: { name: 'wait_agent', args: { targets: [id[1]] }, item: { namespace: 'multi_agent_v1' } } };
      }
    }
    const next = state.queue.shift();
    if (!next) return { text: `step ${state.step} done` };
    if (next.skill) return { toolCall: calls.skill(next.skill, ws, req) };
    const role = ROLES[host.name][next.agent] || next.agent;
    const brief = `${CHILD_MARKER} step ${state.step}: read notes.txt and report its first line.`;
    return { toolCall: calls.agent(role, brief, req) };
  };
}

// ---------------------------------------------------------------------------------------------------
// The capture hook: registered before sophia-hook for the session-start and prompt events, in the same
// hook file `install` wrote (Codex then trusts that file as it is).

function writeCaptureScript(ws) {
  const script = path.join(ws.root, 'capture-hook.mjs');
  const src = `#!/usr/bin/env node
// Saves the payload and a byte copy of the transcript as it is at this hook run; answers {}.
import fs from 'node:fs';
import path from 'node:path';
const out = ${JSON.stringify(ws.captures)};
const event = process.argv[2] || 'unknown';
const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const raw = Buffer.concat(chunks).toString('utf8');
let p = {};
try { p = JSON.parse(raw); } catch {}
fs.mkdirSync(out, { recursive: true });
const seq = String(fs.readdirSync(out).filter((f) => f.endsWith('.payload.json')).length + 1).padStart(3, '0');
const base = path.join(out, seq + '-' + event);
fs.writeFileSync(base + '.payload.json', raw);
const home = process.env.HOME || '';
let t = p.transcript_path || p.transcriptPath || null;
const sid = p.sessionId || p.session_id;
// Copilot CLI names no transcript: its session folder, keyed by the payload's sessionId.
const copilotHome = process.env.COPILOT_HOME || path.join(home, '.copilot');
if (!t && sid) t = path.join(copilotHome, 'session-state', sid, 'events.jsonl');
const meta = { event, transcriptPath: t, named: !!(p.transcript_path || p.transcriptPath), exists: false, at: Date.now() };
if (t && fs.existsSync(t)) {
  const st = fs.statSync(t);
  Object.assign(meta, { exists: true, size: st.size, mtimeMs: st.mtimeMs });
  fs.copyFileSync(t, base + '.transcript');
}
const list = (d) => { try { return fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => e.isDirectory() ? list(path.join(d, e.name)) : [path.join(d, e.name)]); } catch { return []; } };
meta.sessionFiles = ${JSON.stringify(STATE_DIRS[ws.hostName])}.flatMap((d) => list(path.join(home, d))).map((f) => ({ file: path.relative(home, f), size: fs.statSync(f).size }));
fs.writeFileSync(base + '.meta.json', JSON.stringify(meta, null, 2) + '\\n');
process.stdout.write('{}\\n');
`;
  fs.writeFileSync(script, src, { mode: 0o755 });
  return script;
}

function readJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}
function writeJson(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + '\n');
}
const shq = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;

const REGISTER = {
  codex(ws, script) {
    const file = path.join(ws.project, '.codex', 'hooks.json');
    const doc = readJson(file);
    for (const ev of ['SessionStart', 'UserPromptSubmit']) (doc.hooks[ev] ||= []).unshift({ hooks: [{ type: 'command', command: `${shq(script)} ${ev}`, timeout: 30 }] });
    writeJson(file, doc);
  },
  claude(ws, script) {
    const file = path.join(ws.project, '.claude', 'settings.json');
    const doc = readJson(file);
    for (const ev of ['SessionStart', 'UserPromptSubmit']) (doc.hooks[ev] ||= []).unshift({ hooks: [{ type: 'command', command: `${shq(script)} ${ev}`, timeout: 30 }] });
    writeJson(file, doc);
  },
  gemini(ws, script) {
    const file = path.join(ws.project, '.gemini', 'settings.json');
    const doc = readJson(file);
    for (const ev of ['SessionStart', 'BeforeAgent']) (doc.hooks[ev] ||= []).unshift({ hooks: [{ name: `outcome-capture-${ev}`, type: 'command', command: `${shq(script)} ${ev}`, timeout: 30_000 }] });
    writeJson(file, doc);
  },
  copilot(ws, script) {
    const h = (ev) => [{ type: 'command', bash: `${shq(script)} ${ev}`, timeoutSec: 30 }];
    writeJson(path.join(ws.project, '.github', 'hooks', 'outcome-capture.json'), { version: 1, hooks: { sessionStart: h('sessionStart'), userPromptSubmitted: h('userPromptSubmitted') } });
  },
};

// ---------------------------------------------------------------------------------------------------

const timeoutMs = 1000 * Number(process.env.SOPHIA_E2E_TIMEOUT || 120);
const args = process.argv.slice(2);
const filters = args.filter((a) => !a.startsWith('--'));
const hostNames = (process.env.SOPHIA_E2E_HOSTS || Object.keys(HOSTS).join(',')).split(',').filter((h) => h && (!filters.length || filters.includes(h)));
const here = path.dirname(new URL(import.meta.url).pathname);
const binary = process.env.SOPHIA_E2E_BINARY || path.resolve(here, '..', '..', 'target', 'release', 'sophia-hook');

function hostExe(host) {
  const fromRun = process.env[`SOPHIA_E2E_BIN_${host.name.toUpperCase()}`];
  if (fromRun) return { exe: fromRun, version: process.env[`SOPHIA_E2E_VERSION_${host.name.toUpperCase()}`] || host.version };
  const cache = process.env.SOPHIA_E2E_CACHE || path.join(os.homedir(), '.cache', 'sophia-hook-e2e');
  const exe = path.join(cache, `${host.pkg}@${host.version}`, 'node_modules', '.bin', host.bin);
  return fs.existsSync(exe) ? { exe, version: host.version } : { exe: null, version: host.version, why: `${exe} is missing: run tests/e2e/run --outcome-probe (it installs the hosts)` };
}

// A private network namespace with only loopback up, where the machine allows it (as tests/e2e/run).
if (process.env.SOPHIA_E2E_NETNS !== '0' && !process.env.SOPHIA_OUTCOME_PROBE_IN_NETNS && !process.env.SOPHIA_E2E_IN_NETNS) {
  if (spawnSync('unshare', ['-n', 'ip', 'link', 'set', 'lo', 'up'], { stdio: 'ignore' }).status === 0) {
    const r = spawnSync('unshare', ['-n', 'sh', '-c', 'ip link set lo up && exec node "$@"', 'sh', process.argv[1], ...args], {
      stdio: 'inherit',
      env: { ...process.env, SOPHIA_OUTCOME_PROBE_IN_NETNS: '1' },
    });
    process.exit(r.status ?? 1);
  }
  console.error('outcome-probe: network: shared (no private namespace here); every configured endpoint is 127.0.0.1');
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
    console.log(`outcome-probe: interrupted (${sig})`);
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
      resolve({ code, timedOut, error });
    };
    child.on('error', (e) => finish(-1, String(e)));
    child.on('exit', (code, signal) => finish(code ?? signal, null));
  });
}


/** The prompt-event captures, oldest first: [{seq, base, meta, payload}]. */
function captures(dir, event) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(`-${event}.meta.json`))
    .sort()
    .map((f) => {
      const base = path.join(dir, f.replace(/\.meta\.json$/, ''));
      let payload = {};
      try {
        payload = readJson(`${base}.payload.json`);
      } catch {}
      return { seq: f.split('-')[0], base, meta: readJson(path.join(dir, f)), payload };
    });
}

/** What one prompt-hook capture shows, against the one before it. */
function describeCapture(c, prev, step, prevStep, host) {
  const bytes = c.meta.exists ? fs.readFileSync(`${c.base}.transcript`) : Buffer.alloc(0);
  const text = bytes.toString('utf8');
  const out = { transcriptPath: c.meta.transcriptPath, named: c.meta.named, exists: c.meta.exists, size: c.meta.size ?? null };
  if (prev) {
    out.samePath = prev.meta.transcriptPath === c.meta.transcriptPath;
    const before = prev.meta.exists ? fs.readFileSync(`${prev.base}.transcript`) : Buffer.alloc(0);
    out.appended = before.length <= bytes.length && bytes.subarray(0, before.length).equals(before);
  }
  // The user's current prompt already in the file when the hook runs?
  out.holdsThisPrompt = text.includes(JSON.stringify(step.prompt).slice(1, -1));
  // The previous step's tool calls (skill name / role / the child's brief) already there?
  if (prevStep) {
    const wanted = prevStep.act.map((a) => a.skill || ROLES[host][a.agent] || a.agent);
    out.holdsPreviousCalls = Object.fromEntries(wanted.map((w) => [w, text.includes(w)]));
    if (prevStep.act.some((a) => a.agent)) out.holdsPreviousBrief = text.includes(`${CHILD_MARKER} step ${prevStep.step}`);
  }
  return out;
}

async function probeHost(root, host, exe) {
  const dir = path.join(root, host.name);
  const ws = {
    root: dir,
    hostName: host.name,
    home: path.join(dir, 'home'),
    project: path.join(dir, 'project'),
    tmp: path.join(dir, 'tmp'),
    captures: path.join(dir, 'captures'),
    binary,
  };
  for (const d of [ws.home, ws.project, ws.tmp]) fs.mkdirSync(d, { recursive: true });
  ws.afterInstall = (w) => REGISTER[host.name](w, writeCaptureScript(w));
  ws.baseEnv = {
    PATH: `${path.dirname(binary)}${path.delimiter}${process.env.PATH}`,
    HOME: ws.home,
    USER: process.env.USER || 'e2e',
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    TMPDIR: ws.tmp,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
  };
  // The embedded skills on, as the suite has them (the user's own config.yaml).
  fs.mkdirSync(path.join(ws.home, '.config', 'sophia-hook'), { recursive: true });
  fs.writeFileSync(path.join(ws.home, '.config', 'sophia-hook', 'config.yaml'), 'embedded_skills: on\n');
  execFileSync('git', ['init', '-q', '-b', 'main', ws.project], { env: ws.baseEnv, timeout: 30_000 });
  fs.writeFileSync(path.join(ws.project, 'AGENTS.md'), '# Project rules\n\nOutcome probe project.\n');
  fs.writeFileSync(path.join(ws.project, 'notes.txt'), 'first line of the notes\n');
  for (const [name, text] of Object.entries(SKILLS)) {
    fs.mkdirSync(path.join(ws.project, SKILL_DIR[host.name], name), { recursive: true });
    fs.writeFileSync(path.join(ws.project, SKILL_DIR[host.name], name, 'SKILL.md'), text);
  }
  const logFile = path.join(dir, 'requests.jsonl');
  const state = { step: 0, queue: [], waited: false };
  const mock = await startMock({ api: host.api, logFile, script: makeScript(host, ws, state) });
  const analytics = path.join(ws.home, '.mcp-servers', 'analytics', 'sophia-hook.jsonl');
  const steps = [];
  try {
    ws.mockUrl = mock.url;
    await host.prepare(ws);
    for (const [i, row] of STEPS.entries()) {
      Object.assign(state, { step: row.step, queue: [...row.act], waited: false });
      const stepDir = path.join(dir, 'steps', String(row.step));
      fs.mkdirSync(stepDir, { recursive: true });
      const seenAnalytics = readJsonLines(analytics).length;
      const seenRequests = readLog(logFile).length;
      const t = Date.now();
      const step = { prompt: row.prompt, resume: i > 0, dir: stepDir };
      const run = await runHost(exe, [...host.argv(ws, step), ...(EXTRA_ARGS[host.name] || [])], { cwd: ws.project, env: { ...ws.baseEnv, ...host.env(ws) }, dir: stepDir });
      killStragglers(ws.home);
      if (fs.existsSync(analytics)) fs.copyFileSync(analytics, path.join(stepDir, 'analytics.jsonl'));
      for (const d of STATE_DIRS[host.name]) {
        const src = path.join(ws.home, d);
        if (fs.existsSync(src)) fs.cpSync(src, path.join(stepDir, 'state', d), { recursive: true });
      }
      const requests = readLog(logFile).slice(seenRequests);
      const calls = requests
        .filter((r) => r.kind === 'turn')
        .length;
      steps.push({ step: row.step, code: run.code, timedOut: run.timedOut, secs: (Date.now() - t) / 1000, turnRequests: calls, analytics: readJsonLines(analytics).slice(seenAnalytics) });
    }
  } finally {
    await mock.close();
    killStragglers(dir);
  }
  // Match the prompt-hook captures to the steps: the capture whose payload's prompt carries the step's
  // prompt (Gemini CLI's -p may put SessionStart context before it). Every other prompt-hook run is an
  // extra: a child agent's own prompt (its brief carries CHILD_MARKER) or a host's own message (Claude
  // Code's <task-notification> when a background agent ends).
  const promptEvent = host.eventNames.UserPromptSubmit;
  const all = captures(ws.captures, promptEvent);
  const promptOf = (c) => String(c.payload.prompt ?? '');
  const used = new Set();
  let prev = null;
  STEPS.forEach((row, i) => {
    const c = all.find((x) => !used.has(x) && promptOf(x).includes(row.prompt) && !promptOf(x).includes(CHILD_MARKER));
    if (c) used.add(c);
    steps[i].hook = c ? { seq: c.seq, ...describeCapture(c, prev, row, STEPS[i - 1], host.name) } : null;
    if (c) prev = c;
  });
  const extras = all.filter((c) => !used.has(c));
  const summary = {
    host: host.name,
    steps,
    extraPromptHooks: extras.map((c) => ({ seq: c.seq, child: promptOf(c).includes(CHILD_MARKER), prompt: promptOf(c).slice(0, 120), transcriptPath: c.meta.transcriptPath, size: c.meta.size ?? null, payloadKeys: Object.keys(c.payload) })),
    sessionStart: captures(ws.captures, host.eventNames.SessionStart).map((c) => ({ seq: c.seq, transcriptPath: c.meta.transcriptPath, exists: c.meta.exists, size: c.meta.size ?? null, payloadKeys: Object.keys(c.payload) })),
    promptPayloadKeys: all[0] ? Object.keys(all[0].payload) : [],
  };
  writeJson(path.join(dir, 'summary.json'), summary);
  return summary;
}

const outcomeOf = (lines) => lines.filter((l) => l.event === 'hint-outcome');

// What the hook must record at step n+1 about step n's hint (`expect`), as `hint|outcome` with the
// ids of this host: skills of the project are hashed (`project:<12 hex>`, any hash), roles are ids.
function expectedLines(name, row) {
  const roles = ROLES[name];
  if (row.hint?.skill) {
    return {
      followed: ['skill|followed'],
      other: ['skill|other:project:*', 'skill|unnamed:project:*'],
      ignored: ['skill|ignored'],
    }[row.expect];
  }
  if (row.hint?.agent) {
    return {
      followed: [`delegation|spawned:${roles.recommended}`],
      other: [`delegation|spawned:${roles.other}`],
      ignored: ['delegation|not-spawned'],
    }[row.expect];
  }
  return [];
}

/**
 * What is wrong with the hint-outcome lines of a session of STEPS on host `name`, given each step's
 * new analytics lines: each step's lines must be exactly what the previous step's `expect` says,
 * and hold ids and codes only. Empty when right (tests/e2e/outcome-probe-check.mjs plants faults).
 */
export function outcomeProblems(name, stepLines) {
  const problems = [];
  stepLines.forEach((lines, i) => {
    const prev = STEPS[i - 1];
    const want = prev ? expectedLines(name, prev) : [];
    const got = outcomeOf(lines).map(shape);
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      problems.push(`step ${i + 1}: hint-outcome lines ${JSON.stringify(got)}, expected ${JSON.stringify(want)} (step ${i}: ${prev?.expect})`);
    }
    for (const l of outcomeOf(lines)) {
      // Ids and codes only: never the prompt, the brief or a skill's name as the project wrote it.
      const text = JSON.stringify(l);
      if (/fatture|Mantis|E2E-CHILD|invoice|status-report/.test(text)) problems.push(`step ${i + 1}: text in ${text}`);
    }
  });
  if (stepLines.length !== STEPS.length) problems.push(`${stepLines.length} steps ran of ${STEPS.length}`);
  return problems;
}

const shape = (l) => `${l.hint ?? '-'}|${String(l.outcome).replace(/:[0-9a-f]{12}$/, ':*')}`;

async function main() {
  if (!fs.existsSync(binary)) {
    console.log(`FAIL  sophia-hook binary: ${binary} is missing (cargo build --release, or SOPHIA_E2E_BINARY)`);
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sophia-outcome-probe-'));
  workRoot = root;
  console.log(`outcome-probe: work directory ${root}`);
  const started = Date.now();
  let passed = 0;
  let failed = 0;
  for (const name of hostNames) {
    const host = HOSTS[name];
    if (!host) continue;
    const { exe, version, why } = hostExe(host);
    console.log(`outcome-probe: ${name} ${host.pkg}@${version} (${version === host.version ? 'the pin' : `pinned ${host.version}`})`);
    if (!exe) {
      console.log(`FAIL  ${name}: host executable\n       ${why}`);
      failed++;
      continue;
    }
    let s;
    try {
      s = await probeHost(root, host, exe);
    } catch (e) {
      console.log(`FAIL  ${name}: probe error ${e.stack}`);
      failed++;
      continue;
    }
    for (const [i, st] of s.steps.entries()) {
      const row = STEPS[i];
      const h = st.hook;
      const where = h ? `${h.named ? 'transcript_path' : 'session folder'} ${h.exists ? `${h.size} B` : 'missing'}${h.samePath === false ? ' (another file)' : ''}${h.appended === false ? ' (rewritten)' : ''}; holds this prompt: ${h.holdsThisPrompt}${h.holdsPreviousCalls ? `; holds step ${row.step - 1}'s calls: ${JSON.stringify(h.holdsPreviousCalls)}` : ''}` : 'no prompt hook capture';
      const verdicts = outcomeOf(st.analytics).map((l) => l.outcome ?? l.verdict ?? JSON.stringify(l));
      const expectPrev = STEPS[i - 1]?.expect;
      console.log(`info  ${name} step ${row.step}: exit ${st.code}${st.timedOut ? ' (timed out)' : ''}, ${st.turnRequests} model request(s), ${st.secs.toFixed(1)} s; hook: ${where}; hint-outcome lines: ${verdicts.length ? verdicts.join(', ') : '-'}${expectPrev ? ` (step ${row.step - 1} expects ${expectPrev})` : ''}`);
    }
    const problems = [];
    problems.push(...outcomeProblems(name, s.steps.map((st) => st.analytics)));
    s.steps.forEach((st, i) => {
      if (st.code !== 0 || st.timedOut) problems.push(`step ${i + 1}: exit ${st.code}${st.timedOut ? ' (timed out)' : ''}`);
      if (!st.hook) problems.push(`step ${i + 1}: the prompt hook did not run`);
      else if (!st.hook.exists && i > 0) problems.push(`step ${i + 1}: no transcript at the prompt hook`);
    });
    if (problems.length) {
      failed++;
      console.log(`FAIL  ${name}: ${problems.join('; ')}`);
    } else {
      passed++;
      console.log(`ok    ${name}: ${s.steps.length} steps ran, the prompt hook ran each time and saw a transcript from step 2 on, and recorded each step's outcome exactly; ${s.extraPromptHooks.length} extra prompt-hook run(s)`);
    }
  }
  // Copilot CLI's unpacked package (lib/hosts.mjs puts it beside the host folders): not worth keeping.
  fs.rmSync(path.join(root, 'copilot-pkg-cache'), { recursive: true, force: true });
  console.log(`outcome-probe: ${((Date.now() - started) / 1000).toFixed(0)} s`);
  if (failed || process.env.SOPHIA_E2E_KEEP === '1') console.log(`outcome-probe: work directory kept: ${root} (<host>/summary.json, captures/, steps/)`);
  else fs.rmSync(root, { recursive: true, force: true });
  if (passed + failed === 0) {
    // A probe that ran no host proves nothing.
    console.log('FAIL  no host ran (SOPHIA_E2E_HOSTS, or the filters, named none)');
    failed++;
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

// Run as a script (not when outcome-probe-check.mjs imports the judging above).
if (process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname) await main();
