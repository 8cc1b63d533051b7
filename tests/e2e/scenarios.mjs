// The scenarios of the end-to-end suite: one entry per scenario. To add one, append an object:
//
//   name        unique, kebab-case; `tests/e2e/run NAME` runs only the scenarios whose name contains NAME
//   hosts       the hosts it runs on (default: all of lib/hosts.mjs)
//   files       the project's files, path → content (default: DEFAULT_FILES, an AGENTS.md with a marker)
//   steps       [{prompt, resume?}]: one non-interactive host run each; `resume: true` continues the
//               previous session (codex exec resume --last, claude --continue, gemini --resume latest,
//               copilot --continue)
//   expect      per step (or one object for every step): strings that must arrive in the prompt's hook
//               context (`prompt`), and strings that must appear nowhere in the request (`absent`)
//   script      optional (request, turn, hostName, ws) => reply for the mock model: {text} or
//               {toolCall: {name, args}} (see lib/mock.mjs); turn 0 is the first conversation request of
//               the scenario; ws.project is the project's absolute path
//   checks      optional (ctx) => [{name, ok, detail}] extra checks; ctx is described in suite.mjs
//   tui         optional: true runs each step in the host's interactive TUI under tmux instead (a fresh
//               TUI per step, opened on the last session when the step resumes; lib/tui.mjs): the
//               prompt is typed as the very first characters of the empty composer
//   installArgs optional extra arguments for `sophia-hook install` (e.g. ['--no-agents'])
//   afterInstall optional (ws, hostName) => void, run right after `sophia-hook install` and before the
//               host's trust is granted (so Codex trusts the hooks.json it leaves, e.g. a rewritten
//               command line)
//   embeddedSkills optional: 'auto' keeps the machine default for the embedded skills (named only where
//               their Sophia MCP server is); otherwise the home's config.yaml turns them on, as `eval` does
//   mcp         optional {name, marker}: after prepare, a stub MCP server (lib/mcp-stub.mjs) named `name` is
//               added to the host's user MCP settings (lib/hosts.mjs configureMcp); it appends to
//               `marker` under the workspace when the host starts it
//   plugin      optional: true installs the hook as the host's plugin (extension for Gemini CLI) instead
//               of `sophia-hook install`: `sophia-hook plugin install --host X`, which runs the host's
//               own commands on the plugin folders in sophia-hook's data folder, offline; 'from-build'
//               first installs it the earlier way, the host's commands on a `plugin build --out` folder,
//               and deletes that folder after `plugin install` (lib/hosts.mjs installPlugin; Codex's
//               hooks trusted in its TUI)
//
// A step may also carry `args`: extra command-line arguments for the host run (Claude Code only).
//
// Every scenario also gets the standard checks of suite.mjs: the host ran the hook without error, the
// SessionStart bootstrap arrived exactly once, AGENTS.md exactly once, no routing block twice, and the
// prompt's own text never inside a hook block.

import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { DEFAULT_REPLY } from './lib/mock.mjs';

export const AGENTS_MARKER = 'E2E-AGENTS-MD-7f3a: project rule from AGENTS.md';
export const CLAUDE_MARKER = 'E2E-CLAUDE-MD-91c2: project rule from CLAUDE.md';
export const DEFAULT_FILES = { 'AGENTS.md': `# Project rules\n\n${AGENTS_MARKER}\n` };
const TOOL_MARKER = 'E2E-TOOL-RESULT-5d1e';

// A read-only tool call each host runs without asking, for the tool round trip.
const READ_NOTES = {
  codex: () => ({ name: 'exec_command', args: { cmd: 'cat notes.txt' } }),
  claude: (ws) => ({ name: 'Read', args: { file_path: `${ws.project}/notes.txt` } }),
  gemini: (ws) => ({ name: 'read_file', args: { file_path: `${ws.project}/notes.txt` } }),
  copilot: (ws) => ({ name: 'view', args: { path: `${ws.project}/notes.txt` } }),
};

const QUICK_SQL = {
  prompt: ['contextMode=light reason=hotword:!quick', 'subagentMode=off reason=default-opt-in-design', 'skill=mcp-database-expert'],
  absent: ['contextMode=full', 'subagentMode=requested', 'subagentMode=required'],
};

// A skill the user installed where the host reads it (docs/skills.md): the hint must name it, not an
// embedded catalog skill. Name and description only, as third-party skills come; the prompt is Italian
// and shares no word with the description, so the scorer's vocabulary is exercised too.
const INVOICE_SKILL = '---\nname: e2e-invoice-parser\ndescription: Extract totals and line items from supplier invoices.\n---\n# Invoice parser\n';
const INVOICE_PROMPT = 'estrai i totali dalle fatture di marzo';
const INVOICE_HINT = 'Sophia skill routing: skill=e2e-invoice-parser';

