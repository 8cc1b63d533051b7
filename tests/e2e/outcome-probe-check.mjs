// The outcome probe's judge can fail: `outcomeProblems` (tests/e2e/outcome-probe.mjs) is given the
// analytics lines a right session writes, then each of them with one fault planted — a line missing,
// a line more, a wrong outcome, another role, text in a line, a step short — and must pass the first
// and fail every other. No host runs; .ci/run runs it before the probe. Prints `N passed, N failed`.

import { outcomeProblems, STEPS } from './outcome-probe.mjs';

const L = (hint, outcome, extra = {}) => ({ ts: '2026-12-07T10:00:00.000Z', event: 'hint-outcome', host: 'claude', hint, outcome, ...extra });
const run = { ts: '2026-12-07T10:00:00.000Z', event: 'UserPromptSubmit', host: 'claude', outcome: 'injected' };
const h = 'project:3a1891cc20ed';
// What a right claude session writes at each step (the lines of the step before's outcome, then the run).
const right = () => [
  [run],
  [L('skill', 'followed', { named: h }), run],
  [L('skill', `other:${h}`, { named: 'project:aaaaaaaaaaaa' }), L('skill', `unnamed:${h}`), run],
  [L('skill', 'ignored', { named: h }), run],
  [L('delegation', 'spawned:technical_analyst', { named: 'technical_analyst' }), run],
  [L('delegation', 'spawned:scout', { named: 'technical_analyst' }), run],
  [L('delegation', 'not-spawned', { named: 'technical_analyst' }), run],
];

const faults = {
  'a line missing': (s) => s[1].splice(0, 1),
  'a line more': (s) => s[4].unshift(L('skill', 'ignored', { named: h })),
  'a wrong outcome': (s) => (s[3][0].outcome = 'followed'),
  'another role spawned': (s) => (s[5][0].outcome = 'spawned:technical_analyst'),
  'not-spawned where one was': (s) => (s[4][0].outcome = 'not-spawned'),
  'text in a line': (s) => (s[1][0].named = 'e2e-invoice-parser'),
  'a step short': (s) => s.pop(),
  'no line at all (the hook printed nothing)': (s) => s.forEach((lines) => lines.splice(0, lines.length)),
};

let passed = 0;
let failed = 0;
const say = (ok, what) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'}  ${what}`);
  ok ? passed++ : failed++;
};
if (right().length !== STEPS.length) say(false, `the right session has ${right().length} steps, STEPS ${STEPS.length}`);
const clean = outcomeProblems('claude', right());
say(clean.length === 0, `a right session passes${clean.length ? `: ${clean.join('; ')}` : ''}`);
for (const [what, plant] of Object.entries(faults)) {
  const s = right();
  plant(s);
  say(outcomeProblems('claude', s).length > 0, `fails with ${what}`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
