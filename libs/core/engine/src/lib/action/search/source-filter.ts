/** `_source` includes/excludes filtering with `*` wildcards on dotted paths (XContentMapValues.filter). */
import { RawJson, wildcardRegExp, type StringMatcher } from '@strata/core-common';

/** an object or array to walk into (a RawJson, an exact integer kept from the stored text, is a leaf) */
function isNode(v: unknown): v is object {
  return v !== null && typeof v === 'object' && !(v instanceof RawJson);
}

interface Compiled {
  exact: string[];
  wild: Array<{ re: StringMatcher; prefix: string }>;
}

function compile(patterns: string[]): Compiled {
  const c: Compiled = { exact: [], wild: [] };
  for (const p of patterns) {
    if (p.includes('*')) c.wild.push({ re: wildcardRegExp(p), prefix: p.substring(0, p.indexOf('*')) });
    else c.exact.push(p);
  }
  return c;
}

function matches(c: Compiled, path: string): boolean {
  for (const e of c.exact) if (e === path) return true;
  for (const w of c.wild) if (w.re.test(path)) return true;
  return false;
}

/** could a descendant of path match? */
function mayMatchBelow(c: Compiled, path: string): boolean {
  const pre = path + '.';
  for (const e of c.exact) if (e.startsWith(pre)) return true;
  for (const w of c.wild) if (w.prefix.startsWith(pre) || pre.startsWith(w.prefix)) return true;
  return false;
}

export function filterSearchSource(source: unknown, includes: string[], excludes: string[]): unknown {
  if (includes.length === 0 && excludes.length === 0) return source;
  const inc = compile(includes);
  const exc = compile(excludes);
  const walk = (v: unknown, path: string, included: boolean): unknown => {
    if (Array.isArray(v)) {
      const out: unknown[] = [];
      for (const x of v) {
        if (isNode(x)) {
          const r = walk(x, path, included);
          if (r !== undefined && (Array.isArray(r) || Object.keys(r as object).length > 0 || included)) out.push(r);
        } else if (included) out.push(x);
      }
      return out.length || included ? out : undefined;
    }
    if (isNode(v)) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        const p = path ? `${path}.${k}` : k;
        if (matches(exc, p)) continue;
        const inHere = included || includes.length === 0 || matches(inc, p);
        if (inHere) {
          const r = isNode(x) ? walk(x, p, true) : x;
          if (r !== undefined) out[k] = r;
        } else if (isNode(x) && mayMatchBelow(inc, p)) {
          const r = walk(x, p, false);
          if (r !== undefined && (Array.isArray(r) ? r.length > 0 : Object.keys(r as object).length > 0)) out[k] = r;
        }
      }
      return out;
    }
    return included ? v : undefined;
  };
  return walk(source, '', false) ?? {};
}

/**
 * values at a dotted path of a source object, flattening arrays; also matches keys that contain dots.
 * `flattenLeaf` false keeps an array found at the path as one value (a geo_point `[lon, lat]`).
 */
export function extractValues(source: unknown, path: string, flattenLeaf = true): unknown[] {
  const out: unknown[] = [];
  const visit = (v: unknown, rest: string): void => {
    if (v === undefined) return;
    if (Array.isArray(v) && (flattenLeaf || rest !== '')) {
      for (const x of v) visit(x, rest);
      return;
    }
    if (rest === '') {
      if (v !== null) out.push(v);
      return;
    }
    if (v === null || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    // try the longest key prefixes first (keys with dots like "a.b")
    const parts = rest.split('.');
    for (let i = parts.length; i >= 1; i--) {
      const key = parts.slice(0, i).join('.');
      if (key in o) visit(o[key], parts.slice(i).join('.'));
    }
  };
  visit(source, path);
  return out;
}