/** Every file under `dir` (bounded to 2 MB each) that names `needle`, relative to `dir`. */
function filesNaming(dir, needle) {
  const hits = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && fs.statSync(p).size < 2_000_000 && fs.readFileSync(p).includes(needle)) hits.push(path.relative(dir, p));
    }
  };
  walk(dir);
  return hits;
}

/**
 * A plugin scenario's own checks: no settings file names the built binary (the hook that ran is the
 * plugin's copy), and `sophia-hook doctor` reads from the real host's own records that it loads the
 * plugin from a folder that holds our hooks and binary (Codex: its hooks trusted), as the host just did.
 */
const PLUGIN_CHECKS = (ctx) => {
  const named = [...filesNaming(ctx.ws.home, ctx.ws.binary).map((f) => `HOME/${f}`), ...filesNaming(ctx.ws.project, ctx.ws.binary).map((f) => `project/${f}`)];
  const name = ctx.host.name;
  let checks = [];
  let detail = '';
  try {
    const out = execFileSync(ctx.ws.binary, ['doctor', '--host', name, '--json', '--root', ctx.ws.project], {
      env: { ...ctx.ws.baseEnv, ...ctx.host.env(ctx.ws) },
      encoding: 'utf8',
      timeout: 60_000,
    });
    checks = JSON.parse(out).checks;
  } catch (e) {
    // doctor exits 1 on any failure; its JSON is still the output.
    try {
      checks = JSON.parse(e.stdout).checks;
    } catch {
      detail = `${e.message} ${e.stdout || ''}`;
    }
  }
  const plugin = checks.filter((c) => c.area === `${name} plugin` || c.area === `${name} plugin trust`);
  const loads = plugin.find((c) => c.area === `${name} plugin` && c.status === 'ok');
  const bad = plugin.filter((c) => c.status !== 'ok');
  detail = detail || JSON.stringify(plugin);
  return [
    ctx.check('no settings file names the built binary: the hook ran from the plugin', named.length === 0, named.join(', ')),
    ctx.check('sophia-hook doctor: the host loads the plugin, and nothing about it is wrong', !!loads && bad.length === 0, detail),
    // sophia-hook's data folder (Claude Code and Copilot CLI read it in place) or the host's own copy:
    // under HOME, never the build folder beside it that the user may move.
    ctx.check('sophia-hook doctor: the folder the host loads is under HOME', !!loads && loads.detail.includes(`loaded from ${ctx.ws.home}${path.sep}`), detail),
  ];
};

/** The stub MCP server was started by the host: the host reads the file it was configured in. */
const MCP_STARTED = (ctx) => {
  const marker = path.join(ctx.ws.root, 'mcp-started.txt');
  const started = fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : '';
  return [ctx.check('the host started the MCP server configured in its MCP settings', started.includes('started'), started || 'never started')];
};

