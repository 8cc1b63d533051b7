// The end-to-end suite proper: for each host and scenario, a temporary HOME and project, a mock model on
// 127.0.0.1, `sophia-hook install`, the host's trust, one bounded non-interactive host run per step, and
// checks over the model requests the host sent. Run it through `tests/e2e/run`, which installs the
// pinned hosts and builds the binary first, and passes:
//
//   SOPHIA_E2E_BINARY    the sophia-hook binary to register
//   SOPHIA_E2E_PATH_DIR  the folder first on PATH when the hosts run (default: SOPHIA_E2E_BINARY's
//                        folder, which `install` runs with either way)
//   SOPHIA_E2E_BIN_<H>   the host executable for host H (CODEX, CLAUDE, GEMINI, COPILOT)
//   SOPHIA_E2E_VERSION_<H>, SOPHIA_E2E_VERSIONS   its version and whether that is the pin or npm's
//                        latest (`--latest`), for the report (default: the pin in lib/hosts.mjs)
//   SOPHIA_E2E_HOSTS     comma-separated hosts to run (default: all)
//   SOPHIA_E2E_TIMEOUT   seconds one host run may take (default 120)
//   SOPHIA_E2E_KEEP=1    keep the work directory even when everything passed
//   SOPHIA_E2E_KNOWN_FAILURES   a ledger of checks known to fail (see known-failures.txt); without it
//                        every failure counts
//
// Arguments: scenario name filters (a scenario runs when its name contains one of them).
//
// Check context (the `ctx` a scenario's `checks` receives, one per step):
//   host, scenario, step, stepIndex, ws, run {stdout, stderr, dir, code}
//   requests   every request the mock logged during this step; turns: the conversation ones
//   main       the body of the step's last conversation request that carries the step's prompt
//              (the parent's, never a child agent's); the last request when none carries it
//   blocks     host.hookBlocks(main): [{where: 'session'|'prompt', text}]
//   diag       host.diagnose(): {ran, errors}
//   count(s)   occurrences of s over every string of `main`
//   once(name, s), check(name, ok, detail)   build a check result

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, execFileSync } from 'node:child_process';
import { startMock, readLog } from './lib/mock.mjs';
import { HOSTS } from './lib/hosts.mjs';
import { countIn, readJsonLines } from './lib/text.mjs';
import { killStragglers } from './lib/proc.mjs';
import { SCENARIOS, DEFAULT_FILES, AGENTS_MARKER } from './scenarios.mjs';
import { typeIntoTui, killTmuxServer, RESUME_ARGS } from './lib/tui.mjs';

const BOOTSTRAP = 'Sophia routing bootstrap';
const ROUTING_MARKERS = ['Sophia routing control:', 'Sophia skill routing:', 'Sophia agent routing:'];
// Hotwords with `!` or the default second prefix `+` (src/config.rs DEFAULT_HOTWORD_PREFIX).
const HOTWORD = /^(\s*[!+](quick|agents)\b)+\s*/i;

const here = path.dirname(new URL(import.meta.url).pathname);
const binary = process.env.SOPHIA_E2E_BINARY;
const timeoutMs = 1000 * Number(process.env.SOPHIA_E2E_TIMEOUT || 120);
const hostNames = (process.env.SOPHIA_E2E_HOSTS || Object.keys(HOSTS).join(',')).split(',').filter(Boolean);
const filters = process.argv.slice(2);
const ledger = readLedger(process.env.SOPHIA_E2E_KNOWN_FAILURES);

/**
 * Known failures: `<host> <scenario>#<step>: <check name> | <reason>` a line, `*` matching anything,
 * `#` at the start of a line for comments. Strict: a listed check that passes is itself a failure, so
 * the entry goes when the bug is fixed.
 */
function readLedger(file) {
  if (!file) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [pattern, ...reason] = l.split('|');
      const glob = pattern.trim();
      const escaped = glob.replace(/[.+?^$|{}()[\]\\]/g, '\\$&').replace(/\*/g, '.*');
      const re = new RegExp(`^${escaped}$`);
      return { glob, re, reason: reason.join('|').trim() };
    });
}

