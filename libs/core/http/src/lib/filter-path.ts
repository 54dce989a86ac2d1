import { RawJson } from '@strata/core-common';
/**
 * Elasticsearch's `?filter_path`: a comma-separated list of dotted paths; `*` matches any characters
 * inside one field name, `**` matches any number of levels, a leading `-` excludes. Arrays are
 * transparent. Objects and arrays left empty by partial matches are dropped. When every filter is
 * an exclusion, everything else is kept.
 */
interface Pattern {
  segs: string[];
  /** pre-compiled matchers per segment (undefined for `**`) */
  res: Array<RegExp | undefined>;
}

export interface FilterPath {
  includes: Pattern[];
  excludes: Pattern[];
}

function compileSeg(seg: string): RegExp | undefined {
  if (seg === '**') return undefined;
  const src = seg
    .split('*')
    .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${src}$`);
}

function compile(expr: string): Pattern {
  // a backslash-escaped dot belongs to the field name (ES allows `a\.b`)
  const segs = expr.split(/(?<!\\)\./).map((s) => s.replace(/\\\./g, '.'));
  return { segs, res: segs.map(compileSeg) };
}

export function parseFilterPath(value: string | string[] | undefined): FilterPath | undefined {
  if (value === undefined) return undefined;
  const parts = (Array.isArray(value) ? value : [value])
    .flatMap((v) => v.split(','))
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (parts.length === 0) return undefined;
  const includes: Pattern[] = [];
  const excludes: Pattern[] = [];
  for (const p of parts) {
    if (p.startsWith('-')) {
      if (p.length > 1) excludes.push(compile(p.slice(1)));
    } else includes.push(compile(p));
  }
  return { includes, excludes };
}

interface State {
  p: Pattern;
  i: number;
}

/** Advances states over a field name; returns [next states, fully matched?]. */
function advance(states: State[], key: string): [State[], boolean] {
  const next: State[] = [];
  let full = false;
  const push = (s: State): void => {
    // skip trailing `**` (matches zero levels)
    let i = s.i;
    while (i < s.p.segs.length && s.p.segs[i] === '**' && i === s.p.segs.length - 1) i++;
    if (i >= s.p.segs.length) full = true;
    else next.push({ p: s.p, i });
  };
  for (const s of states) {
    const re = s.p.res[s.i];
    if (re === undefined) {
      // `**`: stay (consume this key) or skip `**` and match the following segment
      next.push(s);
      const after = s.i + 1;
      if (after >= s.p.segs.length) full = true;
      else {
        const re2 = s.p.res[after];
        if (re2 === undefined || re2.test(key)) push({ p: s.p, i: after + 1 });
      }
    } else if (re.test(key)) push({ p: s.p, i: s.i + 1 });
  }
  return [next, full];
}

const DROP = Symbol('drop');

function include(value: unknown, states: State[]): unknown {
  if (value instanceof RawJson) value = value.value();
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const v of value) {
      const r = include(v, states);
      if (r !== DROP) out.push(r);
    }
    return out.length > 0 ? out : DROP;
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    let any = false;
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const [next, full] = advance(states, k);
      if (full) {
        out[k] = v;
        any = true;
      } else if (next.length > 0) {
        const r = include(v, next);
        if (r !== DROP) {
          out[k] = r;
          any = true;
        }
      }
    }
    return any ? out : DROP;
  }
  return DROP;
}

function exclude(value: unknown, states: State[]): unknown {
  if (value instanceof RawJson) value = value.value();
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const v of value) {
      const r = exclude(v, states);
      if (r !== DROP) out.push(r);
    }
    return out;
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const [next, full] = advance(states, k);
      if (full) continue;
      if (next.length === 0) {
        out[k] = v;
        continue;
      }
      const r = exclude(v, next);
      if (r !== DROP) out[k] = r;
    }
    return out;
  }
  return value;
}

/** Applies a parsed filter to a JSON value. Nothing matched → `{}` (as Elasticsearch answers). */
export function applyFilterPath(body: unknown, filter: FilterPath | undefined): unknown {
  if (!filter) return body;
  let out = body;
  if (filter.includes.length > 0) {
    const r = include(out, filter.includes.map((p) => ({ p, i: 0 })));
    out = r === DROP ? {} : r;
  }
  if (filter.excludes.length > 0) {
    out = exclude(out, filter.excludes.map((p) => ({ p, i: 0 })));
  }
  return out;
}