export const SCENARIOS = [
  {
    // sophia-hook at both scopes where the host runs it once (docs/host-protocols.md): Claude Code when
    // the two entries are the same command (`--binary sophia-hook` at user scope too; a bare name at
    // project scope and an absolute path at user scope inject every block twice, which `install` warns
    // about and `doctor` fails), Gemini CLI whatever the commands. The standard checks prove every
    // block arrives once.
    name: 'both-scopes-once',
    hosts: ['claude', 'gemini'],
    installArgs: ['--no-agents'],
    afterInstall: (ws, hostName) => {
      const same = hostName === 'claude' ? ['--binary', 'sophia-hook'] : [];
      execFileSync(ws.binary, ['install', '--host', hostName, '--scope', 'user', '--no-agents', ...same], { env: ws.baseEnv, cwd: ws.project, encoding: 'utf8' });
    },
    steps: [{ prompt: '!quick spiegami questa SQL: SELECT 1' }],
    expect: QUICK_SQL,
  },
  {
    // Grounded embedded skills (docs/skills.md): the Sophia SQL server configured where the host's
    // own `mcp add` puts it, nothing else set — the host starts it, and the hint names its skill.
    name: 'grounded-sql',
    embeddedSkills: 'auto',
    mcp: { name: 'sql-mcp-server', marker: 'mcp-started.txt' },
    steps: [{ prompt: '!quick spiegami questa SQL: SELECT 1' }],
    expect: QUICK_SQL,
    checks: MCP_STARTED,
  },
  {
    // The same server in the project's MCP settings (Claude Code `.mcp.json`, Codex
    // `.codex/config.toml` of the trusted project, Gemini CLI `.gemini/settings.json`).
    name: 'grounded-sql-project',
    hosts: ['codex', 'claude', 'gemini'],
    embeddedSkills: 'auto',
    mcp: { name: 'sql-mcp-server', marker: 'mcp-started.txt', scope: 'project' },
    steps: [{ prompt: '!quick spiegami questa SQL: SELECT 1' }],
    expect: QUICK_SQL,
    checks: MCP_STARTED,
  },
  {
    // Claude Code's local scope: the server under this folder in `~/.claude.json`'s `projects`.
    name: 'grounded-sql-local',
    hosts: ['claude'],
    embeddedSkills: 'auto',
    mcp: { name: 'sql-mcp-server', marker: 'mcp-started.txt', scope: 'local' },
    steps: [{ prompt: '!quick spiegami questa SQL: SELECT 1' }],
    expect: QUICK_SQL,
    checks: MCP_STARTED,
  },
  {
    // ...and without it the embedded catalog stays silent: the routing line only.
    name: 'ungrounded-sql',
    embeddedSkills: 'auto',
    steps: [{ prompt: '!quick spiegami questa SQL: SELECT 1' }],
    expect: { prompt: ['contextMode=light reason=hotword:!quick'], absent: ['skill=mcp-', 'Sophia skill routing'] },
  },
  {
    // The host-native way in (docs/hosts.md "Plugins"): no `sophia-hook install`; the hook that runs is
    // the plugin's own copy of the binary, from sophia-hook's data folder, and its routing reaches the model.
    name: 'plugin-quick-sql',
    plugin: true,
    steps: [{ prompt: '!quick spiegami questa SQL: SELECT 1' }],
    expect: QUICK_SQL,
    checks: PLUGIN_CHECKS,
  },
  {
    // The case: the plugin added from a `plugin build --out` folder (which Claude Code and Copilot
    // CLI read in place), then `plugin install`, then that folder deleted: the hook still runs.
    name: 'plugin-build-folder-deleted',
    plugin: 'from-build',
    steps: [{ prompt: '!quick spiegami questa SQL: SELECT 1' }],
    expect: QUICK_SQL,
    checks: PLUGIN_CHECKS,
  },
  {
    name: 'quick-sql',
    steps: [{ prompt: '!quick spiegami questa SQL: SELECT 1' }],
    expect: QUICK_SQL,
  },
  {
    // The default second prefix (src/config.rs DEFAULT_HOTWORD_PREFIX) with no configuration.
    name: 'plus-quick-sql',
    steps: [{ prompt: '+quick spiegami questa SQL: SELECT 1' }],
    expect: QUICK_SQL,
  },
  {
    // Where users type: the interactive TUI, no configuration. `!quick` cannot start a TUI prompt
    // (shell mode); the default `+quick` types through and the hook reads it as `!quick`.
    name: 'tui-default-prefix',
    tui: true,
    // No agent definitions: Gemini CLI's "New Agents Discovered" dialog can come up before the
    // composer and race the readiness check; the agents are not what this scenario is about.
    installArgs: ['--no-agents'],
    steps: [{ prompt: '+quick spiegami questa SQL: SELECT 1' }],
    expect: QUICK_SQL,
  },
  {
    name: 'agents-logs',
    steps: [{ prompt: '!agents analizza questi log' }],
    expect: {
      prompt: ['contextMode=full reason=default-full-context', 'subagentMode=required reason=hotword:!agents', 'Sophia agent routing: agent='],
      absent: ['contextMode=light', 'subagentMode=off', 'subagentMode=requested'],
    },
  },
  {
    name: 'quick-repo-task',
    steps: [{ prompt: '!quick implementa la modifica agli hook in src/hook.rs' }],
    expect: {
      prompt: ['contextMode=full reason=repo-task-detected-overrides:!quick', 'subagentMode=off reason=default-opt-in-design'],
      absent: ['contextMode=light', 'subagentMode=requested', 'subagentMode=required'],
    },
  },
  {
    // Two phases, two roles (src/stages/agents/policy.rs, decided in issue #22): "read" is discovery (the
    // scout), "summarize" analysis (the analyst, first); each a line of its own, neither twice.
    name: 'subagent-request-english',
    steps: [{ prompt: 'use a subagent to read these files and summarize them' }],
    expect: {
      prompt: [
        'subagentMode=requested reason=explicit-subagent-request',
        'Sophia agent routing: agent=technical_analyst ',
        'Sophia agent routing: agent=scout ',
      ],
      absent: ['subagentMode=required', 'agent=implementer'],
    },
    checks: (ctx) => {
      const prompt = ctx.blocks.filter((b) => b.where === 'prompt').map((b) => b.text).join('\n');
      const lines = prompt.split('\n').filter((l) => l.startsWith('Sophia agent routing:'));
      return [ctx.check('two agent routing lines, the analyst first', lines.length === 2 && lines[0].includes('agent=technical_analyst') && lines[1].includes('agent=scout'), lines.join('\n'))];
    },
  },
  {
    name: 'subagent-request',
    steps: [{ prompt: 'usa un subagent per leggere questi file' }],
    expect: {
      prompt: ['contextMode=full reason=default-full-context', 'subagentMode=requested reason=explicit-subagent-request'],
      absent: ['contextMode=light', 'subagentMode=off', 'subagentMode=required'],
    },
  },
  {
    // No hotword and no delegation request: full context and no subagents are the defaults, so the hook
    // adds only the skill line, and no routing-control line at all.
    name: 'plain-sql',
    steps: [{ prompt: 'spiegami questa SQL' }],
    expect: {
      prompt: ['Sophia skill routing: skill=mcp-database-expert'],
      absent: ['contextMode=', 'subagentMode='],
    },
  },
  {
    // Claude Code loads CLAUDE.md and then not AGENTS.md: the hook must add AGENTS.md, once.
    name: 'claude-md-and-agents-md',
    hosts: ['claude'],
    files: { ...DEFAULT_FILES, 'CLAUDE.md': `# Claude rules\n\n${CLAUDE_MARKER}\n` },
    steps: [{ prompt: '!quick spiegami questa SQL: SELECT 1' }],
    expect: QUICK_SQL,
    checks: (ctx) => [ctx.once('CLAUDE.md arrives exactly once', CLAUDE_MARKER)],
  },
  {
    // The mock answers the first request with a tool call; the host runs it and sends the result back in
    // the next request. Proves the scripted tool-call path that delegation scenarios build on.
    name: 'tool-roundtrip',
    files: { ...DEFAULT_FILES, 'notes.txt': `${TOOL_MARKER}\n` },
    steps: [{ prompt: '!quick spiegami questa SQL: SELECT 1' }],
    expect: QUICK_SQL,
    script: (request, turn, host, ws) => (turn === 0 ? { toolCall: READ_NOTES[host](ws) } : undefined),
    checks: (ctx) => {
      const results = ctx.host.toolResults(ctx.main);
      return [
        ctx.check('host ran the scripted tool call and sent its result back', results.some((r) => r.output.includes(TOOL_MARKER)), JSON.stringify(results).slice(0, 500)),
      ];
    },
  },
  {
    // With a model other than the default, Claude Code moves hook context from a system message into
    // <system-reminder> blocks of the user turn; the same checks must hold there.
    name: 'claude-other-model',
    hosts: ['claude'],
    steps: [{ prompt: '!agents analizza questi log', args: ['--model', 'claude-sonnet-4-5'] }],
    expect: {
      prompt: ['subagentMode=required reason=hotword:!agents', 'Sophia agent routing: agent='],
      absent: ['subagentMode=off', 'subagentMode=requested'],
    },
  },
  {
    // Codex, Gemini CLI and Copilot CLI read `.agents/skills` of the project.
    name: 'installed-skill-agents-folder',
    hosts: ['codex', 'gemini', 'copilot'],
    files: { ...DEFAULT_FILES, '.agents/skills/e2e-invoice-parser/SKILL.md': INVOICE_SKILL },
    steps: [{ prompt: INVOICE_PROMPT }],
    expect: { prompt: [INVOICE_HINT], absent: ['skill=mcp-'] },
  },
  {
    // Claude Code (and Copilot CLI) read `.claude/skills` of the project.
    name: 'installed-skill-claude-folder',
    hosts: ['claude', 'copilot'],
    files: { ...DEFAULT_FILES, '.claude/skills/e2e-invoice-parser/SKILL.md': INVOICE_SKILL },
    steps: [{ prompt: INVOICE_PROMPT }],
    expect: { prompt: [INVOICE_HINT], absent: ['skill=mcp-'] },
  },
  {
    // ...and not `.agents/skills`: a skill there is not one Claude Code has, so the hint never names it.
    // (`!quick` makes the hook answer something: with no skill and no hotword it prints nothing.)
    name: 'installed-skill-other-hosts-folder',
    hosts: ['claude'],
    files: { ...DEFAULT_FILES, '.agents/skills/e2e-invoice-parser/SKILL.md': INVOICE_SKILL },
    steps: [{ prompt: `!quick ${INVOICE_PROMPT}` }],
    expect: { prompt: ['contextMode=light reason=hotword:!quick'], absent: ['skill=e2e-invoice-parser'] },
  },
  {
    // A resumed session already holds the bootstrap: it must not arrive a second time.
    name: 'resume',
    steps: [
      { prompt: '!quick spiegami questa SQL: SELECT 1' },
      { prompt: '!agents analizza questi log', resume: true },
    ],
    expect: [
      QUICK_SQL,
      { prompt: ['subagentMode=required reason=hotword:!agents'], absent: ['subagentMode=requested'] },
    ],
  },
  {
    // Three turns, resumed twice: every earlier turn stays in the conversation (Gemini CLI's resume
    // drops saved user messages that start with <hook_context>), the bootstrap arrives once.
    name: 'resume-three-turns',
    steps: [
      { prompt: '!quick spiegami questa SQL: SELECT 1' },
      { prompt: 'e ora la tabella clienti', resume: true },
      { prompt: '+quick riassumi in una riga', resume: true },
    ],
    expect: [QUICK_SQL, {}, { prompt: ['contextMode=light reason=hotword:!quick'] }],
  },
  {
    // The same in the interactive TUI: a fresh TUI per step, the later ones opened on the last
    // session (codex resume --last, claude --continue, gemini --resume latest).
    name: 'tui-resume',
    tui: true,
    hosts: ['gemini', 'copilot'],
    installArgs: ['--no-agents'], // as tui-default-prefix: no agents dialog to race the composer
    steps: [
      { prompt: '+quick spiegami questa SQL: SELECT 1' },
      { prompt: 'e ora la tabella clienti', resume: true },
    ],
    expect: [QUICK_SQL, {}],
  },
];

