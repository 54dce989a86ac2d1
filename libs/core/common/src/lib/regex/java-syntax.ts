/**
 * Java (java.util.regex / Joni) pattern syntax translated for the two engines behind {@link UserRegex}:
 * RE2 syntax for re2js (linear time; lookbehinds allowed) and JavaScript syntax for the guarded
 * backtracking fallback (only patterns with lookaheads or back-references need it).
 *
 * Java-only constructs are rewritten: `\Q…\E` quoting, POSIX `\p{Alpha}` names, `\h`, `\R`, `\uXXXX`,
 * `\A`/`\Z`/`\z`, nested character-class unions, inline flag groups and comments mode. Atomic groups and
 * possessive quantifiers keep their meaning in the fallback (`(?=(X))\k` emulation) and become plain groups
 * and greedy quantifiers for RE2, whose automaton never backtracks anyway.
 */

import { EsError } from '../errors.js';

export interface TranslatedPattern {
  /** RE2 source, or undefined when the pattern needs a backtracking engine (lookahead, back-reference) */
  re2?: string;
  /** JavaScript RegExp source (the fallback) */
  js: string;
  /** JavaScript RegExp flags for the fallback */
  jsFlags: string;
  /** why RE2 cannot take it (lookahead / back-reference), for messages */
  needsBacktracking?: string;
  /** the user's capture groups in order: their names (undefined for numbered groups) */
  groups: Array<string | undefined>;
  /** for each user group (index i = group i+1), its index in the JavaScript pattern */
  jsGroupIndex: number[];
}

/** a pattern neither engine can run: Elasticsearch's illegal_argument_exception (400) wherever it surfaces */
export class RegexSyntaxError extends EsError {
  constructor(message: string) {
    super('illegal_argument_exception', 400, message);
  }
}

const POSIX: Record<string, [string, string]> = {
  // name: [RE2 class body, JS class body]
  Lower: ['a-z', 'a-z'],
  Upper: ['A-Z', 'A-Z'],
  ASCII: ['\\x00-\\x7F', '\\x00-\\x7F'],
  Alpha: ['a-zA-Z', 'a-zA-Z'],
  Digit: ['0-9', '0-9'],
  Alnum: ['a-zA-Z0-9', 'a-zA-Z0-9'],
  Punct: ['!-/:-@\\[-`{-~', '!-\\/:-@\\[-`{-~'],
  Graph: ['!-~', '!-~'],
  Print: [' -~', ' -~'],
  Blank: [' \\t', ' \\t'],
  Cntrl: ['\\x00-\\x1F\\x7F', '\\x00-\\x1F\\x7F'],
  XDigit: ['0-9a-fA-F', '0-9a-fA-F'],
  Space: [' \\t\\n\\x0B\\f\\r', ' \\t\\n\\x0B\\f\\r'],
};
const H_SPACE = ' \\t\\xA0\\x{1680}\\x{180E}\\x{2000}-\\x{200A}\\x{202F}\\x{205F}\\x{3000}';
const H_SPACE_JS = ' \\t\\xA0\\u1680\\u180E\\u2000-\\u200A\\u202F\\u205F\\u3000';
const V_SPACE = '\\n\\x0B\\f\\r\\x{85}\\x{2028}\\x{2029}';
const V_SPACE_JS = '\\n\\x0B\\f\\r\\x85\\u2028\\u2029';
const JS_SYNTAX = new Set('^$\\.*+?()[]{}|/-');

function hex4(cp: number): string {
  return cp.toString(16).toUpperCase().padStart(4, '0');
}

/** a literal code point in each syntax (escaped when it could mean something) */
function lit(cp: number, inClass: boolean): [string, string] {
  const ch = String.fromCodePoint(cp);
  if (cp < 0x20 || cp === 0x7f) return [`\\x{${hex4(cp)}}`, `\\x${cp.toString(16).padStart(2, '0')}`];
  if (/[\\^$.*+?()[\]{}|/-]/.test(ch) || (inClass && ch === '&')) {
    return ['\\' + ch, JS_SYNTAX.has(ch) ? '\\' + ch : ch];
  }
  if (ch === ' ' || ch === '#') return ['\\' + ch, ch];
  return [ch, ch];
}

