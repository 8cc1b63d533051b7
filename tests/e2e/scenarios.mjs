// The scenarios of the end-to-end suite: one entry per scenario. To add one, append an object:
//
//   name        unique, kebab-case; `tests/e2e/run NAME` runs only the scenarios whose name contains NAME
//   hosts       the hosts it runs on (default: all of lib/hosts.mjs)
//   files       the project's files, path → content (default: DEFAULT_FILES, an AGENTS.md with a marker)
//   steps       [{prompt, resume?}]: one non-interactive host run each; `resume: true` continues the
//               previous session (codex exec resume --last, claude --continue, gemini --resume latest)
//   expect      per step (or one object for every step): strings that must arrive in the prompt's hook
//               context (`prompt`), and strings that must appear nowhere in the request (`absent`)
//   script      optional (request, turn, hostName, ws) => reply for the mock model: {text} or
//               {toolCall: {name, args}} (see lib/mock.mjs); turn 0 is the first conversation request of
//               the scenario; ws.project is the project's absolute path
//   checks      optional (ctx) => [{name, ok, detail}] extra checks; ctx is described in suite.mjs
//
// Every scenario also gets the standard checks of suite.mjs: the host ran the hook without error, the
// SessionStart bootstrap arrived exactly once, AGENTS.md exactly once, no routing block twice, and the
// prompt's own text never inside a hook block.

export const AGENTS_MARKER = 'E2E-AGENTS-MD-7f3a: project rule from AGENTS.md';
export const CLAUDE_MARKER = 'E2E-CLAUDE-MD-91c2: project rule from CLAUDE.md';
export const DEFAULT_FILES = { 'AGENTS.md': `# Project rules\n\n${AGENTS_MARKER}\n` };
const TOOL_MARKER = 'E2E-TOOL-RESULT-5d1e';

// A read-only tool call each host runs without asking, for the tool round trip.
const READ_NOTES = {
  codex: () => ({ name: 'exec_command', args: { cmd: 'cat notes.txt' } }),
  claude: (ws) => ({ name: 'Read', args: { file_path: `${ws.project}/notes.txt` } }),
  gemini: (ws) => ({ name: 'read_file', args: { file_path: `${ws.project}/notes.txt` } }),
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

export const SCENARIOS = [
  {
    name: 'quick-sql',
    steps: [{ prompt: '!quick spiegami questa SQL: SELECT 1' }],
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
    // Codex and Gemini CLI read `.agents/skills` of the project.
    name: 'installed-skill-agents-folder',
    hosts: ['codex', 'gemini'],
    files: { ...DEFAULT_FILES, '.agents/skills/e2e-invoice-parser/SKILL.md': INVOICE_SKILL },
    steps: [{ prompt: INVOICE_PROMPT }],
    expect: { prompt: [INVOICE_HINT], absent: ['skill=mcp-'] },
  },
  {
    // Claude Code reads `.claude/skills` of the project.
    name: 'installed-skill-claude-folder',
    hosts: ['claude'],
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
];