// Delegation the hosts can actually perform. After `install`, the hint names a role as a type only
// where the host has it (Codex spawn_agent's agent_type, Claude Code's Task subagent_type); without the
// runtime definitions, or on Gemini CLI before the user acknowledged the project's agents, it names the
// host's built-in delegation. A planned delegation carries forward to the approval, and a child agent's
// prompt in between leaves the parent's entry alone.
const ANALYST = '!agents analizza il ticket Mantis 123 e ricostruisci la causa';
const FIVE_ROLES = ['scout', 'technical_analyst', 'implementer', 'code_reviewer', 'test_writer'];
const toolNamed = (body, names) => (body?.tools || []).flatMap((t) => [t, ...(t.tools || [])]).find((t) => names.includes(t.name || t.function?.name));
const looksFailed = (s) => /not found|unknown agent|unknown variant|invalid|unsupported|error/i.test(s);

SCENARIOS.push(
  {
    name: 'agents-spawn-recommended',
    hosts: ['codex'],
    steps: [{ prompt: ANALYST }],
    expect: { prompt: ['agent=technical_analyst', 'spawn_agent with agent_type="technical_analyst"'] },
    script: (request, turn) =>
      turn === 0
        ? { toolCall: { name: 'spawn_agent', args: { agent_type: 'technical_analyst', message: 'Brief: read-only analysis of ticket 123.' }, item: { namespace: 'multi_agent_v1' } } }
        : undefined,
    checks: (ctx) => {
      const first = ctx.turns[0]?.body;
      const tool = toolNamed(first, ['spawn_agent']);
      const schema = JSON.stringify(tool || {});
      const all = ctx.turns.flatMap((t) => ctx.host.toolResults(t.body));
      return [
        ctx.check('spawn_agent offers agent_type with the five roles', FIVE_ROLES.every((r) => schema.includes(r)) && schema.includes('agent_type'), schema.slice(0, 800)),
        ctx.check('spawn_agent with the recommended agent_type gets no error', all.length > 0 && !all.some((r) => looksFailed(r.output)), JSON.stringify(all).slice(0, 800)),
        // The generated roles pin no model id: the child asks for the session's model.
        ctx.check(
          'the spawned child inherits the session model (no pinned model id)',
          ctx.turns.length >= 2 && ctx.turns.every((t) => t.body?.model === 'e2e-mock-model'),
          JSON.stringify(ctx.turns.map((t) => t.body?.model)),
        ),
      ];
    },
  },
);

