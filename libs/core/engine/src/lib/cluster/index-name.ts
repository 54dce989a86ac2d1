/**
 * Index and alias name validation with Elasticsearch's exact reasons.
 */
import { EsError, Errors } from '@strata/core-common';
import { DateFormatter } from '@strata/core-common';
import { parseDateMath } from '@strata/core-common';

const INVALID_CHARS = ['\\', '/', '*', '?', '"', '<', '>', '|', ' ', ','];

/**
 * Why `name` is not a valid index (or data stream) name, or undefined: ES
 * MetadataCreateIndexService.validateIndexOrAliasName plus, unless `lowercase: false`, the lowercase rule.
 */
export function indexNameProblem(name: string, opts: { lowercase?: boolean } = {}): string | undefined {
  const w = why(name);
  if (w === 'must be lowercase' && opts.lowercase === false) {
    const bytes = Buffer.byteLength(name, 'utf8');
    if (name === '.' || name === '..') return "must not be '.' or '..'";
    if (bytes > 255) return `index name is too long, (${bytes} > 255)`;
    return undefined;
  }
  return w;
}

function why(name: string): string | undefined {
  if (name.includes('#')) return "must not contain '#'";
  if (name.includes(':')) return "must not contain ':'";
  if (name.startsWith('_') || name.startsWith('-') || name.startsWith('+')) return "must not start with '_', '-', or '+'";
  for (const c of INVALID_CHARS) {
    if (name.includes(c)) return `must not contain the following characters [${INVALID_CHARS.join(', ')}]`;
  }
  if (name !== name.toLowerCase()) return 'must be lowercase';
  if (name === '.' || name === '..') return "must not be '.' or '..'";
  const bytes = Buffer.byteLength(name, 'utf8');
  if (bytes > 255) return `index name is too long, (${bytes} > 255)`;
  return undefined;
}

/** Throws invalid_index_name_exception ("Invalid index name [x], must be lowercase"). */
export function validateIndexName(name: string): void {
  if (name === '') throw Errors.invalidIndexName(name, 'must not be empty');
  const w = why(name);
  if (w) throw Errors.invalidIndexName(name, w);
}

/** Throws invalid_alias_name_exception. */
export function validateAliasName(alias: string, index?: string): void {
  if (!alias) throw Errors.illegalArgument(`alias name is required`);
  const w = why(alias);
  if (w && w !== 'must be lowercase') {
    throw new EsError('invalid_alias_name_exception', 400, `Invalid alias name [${alias}]: ${w}`, {
      metadata: index ? { index_uuid: '_na_', index } : {},
    });
  }
}

export function isHiddenName(name: string): boolean {
  return name.startsWith('.');
}

/**
 * Resolves a date math index name (`<logs-{now/d}>`, `<logs-{now/M{yyyy.MM}}>`,
 * `<logs-{now/d{yyyy.MM.dd|+12:00}}>`) to a concrete name; other names are returned unchanged.
 */
export function resolveDateMathIndexName(name: string, now: number): string {
  if (name.length < 2 || name[0] !== '<' || name[name.length - 1] !== '>') return name;
  const inner = name.slice(1, -1);
  let out = '';
  let i = 0;
  while (i < inner.length) {
    const c = inner[i];
    if (c === '\\' && i + 1 < inner.length) {
      out += inner[i + 1];
      i += 2;
      continue;
    }
    if (c === '}') throw Errors.invalidIndexName(name, `invalid character in placeholder at position [${i}]`);
    if (c !== '{') {
      out += c;
      i++;
      continue;
    }
    // placeholder: {math} or {math{format}} or {math{format|tz}}
    let depth = 0;
    let j = i;
    for (; j < inner.length; j++) {
      if (inner[j] === '\\') {
        j++;
        continue;
      }
      if (inner[j] === '{') depth++;
      else if (inner[j] === '}') {
        depth--;
        if (depth === 0) break;
      }
    }
    if (j >= inner.length) throw Errors.invalidIndexName(name, 'date math placeholder is open ended');
    const body = inner.slice(i + 1, j);
    const fb = body.indexOf('{');
    let math = body;
    let format = 'uuuu.MM.dd';
    let tz: string | undefined;
    if (fb >= 0) {
      if (!body.endsWith('}')) throw Errors.invalidIndexName(name, 'missing closing `}` for date math format');
      math = body.slice(0, fb);
      const spec = body.slice(fb + 1, -1);
      const bar = spec.indexOf('|');
      format = bar >= 0 ? spec.slice(0, bar) : spec;
      tz = bar >= 0 ? spec.slice(bar + 1) : undefined;
      if (!format) throw Errors.invalidIndexName(name, 'missing date format');
    }
    if (!math.startsWith('now')) throw new EsError('parse_exception', 400, `unsupported date math expression [${math}] in index name [${name}]`);
    const t = parseDateMath(math, { now, timeZone: tz });
    out += DateFormatter.of(format).format(t, tz);
    i = j + 1;
  }
  return out;
}
