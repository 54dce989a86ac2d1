/**
 * The one regular-expression implementation every user-supplied pattern goes through: `regexp` and
 * `query_string` regex queries, terms-aggregation include/exclude, grok, gsub and the other ingest
 * processors, Painless `=~`/`==~`, security patterns.
 *
 * Patterns run on re2js (RE2's automaton: linear time in the input, whatever the pattern; lookbehinds
 * included). Only patterns that need a backtracking engine — lookaheads and back-references, which no
 * automaton can run — go to JavaScript's engine, and only after a static analysis (scslre) finds no
 * super-linear backtracking in them (nested or adjacent quantifiers over the same characters);
 * otherwise the pattern is refused with an error. Atomic groups and possessive quantifiers keep their
 * Java meaning there, which is what makes the grok library's own patterns safe.
 */
import { RE2JS } from 're2js';
import { analyse } from 'scslre';
import { LRUCache } from 'lru-cache';
import { RegexSyntaxError, translateJavaRegex, type TranslatedPattern } from './java-syntax.js';

export { RegexSyntaxError } from './java-syntax.js';

/** one match: `groups[0]` is the whole match, `groups[k]` the k-th capture group (undefined if it did not take part) */
export interface RegexMatch {
  index: number;
  end: number;
  groups: Array<string | undefined>;
  /** named groups by name */
  named: Record<string, string | undefined>;
}

export interface UserRegexOptions {
  /** Java/Painless flag letters: i (case insensitive), m (multiline), s (dotall), x (comments), l (literal), u, U, c */
  flags?: string;
}

type Engine =
  | { kind: 're2'; re: RE2JS }
  | { kind: 'js'; re: RegExp };

/** A compiled user regular expression (Java syntax). */
export class UserRegex {
  /** names of the capture groups in order (undefined for numbered ones) */
  readonly groupNames: ReadonlyArray<string | undefined>;
  /** true when the pattern runs on the linear-time automaton */
  readonly linear: boolean;
  private readonly engine: Engine;
  private readonly jsGroupIndex: number[];

  private constructor(
    readonly source: string,
    t: TranslatedPattern,
  ) {
    this.groupNames = t.groups;
    this.jsGroupIndex = t.jsGroupIndex;
    if (t.re2 !== undefined) {
      let re: RE2JS;
      try {
        re = RE2JS.compile(t.re2, RE2JS.LOOKBEHINDS);
      } catch (e) {
        throw new RegexSyntaxError(re2Message(e));
      }
      this.engine = { kind: 're2', re };
      this.linear = true;
      return;
    }
    let re: RegExp;
    try {
      re = new RegExp(t.js, t.jsFlags + 'g');
    } catch (e) {
      throw new RegexSyntaxError((e as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, ''));
    }
    assertNoSuperLinearBacktracking(re, source, t.needsBacktracking ?? 'backtracking construct');
    this.engine = { kind: 'js', re };
    this.linear = false;
  }

  /** compiles a Java-syntax pattern (cached); throws {@link RegexSyntaxError} */
  static java(pattern: string, options: UserRegexOptions = {}): UserRegex {
    const key = (options.flags ?? '') + '\u0000' + pattern;
    let re = CACHE.get(key);
    if (!re) {
      re = new UserRegex(pattern, translateJavaRegex(pattern, options.flags ?? ''));
      CACHE.set(key, re);
    }
    return re;
  }

  /** compiles an RE2-syntax source produced by this module (Lucene regexps, wildcards) */
  static fromRe2Source(source: string, re2: string): UserRegex {
    const key = '\u0001' + re2;
    let re = CACHE.get(key);
    if (!re) {
      re = new UserRegex(source, { re2, js: '', jsFlags: '', groups: [], jsGroupIndex: [] });
      CACHE.set(key, re);
    }
    return re;
  }

  /** true when the pattern matches somewhere in `s` (Java `Matcher.find`, Painless `=~`) */
  test(s: string): boolean {
    if (this.engine.kind === 're2') return this.engine.re.test(s);
    this.engine.re.lastIndex = 0;
    return this.engine.re.test(s);
  }

  /** true when the pattern matches the whole of `s` (Java `Matcher.matches`, Painless `==~`) */
  matches(s: string): boolean {
    if (this.engine.kind === 're2') return this.engine.re.testExact(s);
    const whole = wholeMatchRegExp(this.engine.re);
    whole.lastIndex = 0;
    return whole.test(s);
  }

  /** the first match at or after `from` */
  exec(s: string, from = 0): RegexMatch | null {
    if (from > s.length) return null;
    if (this.engine.kind === 'js') {
      const re = this.engine.re;
      re.lastIndex = from;
      const r = re.exec(s);
      return r ? this.fromJs(r) : null;
    }
    const m = this.engine.re.matcher(s);
    if (!m.find(from)) return null;
    const groups: Array<string | undefined> = [m.group(0) ?? ''];
    for (let g = 1; g <= this.groupNames.length; g++) groups.push(m.group(g) ?? undefined);
    return this.withNames({ index: m.start(0), end: m.end(0), groups, named: {} });
  }

  private fromJs(r: RegExpExecArray): RegexMatch {
    const groups: Array<string | undefined> = [r[0]];
    for (const idx of this.jsGroupIndex) groups.push(r[idx]);
    return this.withNames({ index: r.index, end: r.index + r[0].length, groups, named: {} });
  }

  private withNames(m: RegexMatch): RegexMatch {
    this.groupNames.forEach((name, k) => {
      if (name !== undefined) m.named[name] = m.groups[k + 1];
    });
    return m;
  }

