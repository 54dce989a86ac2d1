/**
 * JSON text that must reach the client exactly as stored (Elasticsearch returns a document's `_source` as
 * the bytes it received: big integers, `1.0`, `1e3`, spacing and escapes are kept).
 *
 * Put a `RawJson` anywhere in a response body; `stringifyJson` (used by core-http's renderer) splices its
 * text verbatim. Anything else that serialises the body with plain `JSON.stringify` gets the parsed value
 * (via `toJSON`), so a RawJson is never rendered as `{"json": ...}`.
 */
export class RawJson {
  private parsed?: { value: unknown };

  /** `json` must be one complete, valid JSON value */
  constructor(readonly json: string) {}

  /** the parsed value (cached; callers must not mutate it) */
  value(): unknown {
    if (!this.parsed) this.parsed = { value: JSON.parse(this.json) };
    return this.parsed.value;
  }

  toJSON(): unknown {
    if (collector !== undefined) {
      collector.push(this);
      return `${MARK_PREFIX}${collector.length - 1}__`;
    }
    return this.value();
  }
}

// a per-process nonce makes a forged marker (a string value equal to a marker) practically impossible
const NONCE = Math.random().toString(36).slice(2, 10) + Date.now().toString(36);
const MARK_PREFIX = `__strata_raw_${NONCE}_`;
const MARK_RE = new RegExp(`"${MARK_PREFIX}(\\d+)__"`, 'g');
let collector: RawJson[] | undefined;

/** `JSON.stringify` that writes every RawJson's text verbatim (one native stringify plus a splice pass). */
export function stringifyJson(value: unknown): string {
  const prev = collector;
  const found: RawJson[] = [];
  collector = found;
  let out: string | undefined;
  try {
    out = JSON.stringify(value);
  } finally {
    collector = prev;
  }
  if (out === undefined) return 'null';
  if (found.length === 0) return out;
  return out.replace(MARK_RE, (_m, i: string) => found[Number(i)]!.json);
}

/** Deep copy with every RawJson replaced by its parsed value (for code that must walk the structure). */
export function materializeRawJson(value: unknown): unknown {
  if (value instanceof RawJson) return value.value();
  if (Array.isArray(value)) return value.map(materializeRawJson);
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = materializeRawJson(v);
    return out;
  }
  return value;
}

/** the value itself, or the parsed value of a RawJson */
export function jsonValue(value: unknown): unknown {
  return value instanceof RawJson ? value.value() : value;
}
