/** Text-parsing processors: grok, dissect, kv, csv, uri_parts, fingerprint. */
import { createHash } from 'node:crypto';
import { Errors, UserRegex } from '@strata/core-common';
import { isObject, javaTypeName, type IngestDocument, type JsonObject } from '../ingest-document.js';
import { defineProcessor, type ProcessorFactory } from '../processor.js';
import { Grok, GrokCompileError } from '../grok/grok.js';
import { GROK_PATTERNS } from '../grok/grok-patterns.js';

function stringValue(doc: IngestDocument, field: string, ignoreMissing: boolean): string | undefined {
  const v = doc.getFieldValue(field, ignoreMissing);
  if (v === undefined || v === null) {
    if (ignoreMissing) return undefined;
    throw Errors.illegalArgument(`field [${field}] is null, cannot process it.`);
  }
  if (typeof v !== 'string') {
    throw Errors.illegalArgument(`field [${field}] of type [${javaTypeName(v)}] cannot be cast to [java.lang.String]`);
  }
  return v;
}

// ------------------------------------------------------------------------------------------ grok

export const grokProcessor: ProcessorFactory = defineProcessor('grok', (r) => {
  const field = r.requiredString('field');
  const patterns = r.requiredList('patterns');
  if (patterns.length === 0) throw r.error('patterns', 'List of patterns must not be empty');
  if (!patterns.every((p) => typeof p === 'string')) throw r.error('patterns', "property isn't a list of strings");
  const defs = r.optionalMap('pattern_definitions') ?? {};
  const traceMatch = r.bool('trace_match', false);
  const ignoreMissing = r.bool('ignore_missing', false);
  const ecs = r.optionalString('ecs_compatibility', 'disabled')!;
  if (ecs !== 'disabled' && ecs !== 'v1') {
    throw r.error('ecs_compatibility', `unsupported value [${ecs}]; must be one of [disabled, v1]`);
  }
  const bank: Record<string, string> = { ...GROK_PATTERNS };
  for (const [k, v] of Object.entries(defs)) bank[k] = String(v);
  let grok: Grok;
  try {
    grok = new Grok(patterns as string[], bank);
  } catch (e) {
    const msg = e instanceof GrokCompileError ? e.message : (e as Error).message;
    throw r.error('patterns', `Invalid regex pattern found in: [${(patterns as string[]).join(', ')}]. ${msg}`);
  }
  return {
    execute(doc) {
      const v = stringValue(doc, field, ignoreMissing);
      if (v === undefined) return doc;
      const m = grok.match(v);
      if (!m) throw Errors.illegalArgument(`Provided Grok expressions do not match field value: [${v}]`);
      for (const [f, val] of m.fields) doc.setFieldValue(f, val);
      if (traceMatch) {
        if (patterns.length > 1) doc.ingest['_grok_match_index'] = String(m.patternIndex);
        else doc.ingest['_grok_match_index'] = '0';
      }
      return doc;
    },
  };
});

// ------------------------------------------------------------------------------------------ dissect

interface DissectKey {
  name: string;
  kind: 'normal' | 'skip' | 'append' | 'ref_key' | 'ref_val';
  order: number;
  rightPad: boolean;
}

interface DissectPattern {
  leading: string;
  keys: Array<{ key: DissectKey; delimiter: string }>;
}

function parseDissect(pattern: string): DissectPattern {
  const re = /%\{([^}]*)\}/g;
  const keys: Array<{ key: DissectKey; delimiter: string }> = [];
  let leading = '';
  let last = 0;
  let m: RegExpExecArray | null;
  let first = true;
  while ((m = re.exec(pattern))) {
    const lit = pattern.slice(last, m.index);
    if (first) leading = lit;
    else keys[keys.length - 1].delimiter = lit;
    first = false;
    last = m.index + m[0].length;
    let raw = m[1];
    let rightPad = false;
    if (raw.endsWith('->')) {
      rightPad = true;
      raw = raw.slice(0, -2);
    }
    let kind: DissectKey['kind'] = 'normal';
    let order = 0;
    if (raw === '' || raw.startsWith('?')) {
      kind = 'skip';
      raw = raw.slice(1);
    } else if (raw.startsWith('+')) {
      kind = 'append';
      raw = raw.slice(1);
      const o = /\/(\d+)$/.exec(raw);
      if (o) {
        order = Number(o[1]);
        raw = raw.slice(0, o.index);
      }
    } else if (raw.startsWith('*')) {
      kind = 'ref_key';
      raw = raw.slice(1);
    } else if (raw.startsWith('&')) {
      kind = 'ref_val';
      raw = raw.slice(1);
    }
    keys.push({ key: { name: raw, kind, order, rightPad }, delimiter: '' });
  }
  if (keys.length === 0) throw new Error('Unable to find any keys or delimiters.');
  keys[keys.length - 1].delimiter = pattern.slice(last);
  // as ES's DissectParser: a plain key sharing its name with append keys is an append key too
  const appendNames = new Set(keys.filter((k) => k.key.kind === 'append').map((k) => k.key.name));
  for (const k of keys) if (k.key.kind === 'normal' && appendNames.has(k.key.name)) k.key.kind = 'append';
  return { leading, keys };
}