const agentToolName = (body) => (toolNamed(body, ['Agent', 'Task']) || {}).name || 'Task';
SCENARIOS.push({
  name: 'agents-task-recommended',
  hosts: ['claude'],
  steps: [{ prompt: ANALYST }],
  expect: { prompt: ['agent=technical_analyst', 'Agent tool (Task in older versions) with subagent_type="technical_analyst"'] },
  script: (request, turn) =>
    turn === 0
      ? { toolCall: { name: agentToolName(request.body), args: { subagent_type: 'technical_analyst', description: 'Analyse ticket 123', prompt: 'Brief: read-only analysis of ticket 123.' } } }
      : undefined,
  checks: (ctx) => {
    const all = ctx.turns.flatMap((t) => ctx.host.toolResults(t.body));
    return [
      ctx.check('the Agent tool accepts the recommended subagent_type', all.length > 0 && !all.some((r) => looksFailed(r.output)), JSON.stringify(all).slice(0, 800)),
    ];
  },
});

const analyticsRuns = (ws) => {
  const file = path.join(ws.home, '.mcp-servers', 'analytics', 'sophia-hook.jsonl');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
};
const CHILD_BRIEF = 'Procedi con il piano: leggi src/login.rs e riporta i punti di ingresso';
const PLANNED = 'Planned delegation carried forward: agent=technical_analyst';
const excerpt = (s, n = 600) => String(s ?? '(none)').slice(0, n);
const inputText = (body) => JSON.stringify(body?.input || body?.messages || []);
// Codex: the main agent spawns the recommended role with a brief that reads like an approval, waits
// for it, then answers; the child's own requests get a plain answer.
const codexSpawnAndWait = (request) => {
  const input = request?.body?.input || [];
  const users = input.filter((i) => i.role === 'user').map((i) => JSON.stringify(i.content));
  if (users.some((u) => u.includes('Procedi con il piano: leggi'))) return undefined; // the child
  const last = input[input.length - 1];
  if (last?.type === 'function_call_output') {
    const id = /"agent_id":"([^"]+)"/.exec(String(last.output));
    if (id && !input.some((i) => i.type === 'function_call' && i.name === 'wait_agent')) {
      return { toolCall: { name: 'wait_agent', args: { targets: [id[1]] }, item: { namespace: 'multi_agent_v1' } } };
    }
    return undefined;
  }
  if (input.some((i) => i.type === 'function_call')) return undefined;
  if (!users.some((u) => u.includes('Mantis 123'))) return undefined;
  return { toolCall: { name: 'spawn_agent', args: { agent_type: 'technical_analyst', message: CHILD_BRIEF }, item: { namespace: 'multi_agent_v1' } } };
};