const results = [];
const live = new Set(); // process groups of running host processes
let workRoot = null;

// Interrupted: stop every host process group still running and whatever the hosts left behind, then
// leave (the mock servers go with this process).
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    for (const pid of live) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {}
    }
    killTmuxServer();
    if (workRoot) killStragglers(workRoot);
    console.log(`e2e: interrupted (${sig})`);
    process.exit(130);
  });
}

function record(prefix, r) {
  const id = `${prefix}: ${r.name}`;
  const known = ledger.find((k) => k.re.test(id));
  let status = r.ok ? 'ok' : 'FAIL';
  if (known) {
    if (r.ok) {
      status = 'FAIL';
      r = { ...r, ok: false, detail: `passes now, but known-failures lists it (${known.glob}): remove that entry` };
    } else {
      status = 'known';
      r = { ...r, known: known.reason || known.glob };
    }
  }
  results.push({ ...r, prefix, status });
  const note = status === 'known' ? ` (known failure: ${r.known})` : '';
  const detail = r.ok || !r.detail ? '' : `\n       ${String(r.detail).replace(/\n/g, '\n       ')}`;
  console.log(`${status.padEnd(5)} ${id}${note}${detail}`);
}

function check(name, ok, detail) {
  return { name, ok: !!ok, detail };
}

function excerpt(s, n = 300) {
  s = String(s);
  return s.length > n ? s.slice(0, n) + '…' : s;
}

/** Run one host process, bounded: SIGTERM to its process group at the deadline, SIGKILL 5 s later. */
function runHost(exe, args, { cwd, env, dir }) {
  const out = fs.openSync(path.join(dir, 'stdout.txt'), 'w');
  const err = fs.openSync(path.join(dir, 'stderr.txt'), 'w');
  return new Promise((resolve) => {
    const child = spawn(exe, args, { cwd, env, stdio: ['ignore', out, err], detached: true });
    if (child.pid) live.add(child.pid);
    let timedOut = false;
    const kill = (sig) => {
      try {
        process.kill(-child.pid, sig);
      } catch {}
    };
    const t1 = setTimeout(() => {
      timedOut = true;
      kill('SIGTERM');
    }, timeoutMs);
    const t2 = setTimeout(() => kill('SIGKILL'), timeoutMs + 5000);
    const finish = (code, error) => {
      clearTimeout(t1);
      clearTimeout(t2);
      kill('SIGKILL'); // whatever the host left behind in its group
      live.delete(child.pid);
      fs.closeSync(out);
      fs.closeSync(err);
      resolve({
        code,
        timedOut,
        error,
        stdout: fs.readFileSync(path.join(dir, 'stdout.txt'), 'utf8'),
        stderr: fs.readFileSync(path.join(dir, 'stderr.txt'), 'utf8'),
      });
    };
    child.on('error', (e) => finish(-1, String(e)));
    child.on('exit', (code, signal) => finish(code ?? signal, null));
  });
}

let tmuxChecked = null;
function haveTmux() {
  if (tmuxChecked === null) {
    try {
      execFileSync('tmux', ['-V'], { stdio: 'ignore' });
      tmuxChecked = true;
    } catch {
      tmuxChecked = false;
    }
  }
  return tmuxChecked;
}

/**
 * One step of a `tui` scenario: a fresh interactive TUI under tmux (`RESUME_ARGS` when the step
 * resumes), the prompt typed as the very first characters of the empty composer, Enter. Resolves like
 * runHost ({code, stdout, stderr, error}); `code` is 0 when the model received the text as typed.
 */
async function runTui(host, exe, ws, step, logFile, stepIndex) {
  const args = [...(step.resume ? RESUME_ARGS[host.name] : []), ...(host.tuiArgs ? host.tuiArgs(ws, step) : [])];
  const words = step.prompt.replace(HOTWORD, '').trim();
  const r = await typeIntoTui({
    host: host.name,
    exe,
    args,
    env: { ...ws.baseEnv, ...host.env(ws), TERM: 'xterm-256color' },
    cwd: ws.project,
    session: `sophia-e2e-${process.pid}-${host.name}-${path.basename(ws.root)}-${stepIndex}`,
    text: step.prompt,
    probe: words,
    logFile,
  });
  fs.writeFileSync(path.join(step.dir, 'screen.txt'), `typed:\n${r.typed || ''}\n\nafter Enter:\n${r.after || ''}\n`);
  const ok = r.result.startsWith('types-through');
  return { code: ok ? 0 : r.result, timedOut: false, error: ok ? null : `TUI: ${r.result} (screens in ${step.dir}/screen.txt)`, stdout: '', stderr: '' };
}

