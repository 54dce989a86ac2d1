/**
 * JSON integers beyond 2^53 - 1, kept exact. `JSON.parse` rounds them to the nearest double; Elasticsearch
 * (Jackson) reads them as longs / BigIntegers. This narrow parser is the slow path, used only where an exact
 * integer matters and the text may hold one (see `mayHoldUnsafeInteger`): every integer literal that is not a
 * safe integer becomes a `RawJson` of its literal (exact when rendered by `stringifyJson`, exact through
 * `exactInteger`); everything else is what `JSON.parse` gives.
 */
import { jsonStringEnd, skipJsonWhitespace } from './json-duplicates.js';
import { RawJson } from './raw-json.js';

const UNSAFE_DIGITS = /\d{16}/;

/** false when no integer in `text` can exceed 2^53 - 1 (it has no run of 16 digits): the cheap pre-check */
export function mayHoldUnsafeInteger(text: string): boolean {
  return UNSAFE_DIGITS.test(text);
}

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;

/**
 * Parses `text` (valid JSON: call after JSON.parse accepted it) like JSON.parse, but an integer literal outside
 * the safe range is a RawJson of the literal.
 */
export function parseJsonExact(text: string): unknown {
  let i = 0;
  const ws = () => {
    i = skipJsonWhitespace(text, i);
  };
  const str = (): string => {
    const start = i;
    const end = jsonStringEnd(text, start);
    if (end < 0) throw new SyntaxError('unterminated string');
    i = end + 1;
    const body = text.slice(start + 1, end);
    return body.includes('\\') ? (JSON.parse(text.slice(start, i)) as string) : body;
  };
  const value = (): unknown => {
    ws();
    const c = text.charCodeAt(i);
    if (c === 123) {
      i++;
      const o: Record<string, unknown> = {};
      ws();
      if (text.charCodeAt(i) === 125) {
        i++;
        return o;
      }
      for (;;) {
        ws();
        const k = str();
        ws();
        i++; // ':'
        const v = value();
        if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
        else o[k] = v;
        ws();
        if (text.charCodeAt(i++) === 125) return o;
      }
    }
    if (c === 91) {
      i++;
      const a: unknown[] = [];
      ws();
      if (text.charCodeAt(i) === 93) {
        i++;
        return a;
      }
      for (;;) {
        a.push(value());
        ws();
        if (text.charCodeAt(i++) === 93) return a;
      }
    }
    if (c === 34) return str();
    if (text.startsWith('true', i)) {
      i += 4;
      return true;
    }
    if (text.startsWith('false', i)) {
      i += 5;
      return false;
    }
    if (text.startsWith('null', i)) {
      i += 4;
      return null;
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) throw new SyntaxError(`unexpected character at ${i}`);
    i += m[0].length;
    const n = Number(m[0]);
    if (m[1] === undefined && m[2] === undefined && !Number.isSafeInteger(n)) return new RawJson(m[0]);
    return n;
  };
  const v = value();
  ws();
  if (i < text.length) throw new SyntaxError(`unexpected text at ${i}`);
  return v;
}

/** the exact integer a value stands for: a safe integer number, or a RawJson integer literal; else undefined */
export function exactInteger(v: unknown): bigint | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? BigInt(v) : undefined;
  if (v instanceof RawJson && /^-?\d+$/.test(v.json)) return BigInt(v.json);
  return undefined;
}

/** an exact integer as a JSON number: a plain number when safe, else its digits verbatim (a RawJson) */
export function integerJson(v: bigint): number | RawJson {
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : new RawJson(v.toString());
}

/** the value at `path` (object keys, array indexes) inside a parsed JSON value; undefined when absent */
export function jsonAt(root: unknown, path: ReadonlyArray<string | number>): unknown {
  let cur = root;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    if (Array.isArray(cur)) {
      if (typeof p !== 'number') return undefined;
      cur = cur[p];
    } else {
      if (typeof p !== 'string' || !Object.prototype.hasOwnProperty.call(cur, p)) return undefined;
      cur = (cur as Record<string, unknown>)[p];
    }
  }
  return cur;
}

/**
 * `v` with every RawJson integer literal (from parseJsonExact) replaced by a string of its digits, except
 * under a `script` key: a script's source and params keep JSON's numbers (a param is a number to the script,
 * never a string)
 */
function digitsForExactIntegers(v: unknown, asNumbers = false): unknown {
  if (v instanceof RawJson) return asNumbers ? Number(v.json) : v.json;
  if (Array.isArray(v)) return v.map((x) => digitsForExactIntegers(x, asNumbers));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const value = digitsForExactIntegers(x, asNumbers || k === 'script');
      if (k === '__proto__') Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
      else out[k] = value;
    }
    return out;
  }
  return v;
}

/**
 * A search body whose `query`, `post_filter` and `search_after` keep integers beyond 2^53 exact: in the
 * queries such a number is the string of its digits (which long / unsigned_long fields read exactly, and
 * every numeric field reads as the number), in `search_after` a RawJson (sort values read it exactly for
 * longs, as its number otherwise). `parsed` is JSON.parse's value of `text`; it is returned as is when
 * `text` can not hold such an integer, and the other keys are never touched.
 */
export function withExactSearchIntegers(text: string, parsed: unknown): unknown {
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed) || !mayHoldUnsafeInteger(text)) return parsed;
  const p = parsed as Record<string, unknown>;
  if (p['query'] === undefined && p['post_filter'] === undefined && p['search_after'] === undefined) return parsed;
  let exact: Record<string, unknown>;
  try {
    exact = parseJsonExact(text) as Record<string, unknown>;
  } catch {
    return parsed;
  }
  const out: Record<string, unknown> = { ...p };
  for (const k of ['query', 'post_filter']) if (p[k] !== undefined) out[k] = digitsForExactIntegers(exact[k]);
  if (Array.isArray(p['search_after']) && Array.isArray(exact['search_after'])) out['search_after'] = exact['search_after'];
  return out;
}

/**
 * A stored `_source` text parsed for code that rebuilds it (filtering, a partial update): JSON.parse's value,
 * except that when the text may hold an integer beyond 2^53 such integers stay exact (RawJson leaves, which
 * `stringifyJson` writes back verbatim).
 */
export function parseSourceKeepingIntegers(text: string): unknown {
  return mayHoldUnsafeInteger(text) ? parseJsonExact(text) : JSON.parse(text);
}
