/**
 * Value semantics shared by the evaluator and the functions: Java-like number rendering, three-valued
 * comparisons, and the wildcard / regex matchers (the core's linear-time wildcard and Lucene regexp matchers).
 */
import { LuceneRegexp, wildcardMatcher, type StringMatcher } from '@strata/core-common';

export type Value = string | number | boolean | null;

/** Java's Double.toString for the values EQL prints (`5.0`, `7.5`, `1.0E21`) */
export function javaDouble(d: number): string {
  if (Number.isNaN(d)) return 'NaN';
  if (!Number.isFinite(d)) return d > 0 ? 'Infinity' : '-Infinity';
  if (d === 0) return Object.is(d, -0) ? '-0.0' : '0.0';
  const a = Math.abs(d);
  if (a >= 1e-3 && a < 1e7) {
    const s = String(d);
    return s.includes('.') ? s : `${s}.0`;
  }
  const [m, exp] = d.toExponential().split('e') as [string, string];
  const mant = m.includes('.') ? m : `${m}.0`;
  return `${mant}E${Number(exp)}`;
}

/** a value as EQL's string() / concat() render it; `isDouble` marks numbers typed as floating point */
export function valueToString(v: Value, isDouble = false): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return isDouble ? javaDouble(v) : Number.isInteger(v) ? String(v) : javaDouble(v);
  return String(v);
}

/** QL Comparisons.compare: numbers numerically, same-kind values naturally, anything else not comparable */
export function compareValues(l: Value, r: Value): number | null {
  if (l === null || r === null) return null;
  if (typeof l === 'number' && typeof r === 'number') return l < r ? -1 : l > r ? 1 : l === r ? 0 : null;
  if (typeof l === 'string' && typeof r === 'string') return l < r ? -1 : l > r ? 1 : 0;
  if (typeof l === 'boolean' && typeof r === 'boolean') return l === r ? 0 : l ? 1 : -1;
  return null;
}

/** semantic version ordering (the `version` field type): numeric parts, then a pre-release sorts first */
export function compareVersions(a: string, b: string): number {
  const parse = (s: string): { nums: number[]; pre: string | null; valid: boolean } => {
    const m = /^(\d+(?:\.\d+)*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(s);
    if (!m) return { nums: [], pre: null, valid: false };
    return { nums: m[1]!.split('.').map(Number), pre: m[2] ?? null, valid: true };
  };
  const x = parse(a);
  const y = parse(b);
  if (!x.valid || !y.valid) {
    if (x.valid !== y.valid) return x.valid ? -1 : 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  for (let i = 0; i < Math.max(x.nums.length, y.nums.length); i++) {
    const d = (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  if (x.pre === y.pre) return 0;
  if (x.pre === null) return 1;
  if (y.pre === null) return -1;
  return x.pre < y.pre ? -1 : 1;
}

/** an EQL wildcard pattern (`*` any run, `?` one character; everything else literal) as Lucene wildcard syntax */
export function eqlWildcardToLucene(pattern: string): string {
  return pattern.replace(/\\/g, '\\\\');
}

export function hasWildcard(pattern: string): boolean {
  return pattern.includes('*') || pattern.includes('?');
}

const wildcardCache = new Map<string, StringMatcher>();

/** an EQL wildcard pattern as a whole-string matcher (the core's linear wildcard matcher) */
export function eqlWildcardMatcher(pattern: string, ci: boolean): StringMatcher {
  const key = (ci ? 'i:' : 's:') + pattern;
  let m = wildcardCache.get(key);
  if (!m) {
    m = wildcardMatcher(eqlWildcardToLucene(pattern), ci);
    if (wildcardCache.size > 1000) wildcardCache.clear();
    wildcardCache.set(key, m);
  }
  return m;
}

const regexCache = new Map<string, StringMatcher>();

/** an EQL `regex` pattern (Lucene regexp syntax, as Elasticsearch runs it) as a whole-string matcher */
export function regexMatcher(pattern: string, ci: boolean): StringMatcher {
  const key = (ci ? 'i:' : 's:') + pattern;
  let m = regexCache.get(key);
  if (!m) {
    const re = LuceneRegexp.compile(pattern, { caseInsensitive: ci });
    m = { test: (s) => re.matches(s) };
    if (regexCache.size > 1000) regexCache.clear();
    regexCache.set(key, m);
  }
  return m;
}

/** Java's String.toLowerCase(Locale.ROOT) equivalent for case-insensitive operators */
export function lower(s: string): string {
  return s.toLowerCase();
}
