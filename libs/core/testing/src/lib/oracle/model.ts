/**
 * The oracle's model of an index: a small mapping and the live documents (id → _source), plus the value
 * semantics the naive evaluators share, written from the Elasticsearch reference rather than from the
 * engine: keyword order is UTF-8 byte order, ip order is the 16-byte IPv4-mapped-IPv6 order, dates are
 * epoch milliseconds, text is split on spaces (the generated vocabulary is lowercase ASCII words, so the
 * standard analyzer does exactly that).
 */

export type Json = Record<string, unknown>;

export type OracleFieldType = 'keyword' | 'text' | 'long' | 'integer' | 'double' | 'float' | 'date' | 'ip' | 'boolean';

export interface OracleField {
  name: string;
  type: OracleFieldType;
  /** the `nested` field this one lives in (its full name starts with `<nested>.`); undefined at the root */
  nested?: string;
  /** a runtime field (scripts.ts): sent as `runtime_mappings` with each search, never indexed */
  runtime?: boolean;
}

export interface OracleMapping {
  fields: OracleField[];
  /** `nested` fields (each object a hidden document); their sub-fields are in `fields` with `nested` set */
  nested?: string[];
  /** a join field (join.ts) is mapped: parents and children of the `p` → `c` relation */
  join?: boolean;
}

export interface ModelDoc {
  id: string;
  source: Json;
}

/** the live documents of the model, in no particular order */
export type Corpus = readonly ModelDoc[];

export const NUMERIC_TYPES: readonly OracleFieldType[] = ['long', 'integer', 'double', 'float'];

export function isNumeric(t: OracleFieldType): boolean {
  return NUMERIC_TYPES.includes(t);
}

export function fieldOf(mapping: OracleMapping, name: string): OracleField | undefined {
  return mapping.fields.find((f) => f.name === name);
}

/** the non-null values of a field in a document (arrays flattened) */
export function valuesOf(doc: ModelDoc, field: string): unknown[] {
  const v = doc.source[field];
  if (v === undefined || v === null) return [];
  const list = Array.isArray(v) ? v : [v];
  return list.filter((x) => x !== null && x !== undefined);
}

// ------------------------------------------------------------------------------------------ orders

const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8');

/** keyword terms compare as UTF-8 bytes (Lucene BytesRef), not as UTF-16 code units */
export function compareUtf8(a: string, b: string): number {
  return Buffer.compare(utf8(a), utf8(b));
}

/**
 * The generated ip values with their 16-byte form (hex, IPv4 mapped into IPv6) and canonical text, as
 * Elasticsearch stores and renders them. A table rather than a parser: the oracle only uses these values.
 */
export const IP_VALUES: ReadonlyArray<{ text: string; hex: string; canonical: string }> = [
  { text: '10.0.0.1', hex: '00000000000000000000ffff0a000001', canonical: '10.0.0.1' },
  { text: '10.0.0.2', hex: '00000000000000000000ffff0a000002', canonical: '10.0.0.2' },
  { text: '10.1.2.3', hex: '00000000000000000000ffff0a010203', canonical: '10.1.2.3' },
  { text: '192.168.1.1', hex: '00000000000000000000ffffc0a80101', canonical: '192.168.1.1' },
  { text: '::1', hex: '00000000000000000000000000000001', canonical: '::1' },
  { text: '2001:db8::1', hex: '20010db8000000000000000000000001', canonical: '2001:db8::1' },
  { text: '2001:db8::ff', hex: '20010db80000000000000000000000ff', canonical: '2001:db8::ff' },
  { text: '::ffff:1.2.3.4', hex: '00000000000000000000ffff01020304', canonical: '1.2.3.4' },
  { text: '1.2.3.4', hex: '00000000000000000000ffff01020304', canonical: '1.2.3.4' },
];

/** CIDR blocks the generators use, as [text, lowest hex, highest hex] */
export const IP_CIDRS: ReadonlyArray<{ text: string; lo: string; hi: string }> = [
  { text: '10.0.0.0/8', lo: '00000000000000000000ffff0a000000', hi: '00000000000000000000ffff0affffff' },
  { text: '10.0.0.0/31', lo: '00000000000000000000ffff0a000000', hi: '00000000000000000000ffff0a000001' },
  { text: '192.168.0.0/16', lo: '00000000000000000000ffffc0a80000', hi: '00000000000000000000ffffc0a8ffff' },
  { text: '2001:db8::/32', lo: '20010db8000000000000000000000000', hi: '20010db8ffffffffffffffffffffffff' },
  { text: '::/64', lo: '00000000000000000000000000000000', hi: '0000000000000000ffffffffffffffff' },
];

export function ipHex(text: string): string {
  const e = IP_VALUES.find((x) => x.text === text);
  if (!e) throw new Error(`oracle: ip value [${text}] is not in IP_VALUES`);
  return e.hex;
}

export function ipCanonical(text: string): string {
  return IP_VALUES.find((x) => x.text === text)?.canonical ?? text;
}

export function ipCanonicalOfHex(hex: string): string {
  return IP_VALUES.find((x) => x.hex === hex)!.canonical;
}

export function dateMillis(v: unknown): number {
  if (typeof v === 'number') return v;
  const ms = Date.parse(String(v));
  if (Number.isNaN(ms)) throw new Error(`oracle: bad date [${String(v)}]`);
  return ms;
}

/** A comparable key of a doc value for a field type (number, or string compared with compareKey). */
export type SortKey = number | string;

export function keyOf(type: OracleFieldType, v: unknown): SortKey {
  switch (type) {
    case 'keyword':
      return String(v);
    case 'ip':
      return ipHex(String(v));
    case 'date':
      return dateMillis(v);
    case 'boolean':
      return v === true || v === 'true' ? 1 : 0;
    case 'text':
      return String(v);
    default:
      return Number(v);
  }
}

export function compareKey(type: OracleFieldType, a: SortKey, b: SortKey): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (type === 'keyword' || type === 'text') return compareUtf8(String(a), String(b));
  return a < b ? -1 : a > b ? 1 : 0;
}

/** the distinct keys of a field in a doc */
export function keysOf(doc: ModelDoc, field: OracleField): SortKey[] {
  const out: SortKey[] = [];
  for (const v of valuesOf(doc, field.name)) {
    const k = keyOf(field.type, v);
    if (!out.includes(k)) out.push(k);
  }
  return out;
}

/** the value a numeric field stores: floats are float32, integers whole */
export function storedNumber(type: OracleFieldType, v: unknown): number {
  const n = Number(v);
  if (type === 'float') return Math.fround(n);
  return n;
}

/** tokens of a text value (lowercase ASCII words separated by spaces) */
export function tokens(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t.length > 0);
}

/**
 * Elasticsearch's Queries.calculateMinShouldMatch for the forms the generators use: "3", "-1", "75%",
 * "-25%" (and numbers). Percentages are computed in float and truncated, as in Java.
 */
export function minShouldMatch(optional: number, spec: string | number): number {
  const s = String(spec).trim();
  let result: number;
  if (s.endsWith('%')) {
    const pct = parseInt(s.slice(0, -1), 10);
    const calc = Math.fround(Math.fround(optional * pct) * Math.fround(1 / 100));
    result = calc < 0 ? optional + Math.trunc(calc) : Math.trunc(calc);
  } else {
    const n = parseInt(s, 10);
    result = n < 0 ? optional + n : n;
  }
  return result < 0 ? 0 : result;
}
