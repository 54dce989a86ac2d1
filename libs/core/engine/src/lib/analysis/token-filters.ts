/**
 * Token filters. Each transforms a token array (mutating tokens in place is allowed: the array is owned
 * by the analysis chain). Removed tokens leave position gaps, as Lucene's position increments do.
 */
import { Errors, UserRegex } from '@strata/core-common';
import type { Token } from './analyzer.js';
import { porterStem } from './porter-stemmer.js';

export interface TokenFilter {
  filter(tokens: Token[]): Token[];
}

export const lowercaseFilter: TokenFilter = {
  filter(tokens) {
    for (const t of tokens) t.term = t.term.toLowerCase();
    return tokens;
  },
};

export const uppercaseFilter: TokenFilter = {
  filter(tokens) {
    for (const t of tokens) t.term = t.term.toUpperCase();
    return tokens;
  },
};

const FOLD_SPECIAL: Record<string, string> = {
  ß: 'ss', æ: 'ae', Æ: 'AE', ø: 'o', Ø: 'O', œ: 'oe', Œ: 'OE', ł: 'l', Ł: 'L', đ: 'd', Đ: 'D', ð: 'd', Ð: 'D',
  þ: 'th', Þ: 'TH', ı: 'i', ĸ: 'q', ŉ: "'n", ſ: 's', ƒ: 'f', '‘': "'", '’': "'", '“': '"', '”': '"', '«': '"', '»': '"',
  '–': '-', '—': '-', '…': '...', 'ﬁ': 'fi', 'ﬂ': 'fl', 'ﬀ': 'ff', 'ĳ': 'ij', 'Ĳ': 'IJ',
};
const reMarks = /\p{M}/gu;

/** Folds a string to ASCII where an ASCII equivalent exists (Lucene's ASCIIFoldingFilter, approximated). */
export function asciiFold(s: string): string {
  let ascii = true;
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 127) {
      ascii = false;
      break;
    }
  }
  if (ascii) return s;
  let out = '';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (code < 128) {
      out += ch;
      continue;
    }
    const sp = FOLD_SPECIAL[ch];
    if (sp !== undefined) {
      out += sp;
      continue;
    }
    const d = ch.normalize('NFKD').replace(reMarks, '');
    let allAscii = d.length > 0;
    for (let i = 0; i < d.length; i++) if (d.charCodeAt(i) > 127) allAscii = false;
    out += allAscii ? d : ch;
  }
  return out;
}

export function asciiFoldingFilter(preserveOriginal = false): TokenFilter {
  return {
    filter(tokens) {
      if (!preserveOriginal) {
        for (const t of tokens) t.term = asciiFold(t.term);
        return tokens;
      }
      const out: Token[] = [];
      for (const t of tokens) {
        const f = asciiFold(t.term);
        out.push(t);
        if (f !== t.term) out.push({ ...t, term: f });
      }
      return out;
    },
  };
}

export function stopFilter(words: Iterable<string>, ignoreCase = false, removeTrailing = true): TokenFilter {
  const set = new Set<string>();
  for (const w of words) set.add(ignoreCase ? w.toLowerCase() : w);
  return {
    filter(tokens) {
      const out: Token[] = [];
      for (let i = 0; i < tokens.length; i++) {
        const t = tokens[i];
        const key = ignoreCase ? t.term.toLowerCase() : t.term;
        if (set.has(key) && (removeTrailing || i < tokens.length - 1)) continue;
        out.push(t);
      }
      return out;
    },
  };
}

export const trimFilter: TokenFilter = {
  filter(tokens) {
    for (const t of tokens) t.term = t.term.trim();
    return tokens;
  },
};

export function lengthFilter(min = 0, max = 2147483647): TokenFilter {
  return {
    filter: (tokens) => tokens.filter((t) => t.term.length >= min && t.term.length <= max),
  };
}