SCENARIOS.push({
  name: 'plan-approve-codex',
  hosts: ['codex'],
  files: { ...DEFAULT_FILES, '.sophia-hook.yaml': 'planning: true\n' },
  steps: [{ prompt: ANALYST }, { prompt: 'Implement the plan.', resume: true }],
  expect: [{}, { prompt: [PLANNED, 'apply it now'] }],
  script: (request) => codexSpawnAndWait(request),
  checks: (ctx) => {
    if (ctx.stepIndex > 0) return [];
    // The step's last request is the parent's after the child reported back; the planning hint is
    // in the parent's first request.
    const first = ctx.host.hookBlocks(ctx.turns[0].body).filter((b) => b.where === 'prompt').map((b) => b.text).join('\n');
    return [
      ctx.check('the planning turn records the delegation', first.includes('agent=technical_analyst') && first.includes('does not satisfy the later implementation'), first.slice(0, 600)),
      ctx.check("the child agent's prompt reached the model", ctx.requests.some((r) => inputText(r.body).includes(CHILD_BRIEF)), `${ctx.turns.length} turn(s)`),
      (() => {
        // The hook's own analytics (no prompt text in them) show the child's run.
        const runs = analyticsRuns(ctx.ws);
        const child = runs.filter((r) => (r.reasons || []).includes('subagent-originated-prompt'));
        return ctx.check("the hook ran for the child's prompt and carried nothing forward there", child.length > 0 && child.every((r) => !r.carryForward), JSON.stringify(runs.map((r) => [r.event, r.reasons, r.carryForward])));
      })(),
    ];
  },
});

