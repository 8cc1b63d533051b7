// Small text helpers shared by the host drivers and the checks.

import fs from 'node:fs';

/**
 * A JSON Lines file (the hook's analytics log), a value a line, `[]` when missing; a line that is
 * not JSON is kept as `{unparsed: <its first 200 characters>}`, never thrown on.
 */
export function readJsonLines(file) {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      try {
        return JSON.parse(l);
      } catch {
        return { unparsed: l.slice(0, 200) };
      }
    });
}

/** Every string leaf of a JSON value, in document order. */
export function strings(value, out = []) {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, out);
  return out;
}

/** How many times `needle` occurs in `text` (non-overlapping). */
export function occurrences(text, needle) {
  if (!needle) return 0;
  let n = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) n++;
  return n;
}

/** Occurrences of `needle` over every string leaf of a JSON value. */
export function countIn(value, needle) {
  return strings(value).reduce((n, s) => n + occurrences(s, needle), 0);
}

/** The text of a message `content` that is a string or an array of typed parts. */
export function contentText(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p) => (typeof p === 'string' ? p : typeof p?.text === 'string' ? p.text : ''))
    .join('\n');
}

/** Canonical JSON: object keys sorted, no whitespace (what Codex hashes for hook trust). */
export function canonicalJson(v) {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

export function snakeCase(name) {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}