export const dissectProcessor: ProcessorFactory = defineProcessor('dissect', (r) => {
  const field = r.requiredString('field');
  const patternStr = r.requiredString('pattern');
  const appendSep = r.optionalString('append_separator', '')!;
  const ignoreMissing = r.bool('ignore_missing', false);
  let pattern: DissectPattern;
  try {
    pattern = parseDissect(patternStr);
  } catch (e) {
    throw r.error('pattern', (e as Error).message);
  }
  const fail = (v: string) => Errors.illegalArgument(`Unable to find match for dissect pattern: ${patternStr} against source: ${v}`);
  return {
    execute(doc) {
      const v = stringValue(doc, field, ignoreMissing);
      if (v === undefined) return doc;
      if (!v.startsWith(pattern.leading)) throw fail(v);
      let pos = pattern.leading.length;
      const values: Array<{ key: DissectKey; value: string }> = [];
      const n = pattern.keys.length;
      for (let i = 0; i < n; i++) {
        const { key, delimiter } = pattern.keys[i];
        let value: string;
        if (i === n - 1 && delimiter === '') {
          value = v.slice(pos);
          pos = v.length;
        } else if (delimiter === '') {
          value = '';
        } else {
          const at = v.indexOf(delimiter, pos);
          if (at < 0) throw fail(v);
          value = v.slice(pos, at);
          pos = at + delimiter.length;
          if (key.rightPad) while (v.startsWith(delimiter, pos)) pos += delimiter.length;
        }
        values.push({ key, value });
      }
      if (pos < v.length && pattern.keys[n - 1].delimiter !== '') {
        // trailing text after the final delimiter: ES ignores nothing here, it is a mismatch
        throw fail(v);
      }
      const appends = new Map<string, Array<{ order: number; idx: number; value: string }>>();
      const refKeys = new Map<string, string>();
      const refVals = new Map<string, string>();
      const results: Array<[string, string]> = [];
      values.forEach(({ key, value }, idx) => {
        switch (key.kind) {
          case 'skip':
            break;
          case 'append': {
            const list = appends.get(key.name) ?? [];
            list.push({ order: key.order, idx, value });
            appends.set(key.name, list);
            break;
          }
          case 'ref_key':
            refKeys.set(key.name, value);
            break;
          case 'ref_val':
            refVals.set(key.name, value);
            break;
          default:
            results.push([key.name, value]);
        }
      });
      for (const [name, list] of appends) {
        list.sort((a, b) => a.order - b.order || a.idx - b.idx);
        results.push([name, list.map((x) => x.value).join(appendSep)]);
      }
      for (const [name, k] of refKeys) {
        const val = refVals.get(name);
        if (val !== undefined) results.push([k, val]);
      }
      for (const [k, val] of results) doc.setFieldValue(k, val);
      return doc;
    },
  };
});

// ------------------------------------------------------------------------------------------ kv