export function truncateFilter(length = 10): TokenFilter {
  return {
    filter(tokens) {
      for (const t of tokens) if (t.term.length > length) t.term = t.term.slice(0, length);
      return tokens;
    },
  };
}

export function uniqueFilter(onlyOnSamePosition = false): TokenFilter {
  return {
    filter(tokens) {
      const out: Token[] = [];
      const seen = new Set<string>();
      let lastPos = -1;
      for (const t of tokens) {
        if (onlyOnSamePosition && t.position !== lastPos) {
          seen.clear();
          lastPos = t.position;
        }
        if (seen.has(t.term)) continue;
        seen.add(t.term);
        out.push(t);
      }
      return out;
    },
  };
}

export const reverseFilter: TokenFilter = {
  filter(tokens) {
    for (const t of tokens) t.term = [...t.term].reverse().join('');
    return tokens;
  },
};

export const porterStemFilter: TokenFilter = {
  filter(tokens) {
    for (const t of tokens) if (!t.type.startsWith('<KEYWORD')) t.term = porterStem(t.term);
    return tokens;
  },
};

/** Removes trailing `'s` (English possessive). */
export const possessiveEnglishFilter: TokenFilter = {
  filter(tokens) {
    for (const t of tokens) {
      const s = t.term;
      const n = s.length;
      if (n >= 2 && (s[n - 1] === 's' || s[n - 1] === 'S')) {
        const q = s[n - 2];
        if (q === "'" || q === '\u2019' || q === '\uFF07') t.term = s.slice(0, n - 2);
      }
    }
    return tokens;
  },
};

export function edgeNGramFilter(min = 1, max = 2, preserveOriginal = false): TokenFilter {
  return {
    filter(tokens) {
      const out: Token[] = [];
      for (const t of tokens) {
        const chars = [...t.term];
        let emitted = false;
        for (let g = min; g <= max && g <= chars.length; g++) {
          out.push({ ...t, term: chars.slice(0, g).join('') });
          if (g === chars.length) emitted = true;
        }
        if (preserveOriginal && !emitted && chars.length > 0) out.push({ ...t });
      }
      return out;
    },
  };
}

export function nGramFilter(min = 1, max = 2, preserveOriginal = false): TokenFilter {
  return {
    filter(tokens) {
      const out: Token[] = [];
      for (const t of tokens) {
        const chars = [...t.term];
        for (let s = 0; s < chars.length; s++) {
          for (let g = min; g <= max && s + g <= chars.length; g++) out.push({ ...t, term: chars.slice(s, s + g).join('') });
        }
        if (preserveOriginal && (chars.length < min || chars.length > max)) out.push({ ...t });
      }
      return out;
    },
  };
}

/**
 * Synonyms in Solr format: `a, b, c` (equivalent; expand) and `a, b => c` (explicit mapping).
 * Single-token synonyms are injected at the same position; multi-word right-hand sides are emitted
 * as consecutive positions of the first token (basic support).
 */
export function synonymFilter(rules: string[], expand = true, lenient = false, lowercaseRules = false): TokenFilter {
  const map = new Map<string, string[][]>();
  const add = (from: string, to: string[][]) => {
    const k = lowercaseRules ? from.toLowerCase() : from;
    const arr = map.get(k) ?? [];
    for (const t of to) if (!arr.some((x) => x.join(' ') === t.join(' '))) arr.push(t);
    map.set(k, arr);
  };
  const split = (s: string) => s.split(/\s+/).filter(Boolean).map((x) => (lowercaseRules ? x.toLowerCase() : x));
  for (const raw of rules) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const arrow = line.indexOf('=>');
    if (arrow >= 0) {
      const lhs = line.slice(0, arrow).split(',').map((s) => s.trim()).filter(Boolean);
      const rhs = line.slice(arrow + 2).split(',').map((s) => split(s.trim())).filter((a) => a.length > 0);
      for (const l of lhs) add(l, rhs);
    } else {
      const terms = line.split(',').map((s) => s.trim()).filter(Boolean);
      if (expand) for (const a of terms) add(a, terms.map(split));
      else for (const a of terms) add(a, [split(terms[0])]);
    }
  }
  void lenient;
  return {
    filter(tokens) {
      if (map.size === 0) return tokens;
      const out: Token[] = [];
      for (const t of tokens) {
        const syn = map.get(t.term);
        if (!syn) {
          out.push(t);
          continue;
        }
        for (const alt of syn) {
          out.push({ ...t, term: alt[0], type: alt[0] === t.term ? t.type : 'SYNONYM' });
          for (let k = 1; k < alt.length; k++) out.push({ ...t, term: alt[k], position: t.position + k, type: 'SYNONYM' });
        }
      }
      out.sort((a, b) => a.position - b.position);
      return out;
    },
  };
}

