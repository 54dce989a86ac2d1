/**
 * Lucene's RegExp syntax (the `regexp` query, `query_string` `/…/`, terms-aggregation include/exclude,
 * security patterns), always anchored to the whole term, run on the linear-time automaton of
 * {@link UserRegex}. Operators: `. ? + * {n,m} | ( ) [ ] [^ ]`, `"…"` literals, `\` escapes (`\d \s \w`
 * and their negations as classes), and the optional ones selected by `flags` (default ALL): `@` any
 * string, `#` the empty language, `<n-m>` numeric intervals, `&` intersection and `~` complement
 * (both at the top level of the pattern; elsewhere they stand for themselves). `^` and `$` are literals.
 */
import { RegexSyntaxError, UserRegex } from './user-regex.js';

export const LUCENE_REGEXP_FLAGS: Readonly<Record<string, number>> = {
  NONE: 0,
  INTERSECTION: 0x01,
  COMPLEMENT: 0x02,
  EMPTY: 0x04,
  ANYSTRING: 0x08,
  INTERVAL: 0x20,
  ALL: 0xff,
};

export interface LuceneRegexpOptions {
  caseInsensitive?: boolean;
  /** `ALL|ANYSTRING|...` names (the query's `flags`) or their numeric value (`flags_value`) */
  flags?: string | number;
}

/** the numeric value of a `flags` string (`INTERSECTION|COMPLEMENT`); unknown names throw */
export function luceneRegexpFlags(flags: string | number | undefined): number {
  if (flags === undefined || flags === '') return LUCENE_REGEXP_FLAGS['ALL'];
  if (typeof flags === 'number') return flags;
  let v = 0;
  for (const raw of flags.split('|')) {
    const name = raw.trim().toUpperCase();
    if (name === '') continue;
    const f = LUCENE_REGEXP_FLAGS[name];
    if (f === undefined) throw new RegexSyntaxError(`Unknown regexp flag [${raw.trim()}]`);
    v |= f;
  }
  return v;
}

type Node = { kind: 'or'; of: Node[] } | { kind: 'and'; of: Node[] } | { kind: 'not'; of: Node } | { kind: 're'; re: UserRegex };

/** A compiled Lucene regexp: `matches(term)` is true when the whole term is in the language. */
export class LuceneRegexp {
  private constructor(
    readonly source: string,
    private readonly root: Node,
  ) {}

  static compile(pattern: string, options: LuceneRegexpOptions = {}): LuceneRegexp {
    const flags = luceneRegexpFlags(options.flags);
    const ci = options.caseInsensitive === true;
    const operand = (p: string): Node => {
      if (flags & LUCENE_REGEXP_FLAGS['COMPLEMENT'] && p.startsWith('~') && isSingleAtom(p.slice(1))) {
        return { kind: 'not', of: operand(p.slice(1)) };
      }
      const src = luceneToRe2(p, flags);
      return { kind: 're', re: UserRegex.fromRe2Source(p, ci ? `(?i:${src})` : src) };
    };
    let root: Node;
    if (flags & LUCENE_REGEXP_FLAGS['INTERSECTION'] && splitTopLevel(pattern, '&').length > 1) {
      const alts = splitTopLevel(pattern, '|').map((a) => {
        const parts = splitTopLevel(a, '&');
        return parts.length === 1 ? operand(a) : ({ kind: 'and', of: parts.map(operand) } as Node);
      });
      root = alts.length === 1 ? alts[0] : { kind: 'or', of: alts };
    } else root = operand(pattern);
    return new LuceneRegexp(pattern, root);
  }

  matches(term: string): boolean {
    return evalNode(this.root, term);
  }
}

function evalNode(n: Node, s: string): boolean {
  switch (n.kind) {
    case 're':
      return n.re.matches(s);
    case 'not':
      return !evalNode(n.of, s);
    case 'and':
      return n.of.every((x) => evalNode(x, s));
    case 'or':
      return n.of.some((x) => evalNode(x, s));
  }
}