export const kvProcessor: ProcessorFactory = defineProcessor('kv', (r) => {
  const field = r.requiredString('field');
  const fieldSplit = r.requiredString('field_split');
  const valueSplit = r.requiredString('value_split');
  const target = r.optionalString('target_field');
  const include = r.optionalList('include_keys') as string[] | undefined;
  const exclude = r.optionalList('exclude_keys') as string[] | undefined;
  const ignoreMissing = r.bool('ignore_missing', false);
  const prefix = r.optionalString('prefix', '')!;
  const trimKey = r.optionalString('trim_key');
  const trimValue = r.optionalString('trim_value');
  const stripBrackets = r.bool('strip_brackets', false);
  let fs: UserRegex;
  let vs: UserRegex;
  try {
    fs = UserRegex.java(fieldSplit);
  } catch (e) {
    throw r.error('field_split', `Invalid regex pattern. ${(e as Error).message}`);
  }
  try {
    vs = UserRegex.java(valueSplit);
  } catch (e) {
    throw r.error('value_split', `Invalid regex pattern. ${(e as Error).message}`);
  }
  const trimmer = (chars: string | undefined) => {
    if (!chars) return (s: string) => s;
    const set = new Set(chars);
    return (s: string) => {
      let a = 0;
      let b = s.length;
      while (a < b && set.has(s[a])) a++;
      while (b > a && set.has(s[b - 1])) b--;
      return s.slice(a, b);
    };
  };
  const tk = trimmer(trimKey);
  const tv = trimmer(trimValue);
  const brackets = /^[("<[']+|[)">\]']+$/g;
  return {
    execute(doc) {
      const v = stringValue(doc, field, ignoreMissing);
      if (v === undefined) return doc;
      const pairs = fs.split(v);
      for (const pair of pairs) {
        const m = vs.exec(pair);
        if (!m) throw Errors.illegalArgument(`field [${field}] does not contain value_split [${valueSplit}]`);
        let key = tk(pair.slice(0, m.index));
        let value = tv(pair.slice(m.end));
        if (stripBrackets) value = value.replace(brackets, '');
        if (include && !include.includes(key)) continue;
        if (exclude && exclude.includes(key)) continue;
        key = prefix + key;
        const path = target ? `${target}.${key}` : key;
        if (doc.hasField(path)) doc.appendFieldValue(path, value);
        else doc.setFieldValue(path, value);
      }
      return doc;
    },
  };
});

// ------------------------------------------------------------------------------------------ csv

function parseCsvLine(line: string, sep: string, quote: string, trim: boolean): string[] {
  const out: string[] = [];
  let i = 0;
  let cur = '';
  let quoted = false;
  let wasQuoted = false;
  while (i < line.length) {
    const c = line[i];
    if (quoted) {
      if (c === quote) {
        if (line[i + 1] === quote) {
          cur += quote;
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      cur += c;
      i++;
      continue;
    }
    if (c === quote && (trim ? cur.trim() === '' : cur === '')) {
      quoted = true;
      wasQuoted = true;
      cur = '';
      i++;
      continue;
    }
    if (c === sep) {
      out.push(trim && !wasQuoted ? cur.trim() : cur);
      cur = '';
      wasQuoted = false;
      i++;
      continue;
    }
    if (wasQuoted && !(trim && c === ' ')) throw Errors.illegalArgument(`Illegal character inside quoted field at ${i}`);
    if (!wasQuoted) cur += c;
    i++;
  }
  if (quoted) throw Errors.illegalArgument('Unmatched quote');
  out.push(trim && !wasQuoted ? cur.trim() : cur);
  return out;
}

export const csvProcessor: ProcessorFactory = defineProcessor('csv', (r) => {
  const field = r.requiredString('field');
  const targets = r.requiredList('target_fields');
  if (targets.length === 0) throw r.error('target_fields', 'target fields list can\'t be empty');
  const sep = r.optionalString('separator', ',')!;
  const quote = r.optionalString('quote', '"')!;
  if (sep.length !== 1) throw r.error('separator', `separator has to be single character like , or ;`);
  if (quote.length !== 1) throw r.error('quote', `quote has to be single character like " or '`);
  const trim = r.bool('trim', false);
  const ignoreMissing = r.bool('ignore_missing', false);
  const hasEmpty = r.config['empty_value'] !== undefined;
  const emptyValue = r.raw('empty_value');
  return {
    execute(doc) {
      const v = stringValue(doc, field, ignoreMissing);
      if (v === undefined) return doc;
      const cells = parseCsvLine(v, sep, quote, trim);
      for (let i = 0; i < targets.length && i < cells.length; i++) {
        const cell = cells[i];
        if (cell === '') {
          if (hasEmpty) doc.setFieldValue(String(targets[i]), emptyValue);
          continue;
        }
        doc.setFieldValue(String(targets[i]), cell);
      }
      return doc;
    },
  };
});

// ------------------------------------------------------------------------------------------ uri_parts

export function uriParts(s: string): JsonObject {
  let u: URL;
  let relative = false;
  try {
    u = new URL(s);
  } catch {
    // relative references (`/path?query#frag`) have no scheme nor authority
    if (!/^[/?#]/.test(s) || /\s/.test(s)) throw Errors.illegalArgument(`unable to parse URI [${s}]`);
    try {
      u = new URL(s, 'http://relative.invalid');
      relative = true;
    } catch {
      throw Errors.illegalArgument(`unable to parse URI [${s}]`);
    }
  }
  const out: JsonObject = {};
  if (u.hostname && !relative) out['domain'] = u.hostname.replace(/^\[|\]$/g, '');
  if (u.hash) out['fragment'] = decodeURIComponent(u.hash.slice(1));
  if (u.password) out['password'] = decodeURIComponent(u.password);
  const path = u.pathname;
  if (path) {
    out['path'] = decodeURIComponent(path);
    const last = path.slice(path.lastIndexOf('/') + 1);
    const dot = last.lastIndexOf('.');
    if (dot >= 0 && dot + 1 < last.length) out['extension'] = last.slice(dot + 1);
  }
  if (u.port) out['port'] = Number(u.port);
  else {
    const explicit = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(?:\[[^\]]*\]|[^:/?#]*):(\d+)/.exec(s);
    if (explicit) out['port'] = Number(explicit[1]);
  }
  if (u.search && u.search.length > 1) out['query'] = u.search.slice(1);
  if (!relative) out['scheme'] = u.protocol.replace(/:$/, '');
  if (u.username) {
    out['username'] = decodeURIComponent(u.username);
    out['user_info'] = u.password ? `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}` : decodeURIComponent(u.username);
  }
  return out;
}

export const uriPartsProcessor: ProcessorFactory = defineProcessor('uri_parts', (r) => {
  const field = r.requiredString('field');
  const target = r.optionalString('target_field', 'url')!;
  const keepOriginal = r.bool('keep_original', true);
  const removeIfSuccessful = r.bool('remove_if_successful', false);
  const ignoreMissing = r.bool('ignore_missing', false);
  return {
    execute(doc) {
      const v = stringValue(doc, field, ignoreMissing);
      if (v === undefined) return doc;
      const parts = uriParts(v);
      if (keepOriginal) parts['original'] = v;
      if (removeIfSuccessful && field !== target) doc.removeField(field);
      doc.setFieldValue(target, parts);
      return doc;
    },
  };
});

// ------------------------------------------------------------------------------------------ fingerprint

const HASHES: Record<string, string> = { MD5: 'md5', 'SHA-1': 'sha1', 'SHA-256': 'sha256', 'SHA-512': 'sha512' };

const DELIM = Buffer.from([0]);
const TRUE_BYTES = Buffer.from([1]);
const FALSE_BYTES = Buffer.from([2]);

/** value bytes as Elasticsearch's fingerprint processor feeds them (JSON ints → int/long LE, decimals → double LE) */
function fingerprintBytes(v: unknown): Buffer {
  if (typeof v === 'string') return Buffer.from(v, 'utf8');
  if (typeof v === 'boolean') return v ? TRUE_BYTES : FALSE_BYTES;
  if (typeof v === 'number') {
    if (Number.isInteger(v) && v >= -2147483648 && v <= 2147483647) {
      const b = Buffer.alloc(4);
      b.writeInt32LE(v);
      return b;
    }
    if (Number.isSafeInteger(v)) {
      const b = Buffer.alloc(8);
      b.writeBigInt64LE(BigInt(v));
      return b;
    }
    const b = Buffer.alloc(8);
    b.writeDoubleLE(v);
    return b;
  }
  return Buffer.alloc(0);
}

function feed(v: unknown, hash: ReturnType<typeof createHash>): void {
  if (Array.isArray(v)) {
    for (const x of v) feed(x, hash);
  } else if (isObject(v)) {
    for (const k of Object.keys(v).sort()) {
      hash.update(DELIM);
      hash.update(Buffer.from(k, 'utf8'));
      feed(v[k], hash);
    }
  } else {
    hash.update(DELIM);
    hash.update(fingerprintBytes(v));
  }
}

export const fingerprintProcessor: ProcessorFactory = defineProcessor('fingerprint', (r) => {
  const fields = r.requiredList('fields');
  if (fields.length === 0) throw r.error('fields', 'must specify at least one field');
  if (!fields.every((f) => typeof f === 'string')) throw r.error('fields', "property isn't a list of strings");
  const sorted = [...(fields as string[])].sort();
  const target = r.optionalString('target_field', 'fingerprint')!;
  const salt = r.optionalString('salt', '')!;
  const method = r.optionalString('method', 'SHA-1')!;
  if (HASHES[method] === undefined) {
    throw r.error('method', `[${method}] must be one of the supported hash methods [MD5,SHA-1,SHA-256,SHA-512]`);
  }
  const ignoreMissing = r.bool('ignore_missing', false);
  return {
    execute(doc) {
      const values: unknown[] = [];
      for (const f of sorted) {
        const v = doc.getFieldValue(f, true);
        if (v === undefined || v === null) {
          if (ignoreMissing) continue;
          throw Errors.illegalArgument(`missing field [${f}] when calculating fingerprint`);
        }
        values.push(v);
      }
      if (values.length === 0) return doc;
      const hash = createHash(HASHES[method]);
      if (salt.trim() !== '') hash.update(Buffer.from(salt, 'utf8'));
      for (const v of values) feed(v, hash);
      doc.setFieldValue(target, hash.digest('base64'));
      return doc;
    },
  };
});