function baseEnv(ws) {
  // Built from nothing, so no key, proxy or host setting of the machine leaks into the hosts.
  return {
    // The binary's folder first, as on a machine where sophia-hook is installed: a project-scope
    // install names the bare `sophia-hook`, which `install` and the hosts find on PATH.
    PATH: `${path.dirname(ws.binary)}${path.delimiter}${process.env.PATH}`,
    HOME: ws.home,
    USER: process.env.USER || 'e2e',
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    TMPDIR: ws.tmp,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
  };
}

function makeWorkspace(root, host, scenario, attempt = 0) {
  const dir = path.join(root, `${host.name}-${scenario.name}${attempt ? `-rerun${attempt}` : ''}`);
  const ws = { root: dir, home: path.join(dir, 'home'), project: path.join(dir, 'project'), tmp: path.join(dir, 'tmp'), binary, installArgs: scenario.installArgs || [], afterInstall: scenario.afterInstall, plugin: scenario.plugin || false };
  for (const d of [ws.home, ws.project, ws.tmp]) fs.mkdirSync(d, { recursive: true });
  // These homes have no Sophia MCP server, so by default the embedded skills would stay unnamed
  // (docs/skills.md, "Grounded embedded skills"); the suite checks the hosts' protocol with them
  // on, as `eval` measures them, through the user's own config.yaml (which every host's hook
  // reads from HOME, whatever environment the host passes on).
  // A scenario with `embeddedSkills: 'auto'` keeps the machine default.
  if (scenario.embeddedSkills !== 'auto') {
    fs.mkdirSync(path.join(ws.home, '.config', 'sophia-hook'), { recursive: true });
    fs.writeFileSync(path.join(ws.home, '.config', 'sophia-hook', 'config.yaml'), 'embedded_skills: on\n');
  }
  ws.baseEnv = baseEnv(ws);
  execFileSync('git', ['init', '-q', '-b', 'main', ws.project], { env: ws.baseEnv, timeout: 30_000 });
  for (const [rel, content] of Object.entries(scenario.files || DEFAULT_FILES)) {
    fs.mkdirSync(path.dirname(path.join(ws.project, rel)), { recursive: true });
    fs.writeFileSync(path.join(ws.project, rel), content);
  }
  return ws;
}

