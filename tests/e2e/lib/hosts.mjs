// The host drivers: how each real host is installed, pointed at the mock model, given sophia-hook, made
// to trust it, run non-interactively, and where it puts hook context in the requests it sends.
//
// A driver is a plain object:
//   pkg, version, bin        the npm package pinned for the suite and the executable it installs
//   api                      which mock API it speaks (lib/mock.mjs)
//   prepare(ws)              writes the temporary HOME's settings, registers the hook, grants trust
//   env(ws)                  extra environment for the host process
//   argv(ws, step)           the non-interactive command line for one step ({prompt, resume})
//   tuiArgs(ws, step)        optional: extra arguments for the interactive TUI (a log file to diagnose)
//   hookBlocks(body)         [{where, text}] where the host put hook context in a model request;
//                            where = 'session' (session context), 'prompt' (this prompt's context)
//   diagnose(ws, run)        {ran: {SessionStart, UserPromptSubmit}, errors: [line]} from the host's
//                            own logs: how often it ran sophia-hook successfully, and hook errors
//                            (ran is null where a host logs no success line)
//   toolResults(body)        [{name?, id, output}] tool results the host sent back to the model
//   eventNames               the host's names for the two events (Gemini: BeforeAgent; Copilot:
//                            sessionStart, userPromptSubmitted)
//   sessionContextOnPrompt   optional: the hook sends session context with the first prompt (Gemini)
//   sessionStartOnResume     optional: a resumed run fires SessionStart again and the resumed history
//                            lacks the earlier SessionStart context (Copilot)
//   configureMcp(ws, name, command, args, scope)
//                            adds a stdio MCP server to the user's (scope 'user'), the project's
//                            ('project') or, Claude Code only, this machine's per-folder ('local') MCP settings, where the host's own `mcp add` puts it (run
//                            after prepare, which may write the same file)
//
// `ws` is {root, home, project, binary, mockUrl, installArgs, afterInstall}; `run` is {stdout, stderr, dir, index}.

import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { canonicalJson, contentText, snakeCase } from './text.mjs';
import { trustHooksInCodexTui } from './tui.mjs';

function writeJson(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + '\n');
}

/** `file`'s JSON (`{}` when missing) with `server` added under `mcpServers`. */
function addJsonMcpServer(file, name, server) {
  const doc = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
  doc.mcpServers = { ...(doc.mcpServers || {}), [name]: server };
  writeJson(file, doc);
}

/**
 * `sophia-hook install --host X` (project scope), as a user would run it in the project, then the
 * scenario's `afterInstall` (before any trust is granted).
 */
