/**
 * Positions in a raw JSON body, as Jackson reports them (1-based line and column of a token's first
 * character): the one implementation behind every `[line:col]` of x_content_parse_exception / parsing_exception
 * and every `line: L, column: C` of json_parse_exception, including errors raised after the body was parsed
 * into plain objects.
 */
import { EsError, Errors } from './errors.js';

export interface JsonPosition {
  line: number;
  col: number;
}

/** line and column (1-based) of a character offset (offsets past the end count to the end) */
export function positionOf(raw: string, offset: number): JsonPosition {
  const end = Math.min(Math.max(offset, 0), raw.length);
  let line = 1;
  let lineStart = 0;
  for (let i = raw.indexOf('\n'); i >= 0 && i < end; i = raw.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, col: end - lineStart + 1 };
}

/** Jackson's JsonParseException (`json_parse_exception`) for a syntax problem at `at` */
export function jsonParseError(message: string, at: JsonPosition): EsError {
  return new EsError('json_parse_exception', 400, `${message}\n at [Source: (byte[])"..."; line: ${at.line}, column: ${at.col}]`);
}

/**
 * The x_content_parse_exception for a syntax problem at `offset` of `raw`: `[line:col] message`, caused by the
 * json_parse_exception; as in Elasticsearch the root cause is the x_content_parse_exception itself (Jackson's
 * exception is not an ElasticsearchException, so it only shows up under caused_by).
 */
export function jsonSyntaxError(raw: string, offset: number, message: string): EsError {
  return jsonSyntaxErrorAt(positionOf(raw, offset), message);
}

/** jsonSyntaxError at a known position (a line of an NDJSON body, bytes that are not UTF-8) */
export function jsonSyntaxErrorAt(at: JsonPosition, message: string): EsError {
  const root = Errors.xContentParse(message, at.line, at.col);
  return new EsError(root.type, root.status, root.reason, { cause: jsonParseError(message, at), rootCauses: [root] });
}

/**
 * Position of the first member named `name` anywhere in `raw` (the first `"name"` followed by `:`): of its key
 * token (`'key'`, what ObjectParser reports for an unknown field) or of its value (`'value'`, for a value that
 * fails to parse); undefined when there is none.
 */
export function locateKey(raw: string, name: string, which: 'key' | 'value'): JsonPosition | undefined {
  const re = new RegExp(JSON.stringify(name).replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '\\s*:\\s*', 'g');
  const m = re.exec(raw);
  if (!m) return undefined;
  return positionOf(raw, which === 'key' ? m.index : m.index + m[0].length);
}

/**
 * Offsets of the key and of the value reached by following `path` (object keys) from the root object of
 * `raw`; undefined when the path does not exist or the text is not well-formed along the way.
 */
export function locateJsonPath(raw: string, path: readonly string[]): { key: number; value: number } | undefined {
  let i = 0;
  const n = raw.length;
  const ws = (): void => {
    while (i < n && (raw[i] === ' ' || raw[i] === '\n' || raw[i] === '\r' || raw[i] === '\t')) i++;
  };
  const str = (): string | undefined => {
    const start = i++;
    while (i < n && raw[i] !== '"') i += raw[i] === '\\' ? 2 : 1;
    i++;
    try {
      return JSON.parse(raw.slice(start, i)) as string;
    } catch {
      return undefined;
    }
  };
  const skipValue = (): boolean => {
    ws();
    const c = raw[i];
    if (c === '"') return str() !== undefined;
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      ws();
      if (raw[i] === close) {
        i++;
        return true;
      }
      for (;;) {
        if (c === '{') {
          ws();
          if (raw[i] !== '"' || str() === undefined) return false;
          ws();
          if (raw[i++] !== ':') return false;
        }
        if (!skipValue()) return false;
        ws();
        if (raw[i] === ',') {
          i++;
          continue;
        }
        if (raw[i] === close) {
          i++;
          return true;
        }
        return false;
      }
    }
    const s = i;
    while (i < n && !/[\s,\]}]/.test(raw[i]!)) i++;
    return i > s;
  };
  let keyAt = -1;
  for (const want of path) {
    ws();
    if (raw[i] !== '{') return undefined;
    i++;
    for (;;) {
      ws();
      if (raw[i] !== '"') return undefined;
      const at = i;
      const k = str();
      ws();
      if (k === undefined || raw[i++] !== ':') return undefined;
      ws();
      if (k === want) {
        keyAt = at;
        break;
      }
      if (!skipValue()) return undefined;
      ws();
      if (raw[i] !== ',') return undefined;
      i++;
    }
  }
  ws();
  return keyAt < 0 ? undefined : { key: keyAt, value: i };
}

/**
 * The first byte of `bytes[from, to)` that is not well-formed UTF-8, with the message Jackson's byte parser
 * gives there (Elasticsearch refuses such JSON; decoding it as a string would replace the bytes with U+FFFD
 * silently): an invalid start byte, a continuation byte missing or wrong, or a sequence that encodes no
 * character (overlong, a surrogate, beyond U+10FFFF). Null when all of it is well-formed.
 */
export function invalidUtf8(bytes: Uint8Array, from = 0, to = bytes.length): { offset: number; message: string } | null {
  const hex = (b: number): string => `0x${b.toString(16)}`;
  let i = from;
  while (i < to) {
    const c = bytes[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    const n = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : 0;
    if (n === 0) return { offset: i, message: `Invalid UTF-8 start byte ${hex(c)}` };
    let cp = c & (n === 1 ? 0x1f : n === 2 ? 0x0f : 0x07);
    for (let k = 1; k <= n; k++) {
      if (i + k >= to) return { offset: i + k, message: 'Unexpected end-of-input in the middle of a UTF-8 character' };
      const d = bytes[i + k]!;
      if ((d & 0xc0) !== 0x80) return { offset: i + k, message: `Invalid UTF-8 middle byte ${hex(d)}` };
      cp = (cp << 6) | (d & 0x3f);
    }
    const min = n === 1 ? 0x80 : n === 2 ? 0x800 : 0x10000;
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return { offset: i + 1, message: `Invalid UTF-8 middle byte ${hex(bytes[i + 1]!)}` };
    i += n + 1;
  }
  return null;
}