/** The checks every step of every scenario gets. */
function standardChecks(ctx) {
  const { host, blocks, diag, step, stepIndex, scenario } = ctx;
  const out = [];
  const prompts = stepIndex + 1; // prompts in the conversation so far

  // The host ran the hooks (SessionStart on the first step only, and again on a resumed step where the
  // host fires it there: Copilot CLI's --continue) and logged no hook error.
  if (diag.ran) {
    const session = stepIndex === 0 || (step.resume && host.sessionStartOnResume);
    const events = session ? ['SessionStart', 'UserPromptSubmit'] : ['UserPromptSubmit'];
    for (const ev of events) {
      const n = diag.ran[ev];
      out.push(check(`host ran the ${host.eventNames[ev]} hook successfully`, n >= 1, `${n} successful runs logged`));
    }
  }
  out.push(check('host logged no hook error', diag.errors.length === 0, diag.errors.slice(0, 5).join('\n')));

  // SessionStart bootstrap: exactly once in the conversation, inside hook context.
  const bootstrapCount = ctx.count(BOOTSTRAP);
  out.push(check('SessionStart bootstrap arrives exactly once', bootstrapCount === 1, `found ${bootstrapCount} times`));
  // Gemini CLI gets it with the first prompt (src/stages/payload.rs session_context_on_prompt): in that
  // prompt's context on the first step, in an earlier turn's afterwards.
  out.push(
    check(
      'SessionStart bootstrap is in session hook context',
      blocks.some((b) => (b.where === 'session' || host.sessionContextOnPrompt) && b.text.includes(BOOTSTRAP)),
      `session blocks: ${blocks.filter((b) => b.where === 'session').length}, prompt blocks: ${blocks.filter((b) => b.where === 'prompt').length}`,
    ),
  );

  // AGENTS.md: exactly once, whoever loads it (the host itself or the hook where the host does not).
  const files = scenario.files || DEFAULT_FILES;
  if ((files['AGENTS.md'] || '').includes(AGENTS_MARKER)) {
    out.push(ctx.once('AGENTS.md arrives exactly once', AGENTS_MARKER));
  }

  // No routing block twice: at most one per prompt of the conversation, at most one in this prompt's
  // context. `Sophia agent routing:` is a line per recommended role, and the policy recommends at most
  // two (src/stages/agents/policy.rs): at most two per prompt, and never the same agent twice.
  for (const m of ROUTING_MARKERS) {
    const per = m === 'Sophia agent routing:' ? 2 : 1;
    const total = ctx.count(m);
    const here = blocks.filter((b) => b.where === 'prompt').reduce((n, b) => n + b.text.split(m).length - 1, 0);
    out.push(check(`no "${m}" block twice`, total <= per * prompts && here <= per, `${total} in the request for ${prompts} prompt(s), ${here} in this prompt's context (at most ${per} a prompt)`));
  }
  const agentLines = blocks
    .filter((b) => b.where === 'prompt')
    .flatMap((b) => b.text.split('\n'))
    .filter((l) => l.startsWith('Sophia agent routing: agent='))
    .map((l) => l.split(' ')[3]);
  out.push(check('no agent recommended twice in one prompt', new Set(agentLines).size === agentLines.length, agentLines.join(', ')));

  // A resumed conversation keeps every earlier turn: each earlier prompt's words arrive, once.
  for (const [i, earlier] of scenario.steps.slice(0, stepIndex).entries()) {
    const w = earlier.prompt.replace(HOTWORD, '').trim();
    const n = ctx.count(w);
    out.push(check(`earlier turn ${i + 1} kept in the conversation`, n === 1, `"${w}" found ${n} times`));
  }

  // The prompt's own words never inside hook context, and present once in the request (the user's turn).
  const words = step.prompt.replace(HOTWORD, '').trim();
  const inBlocks = blocks.filter((b) => b.text.includes(words)).length;
  const total = ctx.count(words);
  out.push(check("prompt text never inside a hook block", inBlocks === 0, `${inBlocks} hook block(s) contain "${words}"`));
  out.push(check('prompt text arrives once (in the user turn)', total === 1, `found ${total} times`));

  // Routing expectations for this prompt.
  const expect = Array.isArray(scenario.expect) ? scenario.expect[stepIndex] : scenario.expect;
  const promptText = blocks.filter((b) => b.where === 'prompt').map((b) => b.text).join('\n---\n');
  for (const want of expect?.prompt || []) {
    const n = promptText.split(want).length - 1;
    out.push(check(`"${want}" arrives in the prompt's hook context`, n === 1, n ? `found ${n} times` : `prompt hook context: ${excerpt(promptText || '(none)')}`));
  }
  for (const bad of expect?.absent || []) {
    const n = ctx.count(bad);
    out.push(check(`"${bad}" appears nowhere`, n === 0, `found ${n} times`));
  }
  return out;
}

/**
 * The hook's own runs in a workspace that its deadline or time budget answered (analytics
 * `degraded`): on a loaded machine a run can outlast the 150 ms budget and give the routing line
 * alone, which is the product working as designed (docs/architecture.md, `edge::deadline`), not a
 * protocol fault. Counted from the analytics log the hook writes under the workspace's HOME.
 */
function degradedRuns(ws) {
  return readJsonLines(path.join(ws.home, '.mcp-servers', 'analytics', 'sophia-hook.jsonl'))
    .filter((e) => e.degraded)
    .map((e) => `${e.event || 'hook'}: ${e.degraded} (${e.durationUs} us)`);
}

