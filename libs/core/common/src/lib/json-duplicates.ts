/**
 * Duplicate-key detection for JSON text that `JSON.parse` already accepted (Elasticsearch parses with
 * Jackson's STRICT_DUPLICATE_DETECTION: a repeated key is an error, never "last wins").
 *
 * Cheap path: the number of key tokens in the text (a scan that jumps from quote to quote with the native
 * `indexOf`) equals the number of keys of the parsed value exactly when no object repeats a key. Only on a
 * mismatch does a full scan locate the first duplicate.
 */

/** number of object keys in a parsed JSON value (iterative: any depth) */
export function countParsedKeys(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let n = 0;
  const stack: object[] = [value];
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (Array.isArray(v)) {
      for (const x of v) if (x !== null && typeof x === 'object') stack.push(x);
      continue;
    }
    for (const k in v as Record<string, unknown>) {
      n++;
      const x = (v as Record<string, unknown>)[k];
      if (x !== null && typeof x === 'object') stack.push(x);
    }
  }
  return n;
}

/** end offset (index of the closing quote) of the string starting at `q` (an opening quote); -1 if unterminated */
export function jsonStringEnd(text: string, q: number): number {
  let e = q + 1;
  for (;;) {
    e = text.indexOf('"', e);
    if (e === -1) return -1;
    let b = e - 1;
    let slashes = 0;
    while (text.charCodeAt(b) === 92) {
      slashes++;
      b--;
    }
    if ((slashes & 1) === 0) return e;
    e++;
  }
}

/** the index of the first character at or after `i` that is not JSON whitespace */
export function skipJsonWhitespace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 10 || c === 13 || c === 9) i++;
    else return i;
  }
}

/**
 * Elasticsearch's JSON parser (Jackson's StreamReadConstraints) refuses documents nested deeper than this
 * many objects/arrays; every JSON body is held to it before anything walks it recursively.
 */
export const MAX_JSON_NESTING_DEPTH = 1000;

/** Jackson's message for a document nested past the limit */
export function nestingDepthMessage(depth: number, max = MAX_JSON_NESTING_DEPTH): string {
  return `Document nesting depth (${depth}) exceeds the maximum allowed (${max}, from \`StreamReadConstraints.getMaxNestingDepth()\`)`;
}

interface KeyScan {
  /** number of `"name":` key tokens */
  keys: number;
  /** offset of the bracket that opened one level too many (-1 when the depth stays within the limit) */
  tooDeepAt: number;
}

/** one pass over valid JSON text: key tokens, and the nesting depth (brackets outside strings) */
function scanKeys(text: string, maxDepth: number): KeyScan {
  let n = 0;
  let depth = 0;
  let i = 0;
  for (;;) {
    const q = text.indexOf('"', i);
    const end = q === -1 ? text.length : q;
    for (let k = i; k < end; k++) {
      const c = text.charCodeAt(k);
      if (c === 123 || c === 91) {
        if (++depth > maxDepth) return { keys: n, tooDeepAt: k };
      } else if (c === 125 || c === 93) depth--;
    }
    if (q === -1) return { keys: n, tooDeepAt: -1 };
    const e = jsonStringEnd(text, q);
    if (e === -1) return { keys: n, tooDeepAt: -1 };
    const j = skipJsonWhitespace(text, e + 1);
    if (text.charCodeAt(j) === 58) n++;
    i = j;
  }
}

/** number of `"name":` key tokens in valid JSON text */
export function countKeyTokens(text: string): number {
  return scanKeys(text, Infinity).keys;
}

/** What Jackson would refuse in JSON text that `JSON.parse` accepted: nesting past the limit, a repeated key. */
export interface JsonProblem {
  kind: 'depth' | 'duplicate';
  /** Jackson's message (`Duplicate field 'k'`, `Document nesting depth (1001) exceeds ...`) */
  message: string;
  /** offset where Jackson reports it: after the repeated key's closing quote, at the bracket one level too deep */
  offset: number;
  /** the repeated key (kind duplicate) */
  key?: string;
}

/**
 * Checks JSON text that `JSON.parse` already accepted (`parsed` is its value) the way Jackson parses it in
 * Elasticsearch: at most MAX_JSON_NESTING_DEPTH levels, no repeated key in an object. Iterative (no recursion),
 * one scan of the text in the common case.
 */
export function checkParsedJson(text: string, parsed: unknown, maxDepth = MAX_JSON_NESTING_DEPTH): JsonProblem | undefined {
  if (parsed === null || typeof parsed !== 'object') return undefined;
  const scan = scanKeys(text, maxDepth);
  if (scan.tooDeepAt >= 0) return { kind: 'depth', message: nestingDepthMessage(maxDepth + 1, maxDepth), offset: scan.tooDeepAt };
  if (scan.keys === countParsedKeys(parsed)) return undefined;
  const dup = findDuplicateKey(text);
  return dup ? { kind: 'duplicate', message: `Duplicate field '${dup.key}'`, offset: dup.offset, key: dup.key } : undefined;
}

/**
 * Parses user JSON (a document, a field value) as Elasticsearch would: syntax errors keep JSON.parse's
 * message; depth and duplicate keys are checked. Throws `onError(message, offset)`.
 */
export function parseUserJson(text: string, onError: (message: string, offset: number) => Error): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw onError((e as Error).message, 0);
  }
  const p = checkParsedJson(text, value);
  if (p) throw onError(p.message, p.offset);
  return value;
}

export interface DuplicateKey {
  /** the repeated key (unescaped) */
  key: string;
  /** offset just after the repeated key's closing quote (where Jackson reports it) */
  offset: number;
}

/**
 * The first repeated key of an object in `text` (valid JSON whose parsed value is `parsed`), or undefined.
 * Pass `parsed` to use the cheap count check; without it the full scan always runs.
 */
export function findDuplicateKey(text: string, parsed?: unknown): DuplicateKey | undefined {
  if (parsed !== undefined) {
    if (parsed === null || typeof parsed !== 'object') return undefined;
    if (countKeyTokens(text) === countParsedKeys(parsed)) return undefined;
  }
  // full scan: a stack of key sets, one per open object (arrays push undefined)
  const stack: Array<Set<string> | undefined> = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 123) {
      stack.push(new Set());
      i++;
    } else if (c === 91) {
      stack.push(undefined);
      i++;
    } else if (c === 125 || c === 93) {
      stack.pop();
      i++;
    } else if (c === 34) {
      const e = jsonStringEnd(text, i);
      if (e === -1) return undefined;
      const j = skipJsonWhitespace(text, e + 1);
      if (text.charCodeAt(j) === 58) {
        const keys = stack[stack.length - 1];
        if (keys) {
          const raw = text.slice(i + 1, e);
          const key = raw.includes('\\') ? (JSON.parse(text.slice(i, e + 1)) as string) : raw;
          if (keys.has(key)) return { key, offset: e + 1 };
          keys.add(key);
        }
      }
      i = j;
    } else i++;
  }
  return undefined;
}
