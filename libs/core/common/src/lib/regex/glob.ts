/**
 * Wildcard patterns without backtracking: Elasticsearch's `Regex.simpleMatch` (`*` only: index names,
 * setting keys, field names) matched greedily with one remembered star (no exponential case), and the
 * `wildcard` query's `*`, `?` and `\` escapes compiled for the linear-time automaton.
 */
import { UserRegex } from './user-regex.js';

/** `*` matches any run of characters, everything else stands for itself (greedy, no backtracking) */
export function simpleMatch(pattern: string, value: string): boolean {
  if (!pattern.includes('*')) return pattern === value;
  const parts = pattern.split('*');
  if (!value.startsWith(parts[0])) return false;
  let pos = parts[0].length;
  for (let i = 1; i < parts.length - 1; i++) {
    const idx = value.indexOf(parts[i], pos);
    if (idx < 0) return false;
    pos = idx + parts[i].length;
  }
  const last = parts[parts.length - 1];
  return value.length - pos >= last.length && value.endsWith(last);
}

/** a `simpleMatch` pattern as a matcher object (for call sites that hold a `{ test }`) */
export interface StringMatcher {
  test(s: string): boolean;
}

export function simpleMatcher(pattern: string): StringMatcher {
  if (!pattern.includes('*')) return { test: (s) => s === pattern };
  return { test: (s) => simpleMatch(pattern, s) };
}

/** the literal prefix of a wildcard pattern (up to the first `*` or `?`) */
export function wildcardPrefix(pattern: string): string {
  let prefix = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\' && i + 1 < pattern.length) prefix += pattern[++i];
    else if (c === '*' || c === '?') return prefix;
    else prefix += c;
  }
  return prefix;
}

/** the `wildcard` query's pattern (`*`, `?`, `\` escapes) as a whole-string matcher */
export function wildcardMatcher(pattern: string, caseInsensitive = false): StringMatcher {
  let src = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\' && i + 1 < pattern.length) {
      const cp = pattern.codePointAt(++i)!;
      src += quote(String.fromCodePoint(cp));
      if (cp > 0xffff) i++;
    } else if (c === '*') src += '.*';
    else if (c === '?') src += '.';
    else {
      const cp = pattern.codePointAt(i)!;
      src += quote(String.fromCodePoint(cp));
      if (cp > 0xffff) i++;
    }
  }
  const re = UserRegex.fromRe2Source(pattern, `(?s${caseInsensitive ? 'i' : ''}:${src})`);
  return { test: (s) => re.matches(s) };
}

function quote(ch: string): string {
  const cp = ch.codePointAt(0)!;
  if (cp < 0x20 || cp === 0x7f) return `\\x{${cp.toString(16)}}`;
  return /[\\^$.*+?()[\]{}|/\- #]/.test(ch) ? '\\' + ch : ch;
}