function installHook(ws, host) {
  const out = execFileSync(ws.binary, ['install', '--host', host, '--root', ws.project, ...(ws.installArgs || [])], {
    cwd: ws.project,
    env: ws.baseEnv,
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (ws.afterInstall) ws.afterInstall(ws, host);
  return out;
}

function lines(text) {
  return text.split('\n').map((l) => l.trimEnd());
}

/**
 * The plugin way in, instead of `install` (a scenario's `plugin`): `sophia-hook plugin install --host X`,
 * which writes the plugin folders into sophia-hook's data folder in the temporary HOME and runs the
 * host's own commands on it (docs/hosts.md "Plugins"), offline (the suite runs in a loopback-only
 * network namespace), with the host's executable first on PATH as a user has it. With `plugin:
 * 'from-build'` the host first gets the plugin the earlier way, its own commands on a `sophia-hook
 * plugin build --out` folder (`fromBuild(built)`), and that folder is deleted after `plugin install`:
 * the hook must still run. Every command's output goes to `plugin-install.txt`.
 */
function installPlugin(ws, host, fromBuild) {
  const built = ws.plugin === 'from-build' ? buildPlugin(ws) : null;
  if (built) fromBuild(built);
  const exe = process.env[`SOPHIA_E2E_BIN_${host.name.toUpperCase()}`];
  const env = { ...ws.baseEnv, ...host.env(ws), PATH: `${path.dirname(exe)}${path.delimiter}${ws.baseEnv.PATH}` };
  const log = path.join(ws.root, 'plugin-install.txt');
  const args = ['plugin', 'install', '--host', host.name];
  try {
    const out = execFileSync(ws.binary, args, { cwd: ws.project, env, encoding: 'utf8', timeout: 300_000, stdio: ['ignore', 'pipe', 'pipe'] });
    fs.appendFileSync(log, `$ sophia-hook ${args.join(' ')}\n${out}\n`);
  } catch (e) {
    fs.appendFileSync(log, `$ sophia-hook ${args.join(' ')}\n${e.stdout || ''}${e.stderr || ''}(failed: ${e.message})\n`);
    throw new Error(`sophia-hook ${args.join(' ')} failed: ${e.message}\n${e.stdout || ''}${e.stderr || ''}`);
  }
  if (built) {
    fs.rmSync(built, { recursive: true, force: true });
    fs.appendFileSync(log, `$ rm -rf ${built}\n`);
  }
}

/** `sophia-hook plugin build` into the workspace: the folder a user may later move or delete. */
function buildPlugin(ws) {
  const out = path.join(ws.root, 'plugin');
  execFileSync(ws.binary, ['plugin', 'build', '--out', out], { env: ws.baseEnv, encoding: 'utf8', timeout: 30_000 });
  return out;
}

/** One command of the host's own CLI (`claude plugin …`), bounded; its output is logged, a failure thrown. */
function hostCommand(ws, host, args, env = {}) {
  const exe = process.env[`SOPHIA_E2E_BIN_${host.name.toUpperCase()}`];
  const log = path.join(ws.root, 'plugin-install.txt');
  let out;
  try {
    out = execFileSync(exe, args, { cwd: ws.project, env: { ...ws.baseEnv, ...host.env(ws), ...env }, encoding: 'utf8', timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    fs.appendFileSync(log, `$ ${host.name} ${args.join(' ')}\n${e.stdout || ''}${e.stderr || ''}(failed: ${e.message})\n`);
    throw new Error(`${host.name} ${args.join(' ')} failed: ${e.message}\n${e.stdout || ''}${e.stderr || ''}`);
  }
  fs.appendFileSync(log, `$ ${host.name} ${args.join(' ')}\n${out}\n`);
  return out;
}

// ---------------------------------------------------------------------------------------------------
// OpenAI Codex CLI

/**
 * Codex records per-handler trust in `$CODEX_HOME/config.toml`:
 * `[hooks.state."<hooks.json>:<event_label>:<group>:<handler>"] trusted_hash = "sha256:…"`, where the hash
 * is SHA-256 of the canonical JSON of {event_name (snake case), matcher (when present),
 * hooks: [{type, command, timeout (default 600, at least 1), async (default false), statusMessage (when
 * present)}]}. The TUI's /hooks review writes the same thing; `codex exec` cannot, so the suite does.
 */
export function codexTrustEntries(hooksFile) {
  const file = JSON.parse(fs.readFileSync(hooksFile, 'utf8'));
  const out = [];
  for (const [event, groups] of Object.entries(file.hooks || {})) {
    const label = snakeCase(event);
    groups.forEach((group, g) => {
      (group.hooks || []).forEach((h, i) => {
        const handler = {
          type: h.type,
          command: h.command,
          timeout: Math.max(1, h.timeout ?? 600),
          async: h.async ?? false,
        };
        if (h.statusMessage !== undefined) handler.statusMessage = h.statusMessage;
        const hashed = { event_name: label, hooks: [handler] };
        if (group.matcher !== undefined) hashed.matcher = group.matcher;
        const hash = crypto.createHash('sha256').update(canonicalJson(hashed)).digest('hex');
        out.push({ key: `${hooksFile}:${label}:${g}:${i}`, hash: `sha256:${hash}` });
      });
    });
  }
  return out;
}

export const codex = {
  name: 'codex',
  pkg: '@openai/codex',
  version: '0.171.0',
  bin: 'codex',
  api: 'responses',
  eventNames: { SessionStart: 'SessionStart', UserPromptSubmit: 'UserPromptSubmit' },

  async prepare(ws) {
    if (!ws.plugin) installHook(ws, 'codex');
    const toml = [
      // Nothing but the mock: no update check, no curated-plugin sync, no analytics (in the suite's
      // private network namespace each of these would otherwise wait for a DNS time-out).
      'check_for_update_on_startup = false',
      'model = "e2e-mock-model"',
      'model_provider = "e2e_mock"',
      '',
      '[model_providers.e2e_mock]',
      'name = "e2e mock"',
      `base_url = ${JSON.stringify(ws.mockUrl + '/v1')}`,
      'wire_api = "responses"',
      'env_key = "E2E_MOCK_API_KEY"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
      '[features]',
      // The plugin scenarios need plugins; the others turn them off (no curated-plugin sync).
      `plugins = ${ws.plugin ? 'true' : 'false'}`,
      'apps = false',
      'remote_plugin = false',
      'in_app_updates = false',
      'daemon_auto_start = false', // the TUI would start a detached app-server that outlives it
      '',
      '[analytics]',
      'enabled = false',
      '',
      // Folder trust: without it Codex ignores the project's .codex/ (hooks included).
      `[projects.${JSON.stringify(ws.project)}]`,
      'trust_level = "trusted"',
    ];
    // Hook trust, one entry per handler of the project's hooks.json.
    if (!ws.plugin) {
      for (const { key, hash } of codexTrustEntries(path.join(ws.project, '.codex', 'hooks.json'))) {
        toml.push('', `[hooks.state.${JSON.stringify(key)}]`, `trusted_hash = ${JSON.stringify(hash)}`);
      }
    }
    const config = path.join(ws.home, '.codex', 'config.toml');
    fs.mkdirSync(path.dirname(config), { recursive: true });
    fs.writeFileSync(config, toml.join('\n') + '\n');
    if (ws.plugin) {
      installPlugin(ws, this, (built) => {
        hostCommand(ws, this, ['plugin', 'marketplace', 'add', path.join(built, 'marketplace')]);
        hostCommand(ws, this, ['plugin', 'add', 'sophia-hook@sophia-hook']);
      });
      // Plugin hooks run only once trusted: in the TUI, as a user does ("Hooks need review" → "Trust
      // all and continue"), which records `[hooks.state."sophia-hook@sophia-hook:hooks/hooks.json:…"]`.
      const exe = process.env.SOPHIA_E2E_BIN_CODEX;
      const r = await trustHooksInCodexTui({ exe, env: { ...ws.baseEnv, ...this.env(ws), TERM: 'xterm-256color' }, cwd: ws.project, session: `sophia-e2e-${process.pid}-codex-trust-${path.basename(ws.root)}`, config, key: 'sophia-hook@sophia-hook:' });
      fs.writeFileSync(path.join(ws.root, 'codex-trust-screen.txt'), r.screen);
      if (!r.trusted) throw new Error(`Codex's TUI did not record trust for the plugin hooks (screen in ${ws.root}/codex-trust-screen.txt)`);
    }
  },

  // `codex mcp add NAME -- COMMAND ARGS…` writes `[mcp_servers.NAME]` to `$CODEX_HOME/config.toml`.
  configureMcp(ws, name, command, args, scope) {
    const table = ['', `[mcp_servers.${JSON.stringify(name)}]`, `command = ${JSON.stringify(command)}`, `args = ${JSON.stringify(args)}`];
    const file = scope === 'project' ? path.join(ws.project, '.codex', 'config.toml') : path.join(ws.home, '.codex', 'config.toml');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.appendFileSync(file, table.join('\n') + '\n');
  },

  env: (ws) => ({ CODEX_HOME: path.join(ws.home, '.codex'), E2E_MOCK_API_KEY: 'mock-key' }),

  argv: (ws, step) =>
    step.resume ? ['exec', 'resume', '--last', step.prompt] : ['exec', step.prompt],

  // Developer messages before the prompt carry SessionStart context; the ones after it carry the
  // prompt's (UserPromptSubmit) context.
  hookBlocks(body) {
    const input = (body?.input || []).filter((i) => i.type === 'message' || i.role);
    let last = -1;
    input.forEach((m, i) => {
      if (m.role === 'user') last = i;
    });
    return input
      .map((m, i) => ({ m, i }))
      .filter(({ m }) => m.role === 'developer')
      .map(({ m, i }) => ({ where: i > last ? 'prompt' : 'session', text: contentText(m.content) }));
  },

  diagnose(ws, run) {
    const ran = { SessionStart: 0, UserPromptSubmit: 0 };
    const errors = [];
    for (const l of lines(run.stderr)) {
      const m = /^hook: (\w+)(?: (\w+))?/.exec(l);
      if (m && m[2]) {
        if (m[2] === 'Completed' && m[1] in ran) ran[m[1]]++;
        else errors.push(l);
      } else if (/hook/i.test(l) && /(fail|error|invalid|untrusted|not trusted|review|skipp|timed out)/i.test(l)) {
        errors.push(l);
      }
    }
    return { ran, errors };
  },

  toolResults: (body) =>
    (body?.input || [])
      .filter((i) => i.type === 'function_call_output')
      .map((i) => ({ id: i.call_id, output: typeof i.output === 'string' ? i.output : JSON.stringify(i.output) })),
};

// ---------------------------------------------------------------------------------------------------
// Anthropic Claude Code

const CLAUDE_KEY = 'sk-ant-e2e-mock-key';
const CLAUDE_LABEL = /(SessionStart|UserPromptSubmit) hook additional context: /g;

export const claude = {
  name: 'claude',
  pkg: '@anthropic-ai/claude-code',
  version: '2.1.332',
  bin: 'claude',
  api: 'messages',
  eventNames: { SessionStart: 'SessionStart', UserPromptSubmit: 'UserPromptSubmit' },

  prepare(ws) {
    if (!ws.plugin) installHook(ws, 'claude');
    // `claude -p` needs no trust; the interactive TUI asks once per folder, and once whether to use an
    // API key found in the environment (by its last 20 characters), and records the answers here.
    writeJson(path.join(ws.home, '.claude.json'), {
      hasCompletedOnboarding: true,
      customApiKeyResponses: { approved: [CLAUDE_KEY.slice(-20)], rejected: [] },
      projects: { [ws.project]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } },
    });
    if (ws.plugin) {
      installPlugin(ws, this, (built) => {
        hostCommand(ws, this, ['plugin', 'marketplace', 'add', path.join(built, 'marketplace')]);
        hostCommand(ws, this, ['plugin', 'install', 'sophia-hook@sophia-hook']);
      });
    }
  },

  // `claude mcp add --scope user`: `mcpServers` of `~/.claude.json`.
  // `--scope local` (this machine, this folder): `projects.<folder>.mcpServers` of `~/.claude.json`.
  configureMcp(ws, name, command, args, scope) {
    const server = { type: 'stdio', command, args, env: {} };
    if (scope === 'local') {
      const file = path.join(ws.home, '.claude.json');
      const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
      const project = doc.projects[ws.project];
      project.mcpServers = { ...(project.mcpServers || {}), [name]: server };
      writeJson(file, doc);
      return;
    }
    addJsonMcpServer(scope === 'project' ? path.join(ws.project, '.mcp.json') : path.join(ws.home, '.claude.json'), name, server);
  },

  env: (ws) => ({
    ANTHROPIC_BASE_URL: ws.mockUrl,
    ANTHROPIC_API_KEY: CLAUDE_KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
  }),

  // The interactive TUI logs to the same debug file.
  tuiArgs: (ws, step) => ['--debug-file', path.join(step.dir, 'claude-debug.txt')],

  argv: (ws, step) => [
    '-p',
    step.prompt,
    ...(step.args || []),
    ...(step.resume ? ['--continue'] : []),
    '--debug-file',
    path.join(step.dir, 'claude-debug.txt'),
  ],

  // Claude labels each hook's context ("SessionStart hook additional context: …") and puts it in a system
  // message or a <system-reminder> inside the user turn; a block runs to the next label. Context of an
  // earlier prompt (before the last user prompt) counts as session context.
  hookBlocks(body) {
    const texts = []; // [text, isEarlierTurn]
    const sys = body?.system;
    if (typeof sys === 'string') texts.push([sys, false]);
    else if (Array.isArray(sys)) for (const b of sys) if (typeof b?.text === 'string') texts.push([b.text, false]);
    const messages = body?.messages || [];
    const isPrompt = (m) =>
      m.role === 'user' &&
      (typeof m.content === 'string'
        ? !m.content.startsWith('<system-reminder>')
        : (m.content || []).some((c) => c?.type === 'text' && !c.text.startsWith('<system-reminder>')));
    let last = -1;
    messages.forEach((m, i) => {
      if (isPrompt(m)) last = i;
    });
    messages.forEach((m, i) => {
      if (typeof m.content === 'string') texts.push([m.content, i < last]);
      else for (const c of m.content || []) if (typeof c?.text === 'string') texts.push([c.text, i < last]);
    });
    const blocks = [];
    for (const [t, earlier] of texts) {
      const marks = [...t.matchAll(CLAUDE_LABEL)];
      marks.forEach((m, i) => {
        const end = i + 1 < marks.length ? marks[i + 1].index : t.length;
        blocks.push({
          where: m[1] === 'SessionStart' || earlier ? 'session' : 'prompt',
          text: t.slice(m.index + m[0].length, end),
        });
      });
    }
    return blocks;
  },

  diagnose(ws, run) {
    const ran = { SessionStart: 0, UserPromptSubmit: 0 };
    const errors = [];
    const file = path.join(run.dir, 'claude-debug.txt');
    const log = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    if (!log) errors.push(`no debug log at ${file}`);
    for (const l of lines(log)) {
      const m = /Hooks: (\w+)(?::\w+)? \[(.*)\](?: \(plugin [^)]*\))? finished with status (\d+)/.exec(l);
      if (m && m[2].includes('sophia-hook')) {
        if (m[3] === '0' && m[1] in ran) ran[m[1]]++;
        else errors.push(l);
      } else if (/\[ERROR\].*hook/i.test(l) || /Hook output .*(not a JSON|plain text)/i.test(l) || /hook.*(timed out|cancelled)/i.test(l)) {
        errors.push(l);
      }
    }
    return { ran, errors };
  },

  toolResults(body) {
    const out = [];
    for (const m of body?.messages || []) {
      if (m.role !== 'user' || !Array.isArray(m.content)) continue;
      for (const c of m.content) {
        if (c.type === 'tool_result') out.push({ id: c.tool_use_id, output: contentText(c.content) || String(c.content ?? ''), isError: !!c.is_error });
      }
    }
    return out;
  },
};

// ---------------------------------------------------------------------------------------------------
// Google Gemini CLI

const HOOK_CONTEXT = /<hook_context>([\s\S]*?)<\/hook_context>/g;

export const gemini = {
  name: 'gemini',
  pkg: '@google/gemini-cli',
  version: '0.61.0',
  bin: 'gemini',
  api: 'gemini',
  eventNames: { SessionStart: 'SessionStart', UserPromptSubmit: 'BeforeAgent' },
  // The hook sends the bootstrap and AGENTS.md with the first prompt whose conversation lacks them.
  sessionContextOnPrompt: true,

  prepare(ws) {
    if (!ws.plugin) installHook(ws, 'gemini');
    writeJson(path.join(ws.home, '.gemini', 'settings.json'), {
      security: { auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
    });
    // Folder trust: without it `gemini -p` exits 55 and project hooks are not loaded.
    writeJson(path.join(ws.home, '.gemini', 'trustedFolders.json'), { [ws.project]: 'TRUST_FOLDER' });
    if (ws.plugin) {
      // The source folder is not trusted: without the variable the install asks [y/N] on stdin.
      installPlugin(ws, this, (built) =>
        hostCommand(ws, this, ['extensions', 'install', path.join(built, 'gemini-extension'), '--consent'], { GEMINI_CLI_TRUST_WORKSPACE: 'true' }),
      );
    }
  },

  // `gemini mcp add --scope user`: `mcpServers` of `~/.gemini/settings.json`.
  configureMcp(ws, name, command, args, scope) {
    const file = scope === 'project' ? path.join(ws.project, '.gemini', 'settings.json') : path.join(ws.home, '.gemini', 'settings.json');
    addJsonMcpServer(file, name, { command, args });
  },

  env: (ws) => ({ GOOGLE_GEMINI_BASE_URL: ws.mockUrl, GEMINI_API_KEY: 'e2e-mock-key', NO_COLOR: '1' }),

  argv: (ws, step) => [...(step.resume ? ['--resume', 'latest'] : []), '-p', step.prompt, '--debug'],

  // Gemini wraps hook context in <hook_context>…</hook_context> inside the user turn: SessionStart's is
  // prepended to the first prompt (non-interactive) or sent with the first turn, BeforeAgent's follows
  // the prompt. Blocks before the last user turn's own text, or in earlier turns, are session context.
  hookBlocks(body) {
    const contents = body?.contents || [];
    let last = -1;
    contents.forEach((c, i) => {
      if (c.role === 'user' && (c.parts || []).some((p) => typeof p.text === 'string' && p.text.replace(HOOK_CONTEXT, '').trim() && !p.text.startsWith('<session_context>'))) last = i;
    });
    const blocks = [];
    contents.forEach((c, i) => {
      if (c.role !== 'user') return;
      let seenPrompt = false;
      for (const p of c.parts || []) {
        if (typeof p.text !== 'string') continue;
        let rest = p.text;
        for (const m of p.text.matchAll(HOOK_CONTEXT)) {
          const before = p.text.slice(0, m.index).replace(HOOK_CONTEXT, '').trim();
          const where = i === last && (seenPrompt || before) ? 'prompt' : 'session';
          blocks.push({ where, text: unescapeHtml(m[1]) });
        }
        rest = rest.replace(HOOK_CONTEXT, '').trim();
        if (rest && !rest.startsWith('<session_context>')) seenPrompt = true;
      }
    });
    return blocks;
  },

  // With --debug Gemini logs "Hook execution for <event>: N hooks executed successfully" or
  // "… N succeeded, M failed (names)" on stderr.
  diagnose(ws, run) {
    const ran = { SessionStart: 0, UserPromptSubmit: 0 };
    const errors = [];
    for (const l of lines(run.stderr)) {
      const ok = /Hook execution for (\w+): (\d+) hooks executed successfully/.exec(l);
      if (ok) {
        const key = ok[1] === 'BeforeAgent' ? 'UserPromptSubmit' : ok[1];
        if (key in ran) ran[key] += Number(ok[2]);
      } else if (/Hook execution for \w+: .*failed|Hook execution error|Hook\(s\) \[.*\] failed|Discarding invalid hook|hook.*timed out/i.test(l)) {
        errors.push(l);
      }
    }
    return { ran, errors };
  },

  toolResults(body) {
    const out = [];
    for (const c of body?.contents || []) {
      for (const p of c.parts || []) {
        if (p.functionResponse) {
          out.push({ name: p.functionResponse.name, id: p.functionResponse.id, output: JSON.stringify(p.functionResponse.response) });
        }
      }
    }
    return out;
  },
};

function unescapeHtml(s) {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

// ---------------------------------------------------------------------------------------------------
// GitHub Copilot CLI (docs/host-protocols.md, "GitHub Copilot CLI"; tests/e2e/copilot-probe.mjs)

const SYSTEM_REMINDER = /<system_reminder>\n?([\s\S]*?)\n?<\/system_reminder>/g;
const CURRENT_DATETIME = /^<current_datetime>[^<]*<\/current_datetime>\s*/;

/** The text of a Responses API input item (a message's parts joined). */
function itemText(it) {
  if (typeof it?.content === 'string') return it.content;
  if (Array.isArray(it?.content)) return it.content.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('\n');
  return '';
}

/** Every `hook.end` event of $COPILOT_HOME/session-state/<session>/events.jsonl, oldest first. */
function copilotHookEnds(ws) {
  const base = path.join(ws.home, '.copilot', 'session-state');
  if (!fs.existsSync(base)) return [];
  const out = [];
  for (const s of fs.readdirSync(base)) {
    const f = path.join(base, s, 'events.jsonl');
    if (!fs.existsSync(f)) continue;
    for (const l of fs.readFileSync(f, 'utf8').split('\n')) {
      if (!l.trim()) continue;
      try {
        const e = JSON.parse(l);
        if (e.type === 'hook.end') out.push({ ...e, file: f });
      } catch {}
    }
  }
  return out;
}

const copilotLogDir = (step) => path.join(step.dir, 'logs');

export const copilot = {
  name: 'copilot',
  pkg: '@github/copilot',
  version: '1.0.102',
  bin: 'copilot',
  api: 'responses',
  eventNames: { SessionStart: 'sessionStart', UserPromptSubmit: 'userPromptSubmitted' },
  // `--continue` runs sessionStart again (source "resume") and the resumed history lacks the first
  // run's sessionStart context: the hook sends the bootstrap again, and it must still arrive once.
  sessionStartOnResume: true,

  prepare(ws) {
    if (ws.plugin) {
      // An absolute path: Copilot CLI reads a relative one as a GitHub owner/repo.
      installPlugin(ws, this, (built) => {
        hostCommand(ws, this, ['plugin', 'marketplace', 'add', path.join(built, 'marketplace')]);
        hostCommand(ws, this, ['plugin', 'install', 'sophia-hook@sophia-hook']);
      });
    } else {
      installHook(ws, 'copilot');
    }
    // Folder trust, as the TUI's "Yes, and remember this folder" records it (observed: the project in
    // `trustedFolders` of $COPILOT_HOME/config.json, a file of `//` comment lines and JSON).
    // Without it repository hooks never load and the prompt goes through without them.
    const config = path.join(ws.home, '.copilot', 'config.json');
    fs.mkdirSync(path.dirname(config), { recursive: true });
    fs.writeFileSync(
      config,
      '// User settings belong in settings.json.\n// This file is managed automatically.\n' +
        JSON.stringify({ trustedFolders: [ws.project] }, null, 2) +
        '\n',
    );
  },

  // `/mcp add`: `mcpServers` of `$COPILOT_HOME/mcp-config.json`.
  configureMcp(ws, name, command, args) {
    addJsonMcpServer(path.join(ws.home, '.copilot', 'mcp-config.json'), name, { type: 'local', command, args, tools: ['*'] });
  },

  env: (ws) => ({
    // The bring-your-own-key provider: no GitHub sign-in, no token (observed).
    COPILOT_PROVIDER_BASE_URL: `${ws.mockUrl}/v1`,
    COPILOT_PROVIDER_WIRE_API: 'responses',
    COPILOT_MODEL: 'gpt-5.4',
    COPILOT_OFFLINE: 'true',
    COPILOT_AUTO_UPDATE: 'false',
    // The executable unpacks its bundled package (235 MB) into $COPILOT_PKG_CACHE_HOME/pkg on first
    // launch: one folder for the whole run (tests/e2e/run's temporary folder, else beside the
    // scenarios' folders) spares each fresh HOME that, and nothing lands in the user's HOME.
    COPILOT_PKG_CACHE_HOME: process.env.SOPHIA_E2E_COPILOT_PKG_CACHE || path.join(path.dirname(ws.root), 'copilot-pkg-cache'),
  }),

  tuiArgs: (ws, step) => ['--no-auto-update', '--log-level', 'all', '--log-dir', copilotLogDir(step)],

  // --allow-all-tools: `-p` mode cannot ask, and the scenarios' tool calls (view, task) must run.
  argv: (ws, step) => [
    '-p',
    step.prompt,
    '--allow-all-tools',
    '--no-auto-update',
    '--log-level',
    'all',
    '--log-dir',
    copilotLogDir(step),
    ...(step.resume ? ['--continue'] : []),
  ],

  // sessionStart context is a user message of its own (raw text, no <current_datetime> prefix) before
  // the prompt; userPromptSubmitted context is a `<system_reminder>` appended to the prompt's user
  // message. A user message that starts with <current_datetime> is a prompt; its reminders are this
  // prompt's context in the last one, session context (an earlier turn's) before it.
  hookBlocks(body) {
    const users = (body?.input || []).filter((i) => i.role === 'user').map(itemText);
    const isPrompt = (t) => CURRENT_DATETIME.test(t);
    let last = -1;
    users.forEach((t, i) => {
      if (isPrompt(t)) last = i;
    });
    const blocks = [];
    users.forEach((t, i) => {
      if (!isPrompt(t)) {
        blocks.push({ where: 'session', text: t });
        return;
      }
      for (const m of t.matchAll(SYSTEM_REMINDER)) blocks.push({ where: i === last ? 'prompt' : 'session', text: m[1] });
    });
    return blocks;
  },

  // Evidence per step: the session's events.jsonl `hook.end` events this step added (one session file
  // across `--continue`), and the step's debug log (--log-dir) for failures and skipped hook files.
  diagnose(ws, run) {
    const ran = { SessionStart: 0, UserPromptSubmit: 0 };
    const errors = [];
    const ends = copilotHookEnds(ws);
    const seen = (ws.copilotHookEndsSeen ||= 0);
    ws.copilotHookEndsSeen = ends.length;
    const key = { sessionStart: 'SessionStart', userPromptSubmitted: 'UserPromptSubmit' };
    for (const e of ends.slice(seen)) {
      const ev = key[e.data?.hookType];
      if (e.data?.success === true && ev) ran[ev]++;
      else if (e.data?.success !== true) errors.push(`hook.end ${JSON.stringify(e.data).slice(0, 300)}`);
    }
    const dir = path.join(run.dir, 'logs');
    const logs = fs.existsSync(dir) ? fs.readdirSync(dir).map((f) => fs.readFileSync(path.join(dir, f), 'utf8')) : [];
    if (!logs.length) errors.push(`no debug log in ${dir}`);
    for (const l of logs.flatMap(lines)) {
      if (/Hook command failed|timed out; allowing processing to proceed|Ignoring unknown hook event|Ignoring additionalContext|Failed to (load|parse) hook/i.test(l)) errors.push(l);
    }
    return { ran, errors };
  },

  toolResults: (body) =>
    (body?.input || [])
      .filter((i) => i.type === 'function_call_output')
      .map((i) => ({ id: i.call_id, output: typeof i.output === 'string' ? i.output : JSON.stringify(i.output) })),
};

export const HOSTS = { codex, claude, gemini, copilot };