  /** every non-overlapping match, left to right (an empty match advances by one character) */
  *matchAll(s: string): Generator<RegexMatch> {
    let from = 0;
    while (from <= s.length) {
      const m = this.exec(s, from);
      if (!m) return;
      yield m;
      from = m.end > m.index ? m.end : m.end + (codePointWidth(s, m.end) || 1);
    }
  }

  /**
   * Java `Matcher.replaceAll`/`replaceFirst`: `$n` and `${name}` insert groups, `\x` is a literal x; a
   * function replacement gets the match.
   */
  replace(s: string, replacement: string | ((m: RegexMatch) => string), all = true): string {
    let out = '';
    let last = 0;
    for (const m of this.matchAll(s)) {
      out += s.slice(last, m.index) + (typeof replacement === 'string' ? expandReplacement(replacement, m, this.groupNames) : replacement(m));
      last = m.end;
      if (!all) break;
    }
    return out + s.slice(last);
  }

  /** Java `String.split(regex, limit)`: limit 0 drops trailing empty strings; a leading empty match is skipped */
  split(s: string, limit = 0): string[] {
    const out: string[] = [];
    let last = 0;
    for (const m of this.matchAll(s)) {
      if (limit > 0 && out.length === limit - 1) break;
      if (m.end === 0) continue; // zero-width match at the beginning never produces a leading empty string
      if (m.index === m.end && m.index >= s.length) break;
      out.push(s.slice(last, m.index));
      last = m.end;
    }
    out.push(s.slice(last));
    if (limit === 0) while (out.length > 1 && out[out.length - 1] === '') out.pop();
    if (limit === 0 && out.length === 1 && out[0] === '' && s.length > 0) return [];
    return out;
  }
}

const CACHE = new LRUCache<string, UserRegex>({ max: 1000 });

const WHOLE = new WeakMap<RegExp, RegExp>();
function wholeMatchRegExp(re: RegExp): RegExp {
  let w = WHOLE.get(re);
  if (!w) {
    w = new RegExp(`(?<![\\s\\S])(?:${re.source})(?![\\s\\S])`, re.flags.replace(/[gy]/g, ''));
    WHOLE.set(re, w);
  }
  return w;
}

function codePointWidth(s: string, i: number): number {
  const c = s.codePointAt(i);
  return c === undefined ? 0 : c > 0xffff ? 2 : 1;
}

function expandReplacement(rep: string, m: RegexMatch, names: ReadonlyArray<string | undefined>): string {
  let out = '';
  for (let i = 0; i < rep.length; i++) {
    const c = rep[i];
    if (c === '\\') {
      i++;
      if (i < rep.length) out += rep[i];
      continue;
    }
    if (c === '$') {
      if (rep[i + 1] === '{') {
        const end = rep.indexOf('}', i + 2);
        const name = end < 0 ? '' : rep.slice(i + 2, end);
        const k = names.indexOf(name);
        if (end < 0 || k < 0) throw new RegexSyntaxError(`No group with name {${name}}`);
        out += m.groups[k + 1] ?? '';
        i = end;
        continue;
      }
      let j = i + 1;
      if (j >= rep.length || rep[j] < '0' || rep[j] > '9') throw new RegexSyntaxError('Illegal group reference');
      let num = Number(rep[j++]);
      // Java takes more digits while the group number stays valid
      while (j < rep.length && rep[j] >= '0' && rep[j] <= '9' && num * 10 + Number(rep[j]) < m.groups.length) num = num * 10 + Number(rep[j++]);
      if (num >= m.groups.length) throw new RegexSyntaxError(`No group ${num}`);
      out += m.groups[num] ?? '';
      i = j - 1;
      continue;
    }
    out += c;
  }
  return out;
}

function re2Message(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.replace(/^error parsing regexp: /, '');
}

/**
 * Refuses a backtracking pattern whose worst case is exponential (a quantifier nested in another over the
 * same characters, `(a+)+`): such a pattern could keep the node busy for hours on a crafted input of a few
 * dozen characters. Polynomial worst cases (adjacent quantifiers, an unanchored leading quantifier) are
 * accepted, as Java's engine accepts them.
 */
function assertNoSuperLinearBacktracking(re: RegExp, source: string, why: string): void {
  let reports: ReturnType<typeof analyse>['reports'];
  try {
    reports = analyse(new RegExp(re.source, re.flags.replace(/[gyd]/g, '')), { maxReports: 20, reportTypes: { Move: false, Self: true, Trade: true } }).reports;
  } catch {
    return; // the analyser does not understand every construct; the pattern still compiled
  }
  const r = reports.find((x) => x.exponential);
  if (r) {
    throw new RegexSyntaxError(
      `the pattern [${source}] needs a backtracking engine (it uses a ${why}) and can take exponential time ` +
        `on some inputs (a long run of [${r.character.literal.source}]); rewrite it without the ${why} or without the nested or adjacent quantifiers`,
    );
  }
}

/** Java `Pattern` flag names (`CASE_INSENSITIVE|COMMENTS`, as analysis settings write them) to flag letters */
export function javaFlagLetters(names: string): string {
  const letters: Record<string, string> = {
    CASE_INSENSITIVE: 'i',
    MULTILINE: 'm',
    DOTALL: 's',
    COMMENTS: 'x',
    LITERAL: 'l',
    UNICODE_CASE: 'u',
    UNICODE_CHARACTER_CLASS: 'U',
    CANON_EQ: 'c',
  };
  let f = '';
  for (const p of names.split('|')) {
    const l = letters[p.trim()];
    if (l && !f.includes(l)) f += l;
  }
  return f;
}