SCENARIOS.push(
  {
    // Without the runtime definitions, the hint names only what the host has built in.
    name: 'agents-without-runtimes',
    installArgs: ['--no-agents'],
    steps: [{ prompt: ANALYST }],
    expect: {
      prompt: ['agent=technical_analyst', 'briefs the child as the technical_analyst role'],
      absent: ['agent_type="technical_analyst"', 'subagent_type="technical_analyst"', 'agent_name="technical_analyst"'],
    },
  },
  {
    // A plan asked for in words, approved in words on the next turn of the same session.
    name: 'plan-approve-wording',
    steps: [
      { prompt: '!agents prepara un piano per analizzare il ticket Mantis 123 e ricostruire la causa' },
      { prompt: 'procedi con il piano', resume: true },
    ],
    expect: [
      { prompt: ['agent=technical_analyst', 'does not satisfy the later implementation'] },
      { prompt: [PLANNED, 'apply it now'] },
    ],
  },
);
SCENARIOS.push({
  // Gemini CLI loads a project's agents only after the user acknowledged them in its TUI, so right
  // after install the hint must name its built-in investigator, which invoke_agent accepts.
  name: 'agents-invoke-unacknowledged',
  hosts: ['gemini'],
  steps: [{ prompt: ANALYST }],
  expect: { prompt: ['agent=technical_analyst', 'agent_name="codebase_investigator"'], absent: ['agent_name="technical_analyst"'] },
  script: (request, turn) =>
    turn === 0 ? { toolCall: { name: 'invoke_agent', args: { agent_name: 'codebase_investigator', prompt: 'Brief: read-only analysis of ticket 123.' } } } : undefined,
  checks: (ctx) => {
    const all = ctx.turns.flatMap((t) => ctx.host.toolResults(t.body)).filter((r) => r.name === 'invoke_agent');
    return [ctx.check('invoke_agent accepts the built-in agent the hint names', all.length > 0 && !all.some((r) => /not found/i.test(r.output)), JSON.stringify(all).slice(0, 800))];
  },
});

// `--planning` on the hook's command line (install has no option for it, so the scenario adds it to
// every sophia-hook command of the installed .codex/hooks.json; Codex then trusts that file). The
// switch marks every prompt as planning, yet the approval is an execution turn and gets the planned
// delegation: typed on `codex exec resume --last`, and as the TUI's "Yes, implement this plan" sends it.
const PLANNING_FLAG = ' --planning';
const addPlanningFlag = (ws) => {
  const file = path.join(ws.project, '.codex', 'hooks.json');
  const hooks = JSON.parse(fs.readFileSync(file, 'utf8'));
  for (const groups of Object.values(hooks.hooks || {})) {
    for (const group of groups) {
      for (const h of group.hooks || []) {
        if (h.command.includes('sophia-hook') && !h.command.endsWith(PLANNING_FLAG)) h.command += PLANNING_FLAG;
      }
    }
  }
  fs.writeFileSync(file, JSON.stringify(hooks, null, 2) + '\n');
};
const promptContext = (host, body) => host.hookBlocks(body).filter((b) => b.where === 'prompt').map((b) => b.text).join('\n');
const PLANNING_HINT = 'does not satisfy the later implementation';
for (const [suffix, approval] of [['procedi', 'procedi con il piano'], ['implement', 'Implement the plan.']]) {
  SCENARIOS.push({
    name: `plan-approve-codex-flag-${suffix}`,
    hosts: ['codex'],
    afterInstall: addPlanningFlag,
    // No plan asked for in words, no `planning: true`, no SOPHIA_PLANNING: only the flag makes it a plan.
    steps: [{ prompt: ANALYST }, { prompt: approval, resume: true }],
    expect: [{ prompt: ['agent=technical_analyst', PLANNING_HINT] }, { prompt: [PLANNED, 'apply it now'] }],
    checks: (ctx) => {
      if (ctx.stepIndex === 0) {
        const hooks = JSON.parse(fs.readFileSync(path.join(ctx.ws.project, '.codex', 'hooks.json'), 'utf8'));
        const commands = Object.values(hooks.hooks || {}).flatMap((gs) => gs.flatMap((g) => (g.hooks || []).map((h) => h.command)));
        return [ctx.check("every hook command Codex runs carries --planning", commands.length > 0 && commands.every((c) => c.endsWith(PLANNING_FLAG)), JSON.stringify(commands))];
      }
      // Every model request of the approval turn: the first one already carries the planned agent
      // line in this prompt's context, and none is treated as planning again.
      const contexts = ctx.turns.map((t) => promptContext(ctx.host, t.body));
      const runs = analyticsRuns(ctx.ws).filter((r) => r.event === 'UserPromptSubmit');
      const last = runs[runs.length - 1] || {};
      return [
        ctx.check('the approval turn\'s first model request gets the carried-forward agent line', contexts[0]?.includes(PLANNED), excerpt(contexts[0])),
        ctx.check('no request of the approval turn is told it is planning', contexts.every((c) => !c.includes(PLANNING_HINT)), excerpt(contexts.join('\n---\n'))),
        ctx.check("the hook's analytics: the plan was a planning run, the approval an execution run that applied it", runs.length === 2 && runs[0].planning === true && last.planning === false && last.carryForward === true, JSON.stringify(runs.map((r) => [r.event, r.planning, r.carryForward]))),
      ];
    },
  });
}


