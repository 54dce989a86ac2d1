/**
 * Positions in a raw JSON body, as Jackson reports them (1-based line and column of a token's first
 * character), for errors raised after the body was parsed into plain objects.
 */
export interface JsonPosition {
  line: number;
  col: number;
}

export function positionOf(raw: string, offset: number): JsonPosition {
  const before = raw.substring(0, offset);
  const nl = before.lastIndexOf('\n');
  return { line: before.split('\n').length, col: offset - nl };
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
