/**
 * Tokenizers. Each produces Token objects with offsets into the original text and positions from 0.
 * Implemented as char-code loops (no per-char regex).
 */
import { Errors, UserRegex, javaFlagLetters } from '@strata/core-common';
import type { Token } from './analyzer.js';
import { WB, isLetter, isWhitespace, wordBreakClass } from './char-class.js';

export interface Tokenizer {
  tokenize(text: string): Token[];
}

function codePointAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
    const d = text.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
  }
  return c;
}

const TYPE_FOR: Record<number, string> = {
  [WB.Ideographic]: '<IDEOGRAPHIC>',
  [WB.Hiragana]: '<HIRAGANA>',
  [WB.Katakana]: '<KATAKANA>',
  [WB.Hangul]: '<HANGUL>',
  [WB.SoutheastAsian]: '<SOUTHEAST_ASIAN>',
};

/** Lucene's StandardTokenizer (UAX#29 word boundaries, approximated). */
export class StandardTokenizer implements Tokenizer {
  constructor(private readonly maxTokenLength = 255) {
    if (maxTokenLength < 1 || maxTokenLength > 1024 * 1024) {
      throw Errors.illegalArgument(`maxTokenLength must be greater than 0 and less than 1048576 passed: ${maxTokenLength}`);
    }
  }

  tokenize(text: string): Token[] {
    const out: Token[] = [];
    const n = text.length;
    let pos = 0;
    let i = 0;
    const max = this.maxTokenLength;
    while (i < n) {
      let cp = text.charCodeAt(i);
      let k: WB;
      if (cp < 128) {
        // fast ASCII path
        if ((cp >= 0x61 && cp <= 0x7a) || (cp >= 0x41 && cp <= 0x5a)) k = WB.ALetter;
        else if (cp >= 0x30 && cp <= 0x39) k = WB.Numeric;
        else if (cp === 0x5f) k = WB.ExtendNumLet;
        else {
          i++;
          continue;
        }
      } else {
        cp = codePointAt(text, i);
        k = wordBreakClass(cp);
      }
      if (k === WB.Ideographic || k === WB.Hiragana) {
        const start = i;
        i += cp > 0xffff ? 2 : 1;
        while (i < n) {
          const c2 = codePointAt(text, i);
          if (c2 < 128 || wordBreakClass(c2) !== WB.Extend) break;
          i += c2 > 0xffff ? 2 : 1;
        }
        out.push({ term: text.slice(start, i), position: pos++, startOffset: start, endOffset: i, type: TYPE_FOR[k] });
        continue;
      }
      if (k !== WB.ALetter && k !== WB.Numeric && k !== WB.ExtendNumLet && k !== WB.Katakana && k !== WB.Hangul && k !== WB.SoutheastAsian) {
        i += cp > 0xffff ? 2 : 1;
        continue;
      }
      const start = i;
      let hasLetter = false;
      let hasDigit = false;
      let special = 0;
      let prev: WB;
      // consume the word
      for (;;) {
        if (k === WB.Numeric) hasDigit = true;
        else if (k !== WB.ExtendNumLet) {
          hasLetter = true;
          if (k !== WB.ALetter) special = k;
        }
        prev = k;
        i += cp > 0xffff ? 2 : 1;
        // attach Extend / Format chars
        while (i < n) {
          const c2 = text.charCodeAt(i);
          if (c2 < 0x300) break;
          const cp2 = codePointAt(text, i);
          if (wordBreakClass(cp2) !== WB.Extend) break;
          i += cp2 > 0xffff ? 2 : 1;
        }
        if (i >= n) break;
        cp = text.charCodeAt(i);
        if (cp < 128) {
          if ((cp >= 0x61 && cp <= 0x7a) || (cp >= 0x41 && cp <= 0x5a)) k = WB.ALetter;
          else if (cp >= 0x30 && cp <= 0x39) k = WB.Numeric;
          else if (cp === 0x5f) k = WB.ExtendNumLet;
          else k = wordBreakClass(cp);
        } else {
          cp = codePointAt(text, i);
          k = wordBreakClass(cp);
        }
        if (k === WB.ALetter || k === WB.Numeric || k === WB.ExtendNumLet || k === WB.Hangul || k === WB.SoutheastAsian) {
          continue;
        }
        if (k === WB.Katakana) {
          if (prev === WB.Katakana || prev === WB.ExtendNumLet) continue;
          break;
        }
        if (k === WB.MidLetter || k === WB.MidNumLet || k === WB.SingleQuote || k === WB.MidNum) {
          const j = i + (cp > 0xffff ? 2 : 1);
          if (j >= n) break;
          const ncp = codePointAt(text, j);
          const nk = wordBreakClass(ncp);
          const letterJoin = prev === WB.ALetter && k !== WB.MidNum && nk === WB.ALetter;
          const numJoin = prev === WB.Numeric && k !== WB.MidLetter && nk === WB.Numeric;
          if (letterJoin || numJoin) {
            i = j;
            cp = ncp;
            k = nk;
            continue;
          }
        }
        break;
      }
      if (!hasLetter && !hasDigit) continue;
      const type = special ? TYPE_FOR[special] : hasLetter ? '<ALPHANUM>' : '<NUM>';
      if (i - start <= max) {
        out.push({ term: text.slice(start, i), position: pos++, startOffset: start, endOffset: i, type });
      } else {
        for (let s = start; s < i; s += max) {
          const e = Math.min(i, s + max);
          out.push({ term: text.slice(s, e), position: pos++, startOffset: s, endOffset: e, type });
        }
      }
    }
    return out;
  }
}