/** A simple `mapping` char filter: replaces keys with values (longest match first). Offsets are not corrected. */
export interface CharFilter {
  apply(text: string): string;
}

export function mappingCharFilter(mappings: string[]): CharFilter {
  const pairs: Array<[string, string]> = [];
  for (const m of mappings) {
    const i = m.indexOf('=>');
    if (i < 0) continue;
    pairs.push([unescape(m.slice(0, i).trim()), unescape(m.slice(i + 2).trim())]);
  }
  pairs.sort((a, b) => b[0].length - a[0].length);
  return {
    apply(text) {
      if (pairs.length === 0) return text;
      let out = '';
      let i = 0;
      outer: while (i < text.length) {
        for (const [k, v] of pairs) {
          if (k && text.startsWith(k, i)) {
            out += v;
            i += k.length;
            continue outer;
          }
        }
        out += text[i++];
      }
      return out;
    },
  };
}

function unescape(s: string): string {
  return s.replace(/\\u([0-9a-fA-F]{4})|\\(.)/g, (_m, hex: string | undefined, c: string | undefined) => {
    if (hex) return String.fromCharCode(parseInt(hex, 16));
    if (c === 'n') return '\n';
    if (c === 't') return '\t';
    if (c === 'r') return '\r';
    return c ?? '';
  });
}

export const htmlStripCharFilter: CharFilter = {
  apply(text) {
    return text
      .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, '')
      .replace(/<br\s*\/?>|<\/p>/gi, '\n')
      .replace(/<[^>]*>/g, '')
      .replace(/&nbsp;/g, ' ')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#39;|&apos;/g, "'")
      .replace(/&amp;/g, '&');
  },
};

export function patternReplaceCharFilter(pattern: string, replacement: string): CharFilter {
  const re = userPattern(pattern);
  return { apply: (text) => re.replace(text, replacement) };
}

function userPattern(pattern: string): UserRegex {
  try {
    return UserRegex.java(pattern);
  } catch (e) {
    throw Errors.illegalArgument(`Invalid regex pattern [${pattern}]: ${(e as Error).message}`);
  }
}

// ---------------------------------------------------------------- more filters

/** Lucene's EnglishMinimalStemmer (plural removal). */
export function minimalEnglishStem(s: string): string {
  const len = s.length;
  if (len < 3 || s[len - 1] !== 's') return s;
  switch (s[len - 2]) {
    case 'u':
    case 's':
      return s;
    case 'e':
      if (len > 3 && s[len - 3] === 'i' && s[len - 4] !== 'a' && s[len - 4] !== 'e') return s.slice(0, len - 3) + 'y';
      if (s[len - 3] === 'i' || s[len - 3] === 'a' || s[len - 3] === 'o' || s[len - 3] === 'e') return s;
      return s.slice(0, len - 1);
    default:
      return s.slice(0, len - 1);
  }
}

export const minimalEnglishFilter: TokenFilter = {
  filter(tokens) {
    for (const t of tokens) t.term = minimalEnglishStem(t.term);
    return tokens;
  },
};