/**
 * One scenario, run once; its checks are returned (recorded by the caller) with the hook runs its
 * deadline answered.
 */
async function runScenario(root, host, scenario, attempt = 0) {
  const out = [];
  const record = (prefix, r) => out.push([prefix, r]);
  const prefix = `${host.name} ${scenario.name}`;
  const exe = process.env[`SOPHIA_E2E_BIN_${host.name.toUpperCase()}`];
  const ws = makeWorkspace(root, host, scenario, attempt);
  try {
    await runScenarioIn(ws, record, prefix, exe, host, scenario);
  } finally {
    out.degraded = degradedRuns(ws);
  }
  return out;
}

async function runScenarioIn(ws, record, prefix, exe, host, scenario) {
  const logFile = path.join(ws.root, 'requests.jsonl');
  const script = scenario.script && ((request, turn) => scenario.script(request, turn, host.name, ws));
  const mock = await startMock({ api: host.api, logFile, script });
  try {
    ws.mockUrl = mock.url;
    try {
      await host.prepare(ws);
      if (scenario.mcp) {
        const { name, marker, scope } = scenario.mcp;
        host.configureMcp(ws, name, process.execPath, [path.join(here, 'lib', 'mcp-stub.mjs'), path.join(ws.root, marker)], scope || 'user');
      }
    } catch (e) {
      record(prefix, check('install and trust', false, excerpt(`${e.message}\n${e.stderr || ''}`, 1000)));
      return;
    }
    for (const [stepIndex, step0] of scenario.steps.entries()) {
      const dir = path.join(ws.root, `step-${stepIndex}`);
      fs.mkdirSync(dir, { recursive: true });
      const step = { ...step0, dir };
      const before = readLog(logFile).length;
      const env = { ...ws.baseEnv, ...host.env(ws) };
      // SOPHIA_E2E_PATH_DIR: the host runs with another folder first on PATH, a teammate's install
      // (scripts/dist-check.sh: one way in installed and committed the entry, the host runs the
      // other's `sophia-hook`).
      if (process.env.SOPHIA_E2E_PATH_DIR) env.PATH = `${process.env.SOPHIA_E2E_PATH_DIR}${path.delimiter}${process.env.PATH}`;
      if (scenario.tui && !haveTmux()) {
        record(`${prefix}#${stepIndex + 1}`, check('tmux is installed (the TUI scenarios drive the hosts under tmux)', false, 'apt-get install tmux'));
        break;
      }
      const run = scenario.tui
        ? await runTui(host, exe, ws, step, logFile, stepIndex)
        : await runHost(exe, host.argv(ws, step), { cwd: ws.project, env, dir });
      run.dir = dir;
      run.index = stepIndex;
      const p = `${prefix}#${stepIndex + 1}`;
      const requests = readLog(logFile).slice(before);
      const mockErrors = requests.filter((r) => r.mockError);
      const turns = requests.filter((r) => r.kind === 'turn');
      const ranOk = run.code === 0 && !run.timedOut;
      record(
        p,
        check(
          'host ran and exited 0',
          ranOk && turns.length > 0 && mockErrors.length === 0,
          `exit ${run.code}${run.timedOut ? ` (timed out after ${timeoutMs / 1000} s)` : ''}${run.error ? ` ${run.error}` : ''}, ${turns.length} model request(s); stderr: ${excerpt(run.stderr.trim().split('\n').slice(-5).join('\n'), 800)}${mockErrors.length ? `\nmock: ${excerpt(mockErrors[0].mockError)}` : ''}`,
        ),
      );
      if (!turns.length) break;
      // The checked request is the parent's last one: the last that carries this step's prompt. A
      // child agent's requests (spawned in this step) never carry it, and may arrive after the
      // parent's final request, so "the last request" alone would sometimes check the child.
      const words = step.prompt.replace(HOTWORD, '').trim();
      const parents = turns.filter((t) => countIn(t.body, words) > 0);
      const main = (parents.length ? parents : turns).at(-1).body;
      const ctx = {
        host,
        scenario,
        step,
        stepIndex,
        ws,
        run,
        requests,
        turns,
        main,
        blocks: host.hookBlocks(main),
        // A TUI writes its logs to the terminal: only hosts with a log file (Claude's --debug-file) say more.
        diag: scenario.tui && !host.tuiArgs ? { ran: null, errors: [] } : host.diagnose(ws, run),
        count: (s) => countIn(main, s),
        check,
      };
      ctx.once = (name, s) => {
        const n = ctx.count(s);
        return check(name, n === 1, `found ${n} times`);
      };
      const checks = [...standardChecks(ctx), ...((scenario.checks && scenario.checks(ctx)) || [])];
      for (const c of checks) record(p, c);
      if (!ranOk) break;
    }
  } finally {
    await mock.close();
    const left = killStragglers(ws.root);
    if (left) console.log(`     ${prefix}: stopped ${left} process(es) the host left running`);
  }
}