/** Splits on whitespace (Java Character.isWhitespace). */
export class WhitespaceTokenizer implements Tokenizer {
  constructor(private readonly maxTokenLength = 255) {}
  tokenize(text: string): Token[] {
    const out: Token[] = [];
    const n = text.length;
    let pos = 0;
    let i = 0;
    while (i < n) {
      while (i < n && isWhitespace(text.charCodeAt(i))) i++;
      if (i >= n) break;
      const start = i;
      while (i < n && !isWhitespace(text.charCodeAt(i)) && i - start < this.maxTokenLength) i++;
      out.push({ term: text.slice(start, i), position: pos++, startOffset: start, endOffset: i, type: 'word' });
    }
    return out;
  }
}

/** Emits the whole input as one token. */
export class KeywordTokenizer implements Tokenizer {
  tokenize(text: string): Token[] {
    return [{ term: text, position: 0, startOffset: 0, endOffset: text.length, type: 'word' }];
  }
}

/** Splits on non-letters; optionally lowercases (the `lowercase` tokenizer). */
export class LetterTokenizer implements Tokenizer {
  constructor(private readonly lower = false) {}
  tokenize(text: string): Token[] {
    const out: Token[] = [];
    const n = text.length;
    let pos = 0;
    let i = 0;
    while (i < n) {
      let cp = codePointAt(text, i);
      if (!isLetter(cp)) {
        i += cp > 0xffff ? 2 : 1;
        continue;
      }
      const start = i;
      while (i < n) {
        cp = codePointAt(text, i);
        if (!isLetter(cp)) break;
        i += cp > 0xffff ? 2 : 1;
        if (i - start >= 255) break;
      }
      const t = text.slice(start, i);
      out.push({ term: this.lower ? t.toLowerCase() : t, position: pos++, startOffset: start, endOffset: i, type: 'word' });
    }
    return out;
  }
}

/** Splits on a regex (default `\W+`), or emits capture group `group` when group >= 0. */
export class PatternTokenizer implements Tokenizer {
  private readonly re: UserRegex;
  constructor(pattern = '\\W+', flags = '', private readonly group = -1) {
    try {
      this.re = UserRegex.java(pattern, { flags: javaFlagLetters(flags) });
    } catch (e) {
      throw Errors.illegalArgument(`Invalid regex pattern [${pattern}]: ${(e as Error).message}`);
    }
  }
  tokenize(text: string): Token[] {
    const out: Token[] = [];
    let pos = 0;
    if (this.group >= 0) {
      for (const m of this.re.matchAll(text)) {
        const g = m.groups[this.group];
        if (g === undefined || g.length === 0) continue;
        const start = m.index + (this.group === 0 ? 0 : m.groups[0]!.indexOf(g));
        out.push({ term: g, position: pos++, startOffset: start, endOffset: start + g.length, type: 'word' });
      }
      return out;
    }
    let last = 0;
    for (const m of this.re.matchAll(text)) {
      if (m.end === m.index) continue;
      if (m.index > last) {
        out.push({ term: text.slice(last, m.index), position: pos++, startOffset: last, endOffset: m.index, type: 'word' });
      }
      last = m.end;
    }
    if (last < text.length) out.push({ term: text.slice(last), position: pos, startOffset: last, endOffset: text.length, type: 'word' });
    return out;
  }
}

