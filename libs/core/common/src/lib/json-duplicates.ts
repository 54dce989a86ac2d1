/**
 * Duplicate-key detection for JSON text that `JSON.parse` already accepted (Elasticsearch parses with
 * Jackson's STRICT_DUPLICATE_DETECTION: a repeated key is an error, never "last wins").
 *
 * Cheap path: the number of key tokens in the text (a scan that jumps from quote to quote with the native
 * `indexOf`) equals the number of keys of the parsed value exactly when no object repeats a key. Only on a
 * mismatch does a full scan locate the first duplicate.
 */

/** number of object keys in a parsed JSON value */
export function countParsedKeys(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let n = 0;
  if (Array.isArray(value)) {
    for (const v of value) if (v !== null && typeof v === 'object') n += countParsedKeys(v);
    return n;
  }
  for (const k in value as Record<string, unknown>) {
    n++;
    const v = (value as Record<string, unknown>)[k];
    if (v !== null && typeof v === 'object') n += countParsedKeys(v);
  }
  return n;
}

/** end offset (index of the closing quote) of the string starting at `q` (an opening quote); -1 if unterminated */
function stringEnd(text: string, q: number): number {
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

function skipWs(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 10 || c === 13 || c === 9) i++;
    else return i;
  }
}

/** number of `"name":` key tokens in valid JSON text */
export function countKeyTokens(text: string): number {
  let n = 0;
  let i = 0;
  for (;;) {
    const q = text.indexOf('"', i);
    if (q === -1) return n;
    const e = stringEnd(text, q);
    if (e === -1) return n;
    const j = skipWs(text, e + 1);
    if (text.charCodeAt(j) === 58) n++;
    i = j;
  }
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
      const e = stringEnd(text, i);
      if (e === -1) return undefined;
      const j = skipWs(text, e + 1);
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