/** a literal string (`\Q…\E`, the LITERAL flag) in both syntaxes */
function literalText(text: string, inClass: boolean): [string, string] {
  let a2 = '';
  let b2 = '';
  for (const ch of text) {
    const [a, b] = lit(ch.codePointAt(0)!, inClass);
    a2 += a;
    b2 += b;
  }
  return [a2, b2];
}

interface Group {
  kind: 'capture' | 'group' | 'atomic' | 'lookahead' | 'lookbehind' | 'flags';
  /** index in the JS output where an atomic emulation group was opened */
  jsAtomicName?: string;
  /** JS output length when the group opened (possessive quantifiers after it wrap from here) */
  jsStart: number;
  re2Start: number;
  savedFlags: Flags;
  hasCapture: boolean;
}

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
  x: boolean;
}

/**
 * Translates a Java regex. `flags` are Java/Painless flag letters (`i`, `m`, `s`, `x`, `u`, `U`, `c`, `l`).
 * Throws {@link RegexSyntaxError} on constructs neither engine can run.
 */
export function translateJavaRegex(pattern: string, flags = ''): TranslatedPattern {
  if (flags.includes('l')) {
    // LITERAL: the whole pattern is a literal string
    const [re2, js] = literalText(pattern, false);
    const ci = flags.includes('i');
    return { re2: ci ? `(?i:${re2})` : re2, js, jsFlags: ci ? 'iu' : 'u', groups: [], jsGroupIndex: [] };
  }
  let f: Flags = { i: flags.includes('i'), m: flags.includes('m'), s: flags.includes('s'), x: flags.includes('x') };
  const topFlags = { ...f };
  let re2 = '';
  let js = '';
  let needsBacktracking: string | undefined;
  let jsUnicode = false;
  const groups: Array<string | undefined> = [];
  let atomicSeq = 0;
  let needsInlineJsFlags = false;
  const stack: Group[] = [];
  // start offsets (in both outputs) of the last complete atom, for possessive quantifiers
  let atomJs = -1;
  let sawLeadingFlags = false;
  const n = pattern.length;
  let i = 0;

  const cpAt = (k: number): number => pattern.codePointAt(k)!;
  const width = (cp: number): number => (cp > 0xffff ? 2 : 1);

  /** reads an escape at pattern[i] === '\\'; returns [re2, js, consumed, isAtom] and may set flags */
  const escape = (inClass: boolean): [string, string, number] => {
    const c = pattern[i + 1];
    if (c === undefined) throw new RegexSyntaxError('Unexpected internal error near index ' + n);
    switch (c) {
      case 'd':
      case 'D':
      case 'w':
      case 'W':
      case 's':
      case 'S':
        return ['\\' + c, '\\' + c, 2];
      case 'b':
      case 'B':
        if (inClass) throw new RegexSyntaxError('Illegal/unsupported escape sequence near index ' + (i + 1));
        return ['\\' + c, '\\' + c, 2];
      case 't':
        return ['\\t', '\\t', 2];
      case 'n':
        return ['\\n', '\\n', 2];
      case 'r':
        return ['\\r', '\\r', 2];
      case 'f':
        return ['\\f', '\\f', 2];
      case 'a':
        return ['\\x07', '\\x07', 2];
      case 'e':
        return ['\\x1B', '\\x1B', 2];
      case 'h':
        return inClass ? [H_SPACE, H_SPACE_JS, 2] : [`[${H_SPACE}]`, `[${H_SPACE_JS}]`, 2];
      case 'H':
        if (inClass) throw new RegexSyntaxError('\\H inside a character class is not supported');
        return [`[^${H_SPACE}]`, `[^${H_SPACE_JS}]`, 2];
      case 'v':
        return inClass ? [V_SPACE, V_SPACE_JS, 2] : [`[${V_SPACE}]`, `[${V_SPACE_JS}]`, 2];
      case 'V':
        if (inClass) throw new RegexSyntaxError('\\V inside a character class is not supported');
        return [`[^${V_SPACE}]`, `[^${V_SPACE_JS}]`, 2];
      case 'R':
        if (inClass) throw new RegexSyntaxError('Illegal/unsupported escape sequence near index ' + (i + 1));
        return [`(?:\\r\\n|[${V_SPACE}])`, `(?:\\r\\n|[${V_SPACE_JS}])`, 2];
      case 'A':
        if (inClass) throw new RegexSyntaxError('Illegal/unsupported escape sequence near index ' + (i + 1));
        return ['\\A', '(?<![\\s\\S])', 2];
      case 'z':
        if (inClass) throw new RegexSyntaxError('Illegal/unsupported escape sequence near index ' + (i + 1));
        return ['\\z', '(?![\\s\\S])', 2];
      case 'Z':
        if (inClass) throw new RegexSyntaxError('Illegal/unsupported escape sequence near index ' + (i + 1));
        // end of input, but for a final line terminator (RE2 has no lookahead: end of input only)
        return ['\\z', '(?=\\n?(?![\\s\\S]))', 2];
      case 'G':
        throw new RegexSyntaxError('\\G is not supported');
      case 'u': {
        const m = /^[0-9a-fA-F]{4}/.exec(pattern.slice(i + 2, i + 6));
        if (!m) throw new RegexSyntaxError('Illegal Unicode escape sequence near index ' + (i + 2));
        const [a, b] = lit(parseInt(m[0], 16), inClass);
        return [a, b, 6];
      }
      case 'x': {
        if (pattern[i + 2] === '{') {
          const end = pattern.indexOf('}', i + 3);
          const h = end < 0 ? '' : pattern.slice(i + 3, end);
          if (!/^[0-9a-fA-F]{1,6}$/.test(h) || parseInt(h, 16) > 0x10ffff) throw new RegexSyntaxError('Illegal hexadecimal escape sequence near index ' + (i + 2));
          const [a, b] = lit(parseInt(h, 16), inClass);
          if (parseInt(h, 16) > 0xffff) jsUnicode = true;
          return [a, b, end - i + 1];
        }
        const m = /^[0-9a-fA-F]{2}/.exec(pattern.slice(i + 2, i + 4));
        if (!m) throw new RegexSyntaxError('Illegal hexadecimal escape sequence near index ' + (i + 2));
        const [a, b] = lit(parseInt(m[0], 16), inClass);
        return [a, b, 4];
      }
      case '0': {
        const m = /^[0-7]{1,3}/.exec(pattern.slice(i + 2, i + 5));
        if (!m) throw new RegexSyntaxError('Illegal octal escape sequence near index ' + (i + 2));
        let digits = m[0];
        if (digits.length === 3 && parseInt(digits[0], 8) > 3) digits = digits.slice(0, 2);
        const [a, b] = lit(parseInt(digits, 8), inClass);
        return [a, b, 2 + digits.length];
      }
      case 'c': {
        const ch = pattern[i + 2];
        if (ch === undefined) throw new RegexSyntaxError('Illegal control escape sequence');
        const [a, b] = lit(ch.charCodeAt(0) ^ 64, inClass);
        return [a, b, 3];
      }
      case 'p':
      case 'P': {
        let name: string;
        let len: number;
        if (pattern[i + 2] === '{') {
          const end = pattern.indexOf('}', i + 3);
          if (end < 0) throw new RegexSyntaxError('Unclosed character family near index ' + n);
          name = pattern.slice(i + 3, end);
          len = end - i + 1;
        } else {
          name = pattern[i + 2] ?? '';
          len = 3;
        }
        const neg = c === 'P';
        const posix = POSIX[name] ?? POSIX[name.replace(/^Is/, '')];
        if (posix) {
          if (inClass) {
            if (neg) throw new RegexSyntaxError(`\\P{${name}} inside a character class is not supported`);
            return [posix[0], posix[1], len];
          }
          return [`[${neg ? '^' : ''}${posix[0]}]`, `[${neg ? '^' : ''}${posix[1]}]`, len];
        }
        let prop = name.replace(/^(Is|general_category=|gc=|script=|sc=)/, '');
        if (prop === 'javaLowerCase') prop = 'Ll';
        else if (prop === 'javaUpperCase') prop = 'Lu';
        else if (prop === 'Alphabetic' || prop === 'Letter') prop = 'L';
        jsUnicode = true;
        return [`\\${c}{${prop}}`, `\\${c}{${prop}}`, len];
      }
      case 'k': {
        if (inClass) throw new RegexSyntaxError('Illegal/unsupported escape sequence near index ' + (i + 1));
        const m = /^<([a-zA-Z][a-zA-Z0-9]*)>/.exec(pattern.slice(i + 2));
        if (!m) throw new RegexSyntaxError('\\k is not followed by \'<\' for named capturing group near index ' + (i + 2));
        needsBacktracking ??= 'back-reference';
        return ['', `\\k<${m[1]}>`, 2 + m[0].length];
      }
      default: {
        if (c >= '1' && c <= '9' && !inClass) {
          // back-reference: Java takes as many digits as name existing groups
          let k = i + 1;
          let num = '';
          while (k < n && /[0-9]/.test(pattern[k]) && Number(num + pattern[k]) <= Math.max(groups.length, 1)) num += pattern[k++];
          if (num === '') num = c;
          needsBacktracking ??= 'back-reference';
          return ['', `\u0000${num}\u0000`, 1 + Math.max(num.length, 1)];
        }
        if (/[a-zA-Z]/.test(c)) throw new RegexSyntaxError(`Illegal/unsupported escape sequence near index ${i + 1}`);
        const cp = cpAt(i + 1);
        const [a, b] = lit(cp, inClass);
        return [a, b, 1 + width(cp)];
      }
    }
  };

  /** a character class starting at pattern[i] === '[' (Java nested unions flattened) */
  const charClass = (): [string, string] => {
    let r = '';
    let j = '';
    i++;
    let negated = false;
    if (pattern[i] === '^') {
      negated = true;
      i++;
    }
    let first = true;
    for (;;) {
      if (i >= n) throw new RegexSyntaxError('Unclosed character class near index ' + (n - 1));
      const c = pattern[i];
      if (c === ']' && !first) {
        i++;
        break;
      }
      first = false;
      if (c === '[') {
        if (pattern[i + 1] === ':') throw new RegexSyntaxError('POSIX bracket expressions are not Java syntax; use \\p{Alpha}');
        if (pattern[i + 1] === '^') throw new RegexSyntaxError('negated nested character classes are not supported');
        const [a, b] = charClass();
        r += a.slice(1, -1);
        j += b.slice(1, -1);
        continue;
      }
      if (c === '&' && pattern[i + 1] === '&') throw new RegexSyntaxError('character class intersection (&&) is not supported');
      if (c === '\\') {
        if (pattern[i + 1] === 'Q') {
          const end = pattern.indexOf('\\E', i + 2);
          const [a, b] = literalText(end < 0 ? pattern.slice(i + 2) : pattern.slice(i + 2, end), true);
          r += a;
          j += b;
          i = end < 0 ? n : end + 2;
          continue;
        }
        const [a, b, len] = escape(true);
        r += a;
        j += b;
        i += len;
        continue;
      }
      if (c === '-') {
        r += '-';
        j += '-';
        i++;
        continue;
      }
      const cp = cpAt(i);
      const [a, b] = lit(cp, true);
      r += a;
      j += b;
      i += width(cp);
    }
    const neg = negated ? '^' : '';
    return [`[${neg}${r}]`, `[${neg}${j}]`];
  };

  const quantifier = (): [string, number] | undefined => {
    const c = pattern[i];
    if (c === '*' || c === '+' || c === '?') return [c, 1];
    if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
      if (m) {
        if (Number(m[1]) > 1000 || (m[3] !== undefined && m[3] !== '' && Number(m[3]) > 1000)) {
          throw new RegexSyntaxError('repetition count too large (at most 1000)');
        }
        if (m[3] !== undefined && m[3] !== '' && Number(m[3]) < Number(m[1])) throw new RegexSyntaxError('Illegal repetition range near index ' + i);
        return [m[0], m[0].length];
      }
    }
    return undefined;
  };

  while (i < n) {
    const c = pattern[i];
    if (f.x && (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\x0B')) {
      i++;
      continue;
    }
    if (f.x && c === '#') {
      while (i < n && pattern[i] !== '\n') i++;
      continue;
    }
    const q = quantifier();
    if (q) {
      if (atomJs < 0) throw new RegexSyntaxError(`Dangling meta character '${q[0][0]}' near index ${i}`);
      i += q[1];
      let suffix = '';
      if (pattern[i] === '?') {
        suffix = '?';
        i++;
      } else if (pattern[i] === '+') {
        suffix = '+';
        i++;
      }
      if (suffix === '+') {
        // possessive: RE2 greedy; JS (?=(atom q))\k
        re2 += q[0];
        const name = `__p${atomicSeq++}`;
        js = js.slice(0, atomJs) + `(?:(?=(?<${name}>` + js.slice(atomJs) + q[0] + `))\\k<${name}>)`;
      } else {
        re2 += q[0] + suffix;
        js += q[0] + suffix;
      }
      atomJs = -1;
      continue;
    }
    atomJs = js.length;
    if (c === '\\') {
      if (pattern[i + 1] === 'Q') {
        const end = pattern.indexOf('\\E', i + 2);
        const [a2, b2] = literalText(end < 0 ? pattern.slice(i + 2) : pattern.slice(i + 2, end), false);
        re2 += `(?:${a2})`;
        js += `(?:${b2})`;
        i = end < 0 ? n : end + 2;
        continue;
      }
      const [a, b, len] = escape(false);
      re2 += a;
      js += b;
      i += len;
      continue;
    }
    if (c === '[') {
      const [a, b] = charClass();
      re2 += a;
      js += b;
      continue;
    }
    if (c === '(') {
      const saved = { ...f };
      if (pattern[i + 1] !== '?') {
        groups.push(undefined);
        stack.push({ kind: 'capture', jsStart: js.length, re2Start: re2.length, savedFlags: saved, hasCapture: true });
        markCapture(stack);
        re2 += '(';
        js += '(';
        i++;
        continue;
      }
      const rest = pattern.slice(i + 2);
      const named = /^(?:<|P<)([a-zA-Z][a-zA-Z0-9_]*)>/.exec(rest);
      if (named) {
        groups.push(named[1]);
        stack.push({ kind: 'capture', jsStart: js.length, re2Start: re2.length, savedFlags: saved, hasCapture: true });
        markCapture(stack);
        re2 += `(?P<${named[1]}>`;
        js += `(?<${named[1]}>`;
        i += 2 + named[0].length;
        continue;
      }
      if (rest.startsWith(':')) {
        stack.push({ kind: 'group', jsStart: js.length, re2Start: re2.length, savedFlags: saved, hasCapture: false });
        re2 += '(?:';
        js += '(?:';
        i += 3;
        continue;
      }
      if (rest.startsWith('>')) {
        const name = `__a${atomicSeq++}`;
        stack.push({ kind: 'atomic', jsAtomicName: name, jsStart: js.length, re2Start: re2.length, savedFlags: saved, hasCapture: false });
        re2 += '(?:';
        js += `(?:(?=(?<${name}>`;
        i += 3;
        continue;
      }
      if (rest.startsWith('=') || rest.startsWith('!')) {
        needsBacktracking ??= 'lookahead';
        stack.push({ kind: 'lookahead', jsStart: js.length, re2Start: re2.length, savedFlags: saved, hasCapture: false });
        re2 += `(?${rest[0]}`;
        js += `(?${rest[0]}`;
        i += 3;
        continue;
      }
      if (rest.startsWith('<=') || rest.startsWith('<!')) {
        stack.push({ kind: 'lookbehind', jsStart: js.length, re2Start: re2.length, savedFlags: saved, hasCapture: false });
        re2 += `(?${rest.slice(0, 2)}`;
        js += `(?${rest.slice(0, 2)}`;
        i += 4;
        continue;
      }
      const fm = /^([imsxudUc]*)(?:-([imsxudUc]*))?([:)])/.exec(rest);
      if (fm) {
        const on = fm[1];
        const off = fm[2] ?? '';
        const apply = (letters: string, v: boolean): void => {
          for (const l of letters) if (l === 'i' || l === 'm' || l === 's' || l === 'x') f[l] = v;
        };
        if (fm[3] === ')') {
          // (?flags) — applies to the rest of the enclosing group
          apply(on, true);
          apply(off, false);
          if (stack.length === 0 && re2 === '' && !sawLeadingFlags) {
            sawLeadingFlags = true;
            Object.assign(topFlags, f);
          }
          const r2 = re2Flags(on, off);
          if (r2) re2 += `(?${r2})`;
          i += 2 + fm[0].length;
          atomJs = -1;
          if (!(stack.length === 0 && re2.replace(/^\(\?[a-z-]*\)/, '') === '')) needsInlineJsFlags = true;
          continue;
        }
        stack.push({ kind: 'flags', jsStart: js.length, re2Start: re2.length, savedFlags: saved, hasCapture: false });
        apply(on, true);
        apply(off, false);
        const r2 = re2Flags(on, off);
        re2 += r2 ? `(?${r2}:` : '(?:';
        js += '(?:';
        if (on.includes('i') || off.includes('i') || on.includes('s') || on.includes('m')) needsInlineJsFlags = true;
        i += 2 + fm[0].length;
        continue;
      }
      throw new RegexSyntaxError(`Unknown inline modifier near index ${i + 2}`);
    }
    if (c === ')') {
      const g = stack.pop();
      if (!g) throw new RegexSyntaxError(`Unmatched closing ')' near index ${i}`);
      f = g.savedFlags;
      if (g.kind === 'atomic') {
        re2 += ')';
        js += `))\\k<${g.jsAtomicName}>)`;
      } else {
        re2 += ')';
        js += ')';
      }
      if (g.kind === 'lookbehind' && g.hasCapture) needsBacktracking ??= 'capturing group inside a lookbehind';
      atomJs = g.jsStart;
      if (g.kind === 'lookahead' || g.kind === 'lookbehind') {
        atomJs = -1;
      }
      i++;
      continue;
    }
    if (c === '|') {
      re2 += '|';
      js += '|';
      atomJs = -1;
      i++;
      continue;
    }
    if (c === '^' || c === '$') {
      re2 += c;
      js += c === '$' && !f.m ? '(?=\\n?(?![\\s\\S]))' : c;
      atomJs = -1;
      i++;
      continue;
    }
    if (c === '.') {
      re2 += '.';
      js += f.s ? '[\\s\\S]' : '[^\\n\\r\\u0085\\u2028\\u2029]';
      i++;
      continue;
    }
    const cp = cpAt(i);
    const [a, b] = lit(cp, false);
    re2 += a;
    js += b;
    i += width(cp);
  }
  if (stack.length > 0) throw new RegexSyntaxError(`Unclosed group near index ${n}`);

  let jsFlags = 'd';
  if (topFlags.i) jsFlags += 'i';
  if (topFlags.m) jsFlags += 'm';
  if (jsUnicode) jsFlags += 'u';
  const prefix = re2Flags(topFlags.i ? 'i' : '', '') + (topFlags.m ? 'm' : '') + (topFlags.s ? 's' : '');
  const re2Source = needsBacktracking ? undefined : (prefix && !sawLeadingFlags ? `(?${prefix})` : '') + re2;
  const jsGroupIndex = jsCaptureIndexes(js);
  // the NUL-delimited back-reference markers written while translating
  // eslint-disable-next-line no-control-regex
  js = js.replace(/\u0000(\d+)\u0000/g, (_, num: string) => {
    const idx = jsGroupIndex[Number(num) - 1];
    if (idx === undefined) throw new RegexSyntaxError(`No group ${num}`);
    return `(?:\\${idx})`;
  });
  const out: TranslatedPattern = { js, jsFlags, groups, jsGroupIndex };
  if (re2Source !== undefined) out.re2 = re2Source;
  if (needsBacktracking) {
    out.needsBacktracking = needsBacktracking;
    if (needsInlineJsFlags) throw new RegexSyntaxError('inline flag groups are not supported together with a ' + needsBacktracking);
  }
  return out;
}

/** 1-based indexes of the user's capturing groups in a translated JS source (emulation groups skipped) */
function jsCaptureIndexes(js: string): number[] {
  const out: number[] = [];
  let idx = 0;
  let inClass = false;
  for (let k = 0; k < js.length; k++) {
    const c = js[k];
    if (c === '\\') {
      k++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(') {
      if (js[k + 1] !== '?') {
        out.push(++idx);
      } else if (js[k + 2] === '<' && js[k + 3] !== '=' && js[k + 3] !== '!') {
        idx++;
        if (!js.startsWith('__', k + 3)) out.push(idx);
      }
    }
  }
  return out;
}

function markCapture(stack: Array<{ hasCapture: boolean }>): void {
  for (const g of stack) g.hasCapture = true;
}

function re2Flags(on: string, off: string): string {
  const keep = (s: string): string => [...s].filter((c) => c === 'i' || c === 'm' || c === 's' || c === 'U').join('');
  const a = keep(on);
  const b = keep(off);
  if (!a && !b) return '';
  return b ? `${a}-${b}` : a;
}