async function main() {
  if (!binary || !fs.existsSync(binary)) {
    console.error(`e2e: SOPHIA_E2E_BINARY is not set or missing (${binary}); run tests/e2e/run`);
    process.exit(2);
  }
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sophia-e2e-'));
  workRoot = root;
  console.log(`e2e: work directory ${root}`);
  const channel = process.env.SOPHIA_E2E_VERSIONS || 'pinned';
  for (const name of hostNames) {
    const host = HOSTS[name];
    if (!host) continue;
    const version = process.env[`SOPHIA_E2E_VERSION_${name.toUpperCase()}`] || host.version;
    const pin = version === host.version ? 'the pin' : `pinned ${host.version}`;
    console.log(`e2e: ${name} ${host.pkg}@${version} (${channel === 'latest' ? `latest; ${pin}` : 'pinned'})`);
  }
  const started = Date.now();
  for (const name of hostNames) {
    const host = HOSTS[name];
    if (!host) {
      record(name, check('known host', false, `no driver for host "${name}" (have: ${Object.keys(HOSTS).join(', ')})`));
      continue;
    }
    for (const scenario of SCENARIOS) {
      if (scenario.hosts && !scenario.hosts.includes(name)) continue;
      if (filters.length && !filters.some((f) => scenario.name.includes(f))) continue;
      const t = Date.now();
      try {
        let out = await runScenario(root, host, scenario);
        // A failed check in a scenario where the hook's deadline answered a run is load, not
        // protocol: the scenario runs once more in a fresh workspace and that run counts (said
        // here, with the degraded runs). A failure with no degraded run counts at once.
        if (out.some(([, r]) => !r.ok) && out.degraded.length) {
          console.log(`     ${name} ${scenario.name}: a check failed where the hook's deadline answered (${out.degraded.join('; ')}); run once more`);
          out = await runScenario(root, host, scenario, 1);
        }
        for (const [prefix, r] of out) record(prefix, r);
      } catch (e) {
        record(`${name} ${scenario.name}`, check('scenario ran', false, e.stack));
      }
      console.log(`     ${name} ${scenario.name}: ${((Date.now() - t) / 1000).toFixed(1)} s`);
    }
  }
  const passed = results.filter((r) => r.status === 'ok').length;
  const known = results.filter((r) => r.status === 'known');
  const failed = results.filter((r) => r.status === 'FAIL').length;
  console.log(`e2e: ${((Date.now() - started) / 1000).toFixed(0)} s`);
  if (known.length) {
    console.log(`known failures (${known.length}, listed in ${process.env.SOPHIA_E2E_KNOWN_FAILURES}):`);
    for (const r of known) console.log(`  ${r.prefix}: ${r.name} — ${r.known}`);
  }
  if (failed) {
    console.log('failures:');
    for (const r of results.filter((r) => r.status === 'FAIL')) console.log(`  ${r.prefix}: ${r.name}`);
  }
  killTmuxServer();
  if (failed || process.env.SOPHIA_E2E_KEEP === '1') console.log(`e2e: requests, logs and homes kept in ${root}`);
  else fs.rmSync(root, { recursive: true, force: true });
  if (!results.length) {
    console.log('e2e: no scenario matched');
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
  console.log(`${passed} passed, ${failed} failed${known.length ? `, ${known.length} skipped` : ''}`);
  process.exit(failed ? 1 : 0);
}

await main();