export type TokenChars = Set<'letter' | 'digit' | 'whitespace' | 'punctuation' | 'symbol' | 'custom'>;

function charMatches(cp: number, chars: TokenChars | null, custom: string): boolean {
  if (!chars || chars.size === 0) return true;
  const s = String.fromCodePoint(cp);
  if (chars.has('letter') && isLetter(cp)) return true;
  if (chars.has('digit') && /\p{Nd}/u.test(s)) return true;
  if (chars.has('whitespace') && isWhitespace(cp)) return true;
  if (chars.has('punctuation') && /\p{P}/u.test(s)) return true;
  if (chars.has('symbol') && /\p{S}/u.test(s)) return true;
  if (chars.has('custom') && custom.includes(s)) return true;
  return false;
}

/** ngram / edge_ngram tokenizers: grams of the runs of token_chars. */
export class NGramTokenizer implements Tokenizer {
  constructor(
    private readonly minGram: number,
    private readonly maxGram: number,
    private readonly edge: boolean,
    private readonly tokenChars: TokenChars | null,
    private readonly customChars = '',
  ) {}
  tokenize(text: string): Token[] {
    const out: Token[] = [];
    let pos = 0;
    const n = text.length;
    let i = 0;
    while (i < n) {
      while (i < n && !charMatches(text.charCodeAt(i), this.tokenChars, this.customChars)) i++;
      const start = i;
      while (i < n && charMatches(text.charCodeAt(i), this.tokenChars, this.customChars)) i++;
      const end = i;
      if (end <= start) continue;
      if (this.edge) {
        for (let g = this.minGram; g <= this.maxGram && start + g <= end; g++) {
          out.push({ term: text.slice(start, start + g), position: pos++, startOffset: start, endOffset: start + g, type: 'word' });
        }
      } else {
        for (let s = start; s < end; s++) {
          for (let g = this.minGram; g <= this.maxGram && s + g <= end; g++) {
            out.push({ term: text.slice(s, s + g), position: pos++, startOffset: s, endOffset: s + g, type: 'word' });
          }
        }
      }
    }
    return out;
  }
}

/** path_hierarchy: `/a/b/c` → `/a`, `/a/b`, `/a/b/c` (all at position 0, like Lucene). */
export class PathHierarchyTokenizer implements Tokenizer {
  constructor(
    private readonly delimiter = '/',
    private readonly replacement = delimiter,
    private readonly skip = 0,
    private readonly reverse = false,
  ) {}
  tokenize(text: string): Token[] {
    const d = this.delimiter;
    const out: Token[] = [];
    if (text.length === 0) return out;
    const parts = text.split(d);
    const lead = text.startsWith(d);
    // segments: keep the leading delimiter on the first component
    const comps: Array<{ s: string; start: number }> = [];
    let pos = 0;
    for (let i = 0; i < parts.length; i++) {
      if (i === 0 && lead) {
        pos += d.length;
        continue;
      }
      comps.push({ s: parts[i], start: pos });
      pos += parts[i].length + d.length;
    }
    if (!this.reverse) {
      for (let i = this.skip; i < comps.length; i++) {
        const from = this.skip === 0 ? (lead ? 0 : comps[0].start) : comps[this.skip].start - d.length;
        const end = comps[i].start + comps[i].s.length;
        const raw = text.slice(from, end);
        out.push({ term: raw.split(d).join(this.replacement), position: 0, startOffset: from, endOffset: end, type: 'word' });
      }
    } else {
      for (let i = 0; i < comps.length - this.skip; i++) {
        const from = i === 0 && lead ? 0 : comps[i].start - (i === 0 ? 0 : d.length);
        const end = this.skip === 0 ? text.length : comps[comps.length - this.skip - 1].start + comps[comps.length - this.skip - 1].s.length;
        const raw = text.slice(from, end);
        out.push({ term: raw.split(d).join(this.replacement), position: 0, startOffset: from, endOffset: end, type: 'word' });
      }
    }
    return out;
  }
}