// Copilot CLI: after `install`, the task tool offers the five generated `.github/agents/<role>.agent.md`
// roles under agent_type, and a call with the recommended one starts that role: the child's model
// requests carry the role's own instructions (the body of the generated file) and the brief, the hook
// runs for the child's prompt, and the child's reply comes back as the tool result.
const COPILOT_BRIEF = 'Brief: read-only analysis of ticket 123 (e2e child).';
const ROLE_BODY = 'You are a technical analyst. Combine the sources you are given into a brief';
SCENARIOS.push({
  name: 'agents-task-copilot',
  hosts: ['copilot'],
  steps: [{ prompt: ANALYST }],
  expect: { prompt: ['agent=technical_analyst', 'task tool with agent_type="technical_analyst"'] },
  script: (request, turn) =>
    turn === 0
      ? { toolCall: { name: 'task', args: { agent_type: 'technical_analyst', description: 'Analyse ticket 123', prompt: COPILOT_BRIEF, name: 'e2e-analyst' } } }
      : undefined,
  checks: (ctx) => {
    const first = ctx.turns[0]?.body;
    const tool = toolNamed(first, ['task']);
    const types = tool?.parameters?.properties?.agent_type?.enum || [];
    const roleFile = fs.readFileSync(path.join(ctx.ws.project, '.github', 'agents', 'technical_analyst.agent.md'), 'utf8');
    // The child's requests: the brief in a user message (the parent has it only in its task call).
    const children = ctx.turns.filter((t) => (t.body?.input || []).some((i) => i.role === 'user' && JSON.stringify(i.content).includes(COPILOT_BRIEF)));
    const all = ctx.turns.flatMap((t) => ctx.host.toolResults(t.body));
    const runs = analyticsRuns(ctx.ws).filter((r) => (r.reasons || []).includes('subagent-originated-prompt'));
    return [
      ctx.check('task offers agent_type with the five roles', FIVE_ROLES.every((r) => types.includes(r)), JSON.stringify(types)),
      ctx.check('the generated role file carries the instructions the child must get', roleFile.includes(ROLE_BODY), roleFile.slice(0, 400)),
      ctx.check(
        "the child runs as the generated role: its requests carry the role's instructions and the brief",
        children.length > 0 && children.every((t) => JSON.stringify(t.body).includes(ROLE_BODY)),
        `${children.length} child request(s) of ${ctx.turns.length}; instructions: ${excerpt(children[0]?.body?.instructions, 400)}`,
      ),
      // The generated role lists its tools (every model family's names; the CLI drops the ones the
      // session's model lacks): the read-only analyst's child is offered viewing and searching only.
      (() => {
        const offered = [...new Set(children.flatMap((t) => (t.body?.tools || []).map((x) => x.name)))];
        return ctx.check(
          "the child is offered only the role's read-only tools",
          offered.includes('view') && offered.every((n) => ['view', 'rg', 'grep', 'glob'].includes(n)),
          JSON.stringify(offered),
        );
      })(),
      ctx.check("the parent's own requests do not carry the role's instructions", ctx.turns.filter((t) => !children.includes(t)).every((t) => !JSON.stringify(t.body).includes(ROLE_BODY)), `${ctx.turns.length - children.length} parent request(s)`),
      ctx.check("the hook ran for the child's prompt", runs.length > 0, JSON.stringify(analyticsRuns(ctx.ws).map((r) => [r.event, r.reasons]))),
      ctx.check('task with the recommended agent_type returns the child\'s reply, no error', all.length > 0 && all.some((r) => r.output.includes(DEFAULT_REPLY)) && !all.some((r) => looksFailed(r.output)), JSON.stringify(all).slice(0, 800)),
      // The generated roles pin no model id: the child asks for the session's model.
      ctx.check('the spawned child inherits the session model (no pinned model id)', children.length > 0 && ctx.turns.every((t) => t.body?.model === 'gpt-5.4'), JSON.stringify(ctx.turns.map((t) => t.body?.model))),
    ];
  },
});