export interface WordDelimiterOptions {
  generateWordParts: boolean;
  generateNumberParts: boolean;
  catenateWords: boolean;
  catenateNumbers: boolean;
  catenateAll: boolean;
  preserveOriginal: boolean;
  splitOnCaseChange: boolean;
  splitOnNumerics: boolean;
  stemEnglishPossessive: boolean;
}

type CharKind = 0 | 1 | 2 | 3; // 0 delimiter, 1 lower, 2 upper, 3 digit

function kindOf(c: string): CharKind {
  if (c >= '0' && c <= '9') return 3;
  if (/\p{Nd}/u.test(c)) return 3;
  if (/\p{Lu}|\p{Lt}/u.test(c)) return 2;
  if (/\p{L}|\p{M}/u.test(c)) return 1;
  return 0;
}

/** word_delimiter / word_delimiter_graph (basic): splits on delimiters, case changes and letter/digit transitions. */
export function wordDelimiterFilter(o: WordDelimiterOptions): TokenFilter {
  return {
    filter(tokens) {
      const out: Token[] = [];
      let shift = 0;
      for (const t of tokens) {
        let term = t.term;
        // possessive 's of each sub-word becomes delimiters (offsets preserved)
        if (o.stemEnglishPossessive) term = term.replace(/['’][sS](?=[^\p{L}\p{Nd}]|$)/gu, '  ');
        const chars = [...term];
        const parts: Array<{ text: string; num: boolean; start: number }> = [];
        let cur = '';
        let curKind: CharKind = 0;
        let curStart = 0;
        let off = 0;
        const flush = () => {
          if (cur) parts.push({ text: cur, num: /^\p{Nd}+$/u.test(cur), start: curStart });
          cur = '';
        };
        for (const c of chars) {
          const k = kindOf(c);
          if (k === 0) {
            flush();
            curKind = 0;
          } else if (!cur) {
            cur = c;
            curKind = k;
            curStart = off;
          } else {
            // Lucene's WordDelimiterIterator.isBreak: lower->upper breaks (case change), letter<->digit breaks (numerics)
            let brk: boolean;
            if (k === curKind) brk = false;
            else if (k !== 3 && curKind !== 3) brk = o.splitOnCaseChange && !(curKind === 2 && k === 1);
            else brk = o.splitOnNumerics;
            if (brk) {
              flush();
              cur = c;
              curStart = off;
            } else cur += c;
            curKind = k;
          }
          off += c.length;
        }
        flush();
        const emitted: Token[] = [];
        const basePos = t.position + shift;
        if (o.preserveOriginal && (parts.length !== 1 || parts[0].text !== t.term)) emitted.push({ ...t, position: basePos });
        let pos = basePos;
        let first = true;
        for (const p of parts) {
          if ((p.num && !o.generateNumberParts) || (!p.num && !o.generateWordParts)) continue;
          if (!first) pos++;
          first = false;
          emitted.push({
            term: p.text,
            position: pos,
            startOffset: t.startOffset + p.start,
            endOffset: t.startOffset + p.start + p.text.length,
            type: t.type,
          });
        }
        const words = parts.filter((p) => !p.num).map((p) => p.text);
        const nums = parts.filter((p) => p.num).map((p) => p.text);
        if (o.catenateAll && parts.length > 1) emitted.push({ ...t, term: parts.map((p) => p.text).join(''), position: basePos });
        else {
          if (o.catenateWords && words.length > 1) emitted.push({ ...t, term: words.join(''), position: basePos });
          if (o.catenateNumbers && nums.length > 1) emitted.push({ ...t, term: nums.join(''), position: basePos });
        }
        if (emitted.length === 0) {
          shift--;
          continue;
        }
        shift += pos - basePos;
        emitted.sort((a, b) => a.position - b.position);
        out.push(...emitted);
      }
      return out;
    },
  };
}

export function shingleFilter(min = 2, max = 2, outputUnigrams = true, sep = ' ', fillerToken = '_'): TokenFilter {
  return {
    filter(tokens) {
      const out: Token[] = [];
      for (let i = 0; i < tokens.length; i++) {
        if (outputUnigrams) out.push(tokens[i]);
        for (let n = min; n <= max && i + n <= tokens.length; n++) {
          const parts: string[] = [];
          for (let k = 0; k < n; k++) {
            if (k > 0) {
              const gap = tokens[i + k].position - tokens[i + k - 1].position - 1;
              for (let g = 0; g < gap; g++) parts.push(fillerToken);
            }
            parts.push(tokens[i + k].term);
          }
          out.push({ term: parts.join(sep), position: tokens[i].position, startOffset: tokens[i].startOffset, endOffset: tokens[i + n - 1].endOffset, type: 'shingle' });
        }
      }
      return out;
    },
  };
}

export const DEFAULT_ELISION_ARTICLES = ['l', 'm', 't', 'qu', 'n', 's', 'j', 'd', 'c', 'jusqu', 'quoiqu', 'lorsqu', 'puisqu'];

export function elisionFilter(articles: readonly string[] = DEFAULT_ELISION_ARTICLES, articlesCase = false): TokenFilter {
  const set = new Set(articles.map((a) => (articlesCase ? a : a.toLowerCase())));
  return {
    filter(tokens) {
      for (const t of tokens) {
        const i = t.term.search(/['’]/);
        if (i > 0) {
          const head = t.term.slice(0, i);
          if (set.has(articlesCase ? head : head.toLowerCase())) t.term = t.term.slice(i + 1);
        }
      }
      return tokens;
    },
  };
}

export const decimalDigitFilter: TokenFilter = {
  filter(tokens) {
    for (const t of tokens) {
      t.term = t.term.replace(/\p{Nd}/gu, (d) => {
        const cp = d.codePointAt(0)!;
        for (let base = cp; base >= cp - 9; base--) {
          if (!/\p{Nd}/u.test(String.fromCodePoint(base - 1)) || base === cp - 9) return String(cp - base);
        }
        return d;
      });
    }
    return tokens;
  },
};

/** Strips everything after an apostrophe, including the apostrophe. */
export const apostropheFilter: TokenFilter = {
  filter(tokens) {
    for (const t of tokens) {
      const i = t.term.search(/['’]/);
      if (i >= 0) t.term = t.term.slice(0, i);
    }
    return tokens;
  },
};

/** Lucene's ClassicFilter: removes English possessives and dots from acronyms. */
export const classicFilter: TokenFilter = {
  filter(tokens) {
    for (const t of tokens) {
      if (/['’][sS]$/.test(t.term)) t.term = t.term.slice(0, -2);
      else if (/^(\p{L}\.)+\p{L}?\.?$/u.test(t.term)) t.term = t.term.replace(/\./g, '');
    }
    return tokens;
  },
};

export function patternReplaceFilter(pattern: string, replacement: string, all = true): TokenFilter {
  const re = userPattern(pattern);
  return {
    filter(tokens) {
      for (const t of tokens) t.term = re.replace(t.term, replacement, all);
      return tokens;
    },
  };
}

export function limitFilter(max = 1): TokenFilter {
  return { filter: (tokens) => tokens.slice(0, max) };
}

export const flattenGraphFilter: TokenFilter = { filter: (tokens) => tokens };

export const removeDuplicatesFilter: TokenFilter = uniqueFilter(true);

export function keepWordsFilter(words: readonly string[], ignoreCase = false): TokenFilter {
  const set = new Set(words.map((w) => (ignoreCase ? w.toLowerCase() : w)));
  return { filter: (tokens) => tokens.filter((t) => set.has(ignoreCase ? t.term.toLowerCase() : t.term)) };
}

export function keepTypesFilter(types: readonly string[], mode: 'include' | 'exclude' = 'include'): TokenFilter {
  const set = new Set(types);
  return { filter: (tokens) => tokens.filter((t) => (mode === 'include' ? set.has(t.type) : !set.has(t.type))) };
}