/** char_group: splits on the given characters (single chars or classes whitespace/letter/digit/punctuation/symbol). */
export class CharGroupTokenizer implements Tokenizer {
  private readonly chars = new Set<string>();
  private readonly classes: string[] = [];
  constructor(tokenizeOn: readonly string[], private readonly maxTokenLength = 255) {
    for (const c of tokenizeOn) {
      if (['whitespace', 'letter', 'digit', 'punctuation', 'symbol'].includes(c)) this.classes.push(c);
      else if (c === '\\n') this.chars.add('\n');
      else if (c === '\\t') this.chars.add('\t');
      else if (c === '\\r') this.chars.add('\r');
      else if ([...c].length === 1) this.chars.add(c);
      else throw Errors.illegalArgument(`Invalid escaped char in [${c}]`);
    }
  }
  private isSplit(ch: string): boolean {
    if (this.chars.has(ch)) return true;
    const cp = ch.codePointAt(0)!;
    for (const k of this.classes) {
      if (k === 'whitespace' && isWhitespace(cp)) return true;
      if (k === 'letter' && isLetter(cp)) return true;
      if (k === 'digit' && /\p{Nd}/u.test(ch)) return true;
      if (k === 'punctuation' && /\p{P}/u.test(ch)) return true;
      if (k === 'symbol' && /\p{S}/u.test(ch)) return true;
    }
    return false;
  }
  tokenize(text: string): Token[] {
    const out: Token[] = [];
    let start = -1;
    let pos = 0;
    let i = 0;
    for (const ch of text) {
      if (this.isSplit(ch)) {
        if (start >= 0) out.push({ term: text.slice(start, i), position: pos++, startOffset: start, endOffset: i, type: 'word' });
        start = -1;
      } else {
        if (start < 0) start = i;
        else if (i - start >= this.maxTokenLength) {
          out.push({ term: text.slice(start, i), position: pos++, startOffset: start, endOffset: i, type: 'word' });
          start = i;
        }
      }
      i += ch.length;
    }
    if (start >= 0) out.push({ term: text.slice(start), position: pos, startOffset: start, endOffset: text.length, type: 'word' });
    return out;
  }
}

/** simple_pattern: tokens are the matches of the pattern. */
export class SimplePatternTokenizer extends PatternTokenizer {
  constructor(pattern: string) {
    super(pattern, '', 0);
  }
}

const URL_EMAIL_RE =
  /\b(?:(?:https?|ftp|file):\/\/[^\s<>"'`{}|\\^]+[^\s<>"'`{}|\\^.,;:!?)\]]|[A-Za-z0-9._%+-]+@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,})/g;

/** uax_url_email: the standard tokenizer, keeping URLs (<URL>) and e-mail addresses (<EMAIL>) as single tokens. */
export class UaxUrlEmailTokenizer implements Tokenizer {
  private readonly std: StandardTokenizer;
  constructor(private readonly maxTokenLength = 255) {
    this.std = new StandardTokenizer(maxTokenLength);
  }
  tokenize(text: string): Token[] {
    const out: Token[] = [];
    let pos = 0;
    let last = 0;
    const emitStd = (from: number, to: number) => {
      if (to <= from) return;
      for (const t of this.std.tokenize(text.slice(from, to))) {
        out.push({ ...t, position: pos++, startOffset: t.startOffset + from, endOffset: t.endOffset + from });
      }
    };
    URL_EMAIL_RE.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = URL_EMAIL_RE.exec(text)) !== null) {
      emitStd(last, m.index);
      const v = m[0];
      const type = v.includes('://') ? '<URL>' : '<EMAIL>';
      for (let s = 0; s < v.length; s += this.maxTokenLength) {
        const piece = v.slice(s, s + this.maxTokenLength);
        out.push({ term: piece, position: pos++, startOffset: m.index + s, endOffset: m.index + s + piece.length, type });
      }
      last = m.index + v.length;
    }
    emitStd(last, text.length);
    return out;
  }
}
