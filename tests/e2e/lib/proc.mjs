// Stop whatever a host left running: some hosts start detached helpers in a session of their own (the
// Codex TUI starts a `codex app-server` daemon from its CODEX_HOME), which outlive the host's process
// group. Every process whose command line names the scenario's work directory is ours to stop.

import fs from 'node:fs';

/** SIGKILL every process (but this one) whose command line contains `dir`; returns how many. */
export function killStragglers(dir) {
  let n = 0;
  let entries = [];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return 0; // no /proc: nothing we can find this way
  }
  for (const pid of entries) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    let cmd = '';
    try {
      cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!cmd.includes(dir)) continue;
    try {
      process.kill(Number(pid), 'SIGKILL');
      n++;
    } catch {}
  }
  return n;
}