/** one parenthesised group, class, literal or character (what a prefix `~` applies to) */
function isSingleAtom(p: string): boolean {
  if (p.length === 0) return false;
  if (p.startsWith('(') || p.startsWith('[') || p.startsWith('"')) {
    const close = p[0] === '(' ? ')' : p[0] === '[' ? ']' : '"';
    const parts = splitTopLevel(p, '\u0000');
    return parts.length === 1 && p.endsWith(close) && matchingEnd(p) === p.length - 1;
  }
  if (p.startsWith('\\')) return p.length === 2;
  return [...p].length === 1;
}

function matchingEnd(p: string): number {
  let depth = 0;
  let inClass = false;
  let inQuote = false;
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inQuote) {
      if (c === '"') {
        inQuote = false;
        if (depth === 0) return i;
      }
      continue;
    }
    if (inClass) {
      if (c === ']') {
        inClass = false;
        if (depth === 0) return i;
      }
      continue;
    }
    if (c === '"') inQuote = true;
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return -1;
}

/** splits on an operator outside brackets, parentheses, quotes and escapes */
function splitTopLevel(p: string, op: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let inClass = false;
  let inQuote = false;
  let cur = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\' && i + 1 < p.length) {
      cur += c + p[++i];
      continue;
    }
    if (inQuote) {
      if (c === '"') inQuote = false;
    } else if (inClass) {
      if (c === ']') inClass = false;
    } else if (c === '"') inQuote = true;
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === op && depth === 0) {
      out.push(cur);
      cur = '';
      continue;
    }
    cur += c;
  }
  out.push(cur);
  return out;
}

function quoteRe2(s: string): string {
  let out = '';
  for (const ch of s) out += literal(ch);
  return out;
}

function literal(ch: string): string {
  const cp = ch.codePointAt(0)!;
  if (cp < 0x20 || cp === 0x7f) return `\\x{${cp.toString(16)}}`;
  return /[\\^$.*+?()[\]{}|/\-&~#@<>" ]/.test(ch) ? '\\' + ch : ch;
}

const CLASS_ESCAPES: Record<string, string> = { d: '\\d', D: '\\D', s: '\\s', S: '\\S', w: '\\w', W: '\\W' };

/** Lucene regexp syntax → RE2 syntax (anchoring is done by the whole-string match) */
export function luceneToRe2(p: string, flags = LUCENE_REGEXP_FLAGS['ALL']): string {
  let out = '';
  let depth = 0;
  let lastWasAtom = false;
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') {
      if (i + 1 >= p.length) throw new RegexSyntaxError(`expected character after \\ at position ${i}`);
      const n = p[++i];
      out += CLASS_ESCAPES[n] ?? literal(String.fromCodePoint(p.codePointAt(i)!));
      if (p.codePointAt(i)! > 0xffff) i++;
      lastWasAtom = true;
      continue;
    }
    if (c === '"') {
      const end = p.indexOf('"', i + 1);
      if (end < 0) throw new RegexSyntaxError(`expected '"' at position ${p.length}`);
      out += `(?:${quoteRe2(p.slice(i + 1, end))})`;
      i = end;
      lastWasAtom = true;
      continue;
    }
    if (c === '[') {
      let j = i + 1;
      let cls = '[';
      if (p[j] === '^') {
        cls += '^';
        j++;
      }
      let first = true;
      for (;;) {
        if (j >= p.length) throw new RegexSyntaxError(`expected ']' at position ${p.length}`);
        const d = p[j];
        if (d === ']' && !first) break;
        first = false;
        if (d === '\\' && j + 1 < p.length) {
          const e = p[j + 1];
          cls += CLASS_ESCAPES[e] ?? literal(e);
          j += 2;
          continue;
        }
        if (d === '-' && cls.length > 1 && p[j + 1] !== ']') {
          cls += '-';
          j++;
          continue;
        }
        const cp = p.codePointAt(j)!;
        cls += literal(String.fromCodePoint(cp));
        j += cp > 0xffff ? 2 : 1;
      }
      out += cls + ']';
      i = j;
      lastWasAtom = true;
      continue;
    }
    if (c === '(') {
      depth++;
      out += '(?:';
      lastWasAtom = false;
      continue;
    }
    if (c === ')') {
      if (depth === 0) throw new RegexSyntaxError(`unexpected ')' at position ${i}`);
      depth--;
      out += ')';
      lastWasAtom = true;
      continue;
    }
    if (c === '*' || c === '+' || c === '?') {
      if (!lastWasAtom) {
        out += '\\' + c;
        lastWasAtom = true;
        continue;
      }
      out += c;
      continue;
    }
    if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i));
      if (m && lastWasAtom) {
        if (Number(m[1]) > 1000 || (m[3] && Number(m[3]) > 1000)) throw new RegexSyntaxError(`repetition count too large in [${m[0]}] (at most 1000)`);
        if (m[3] && Number(m[3]) < Number(m[1])) throw new RegexSyntaxError(`invalid repetition [${m[0]}]`);
        out += m[0];
        i += m[0].length - 1;
        continue;
      }
      if (m === null && lastWasAtom) throw new RegexSyntaxError(`integer expected at position ${i + 1}`);
    }
    if (c === '|') {
      out += '|';
      lastWasAtom = false;
      continue;
    }
    if (c === '.') {
      out += '(?s:.)';
      lastWasAtom = true;
      continue;
    }
    if (c === '@' && flags & LUCENE_REGEXP_FLAGS['ANYSTRING']) {
      out += '(?s:.*)';
      lastWasAtom = true;
      continue;
    }
    if (c === '#' && flags & LUCENE_REGEXP_FLAGS['EMPTY']) {
      out += '[^\\x{0}-\\x{10FFFF}]';
      lastWasAtom = true;
      continue;
    }
    if (c === '<' && flags & LUCENE_REGEXP_FLAGS['INTERVAL']) {
      const m = /^<(\d+)-(\d+)>/.exec(p.slice(i));
      if (m) {
        out += `(?:${intervalRe2(m[1], m[2])})`;
        i += m[0].length - 1;
        lastWasAtom = true;
        continue;
      }
    }
    const cp = p.codePointAt(i)!;
    out += literal(String.fromCodePoint(cp));
    if (cp > 0xffff) i++;
    lastWasAtom = true;
  }
  if (depth > 0) throw new RegexSyntaxError(`expected ')' at position ${p.length}`);
  return out;
}

/** Lucene's decimal interval: fixed width (zero-padded) when the bounds are written with equal length and a leading zero */
function intervalRe2(a: string, b: string): string {
  let lo = BigInt(a);
  let hi = BigInt(b);
  if (lo > hi) [lo, hi] = [hi, lo];
  const fixed = a.length === b.length && a.length > 1 && (a[0] === '0' || b[0] === '0') ? a.length : 0;
  const body = rangeRegex(lo, hi, fixed);
  return fixed ? body : `0*(?:${body})`;
}

/** a regex for the decimal numbers lo..hi (no leading zeros unless width pads them) */
function rangeRegex(lo: bigint, hi: bigint, width: number): string {
  const parts: string[] = [];
  const pad = (s: string): string => (width ? s.padStart(width, '0') : s);
  const emit = (from: bigint, to: bigint): void => {
    // from..to share every digit but a trailing run where from has 0s and to has 9s
    const f = pad(from.toString());
    const t = pad(to.toString());
    let r = '';
    for (let k = 0; k < f.length; k++) r += f[k] === t[k] ? f[k] : `[${f[k]}-${t[k]}]`;
    parts.push(r);
  };
  let cur = lo;
  while (cur <= hi) {
    // the largest block [cur, cur + 10^k - 1] aligned at cur that stays within hi
    let step = 1n;
    while (cur % (step * 10n) === 0n && cur + step * 10n - 1n <= hi) step *= 10n;
    const end = cur + step - 1n;
    if (pad(cur.toString()).length === pad(end.toString()).length) emit(cur, end);
    else {
      emit(cur, cur);
    }
    cur = end + 1n;
    if (parts.length > 2000) throw new RegexSyntaxError('numeric interval too large');
  }
  return parts.join('|');
}
