/**
 * `_source` filtering as Elasticsearch's XContentMapValues.filter: include/exclude patterns on dotted
 * paths with `*` wildcards; an include of an object keeps it whole; excludes win.
 */
import { wildcardRegExp } from '@strata/core-common';

type Json = unknown;

export interface SourceFilter {
  includes: string[];
  excludes: string[];
}

export function hasFilter(f: SourceFilter | undefined): f is SourceFilter {
  return !!f && (f.includes.length > 0 || f.excludes.length > 0);
}

export function filterSource(source: Record<string, unknown>, f: SourceFilter): Record<string, unknown> {
  const inc = f.includes.map(wildcardRegExp);
  const exc = f.excludes.map(wildcardRegExp);
  // does some include pattern possibly match below `path.`?
  const incPrefix = f.includes.map((p) => p);
  const mayMatchBelow = (path: string): boolean =>
    incPrefix.some((p) => {
      const star = p.indexOf('*');
      const fixed = star >= 0 ? p.slice(0, star) : p;
      const pre = path + '.';
      return fixed.startsWith(pre) || pre.startsWith(fixed) && star >= 0;
    });
  const walk = (obj: Record<string, unknown>, prefix: string, included: boolean): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(obj)) {
      const path = prefix ? `${prefix}.${k}` : k;
      if (exc.some((r) => r.test(path))) continue;
      const inHere = included || inc.length === 0 || inc.some((r) => r.test(path));
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
        if (inHere || mayMatchBelow(path)) {
          const sub = walk(v as Record<string, unknown>, path, inHere);
          if (Object.keys(sub).length > 0 || (inHere && Object.keys(v as object).length === 0)) out[k] = sub;
        }
      } else if (Array.isArray(v)) {
        if (inHere || mayMatchBelow(path)) {
          const arr = filterArray(v, path, inHere);
          if (arr.length > 0 || inHere) out[k] = arr;
        }
      } else if (inHere) out[k] = v;
    }
    return out;
  };
  const filterArray = (arr: Json[], path: string, included: boolean): Json[] => {
    const res: Json[] = [];
    for (const item of arr) {
      if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
        const sub = walk(item as Record<string, unknown>, path, included);
        if (Object.keys(sub).length > 0 || included) res.push(sub);
      } else if (Array.isArray(item)) res.push(filterArray(item, path, included));
      else if (included) res.push(item);
    }
    return res;
  };
  return walk(source, '', false);
}

/**
 * Reads `_source`, `_source_includes`, `_source_excludes` request values into
 * { fetch: boolean, filter }. `_source` may be true/false or a comma list of includes.
 */
export function parseSourceParams(
  source: unknown,
  includes: string[] | undefined,
  excludes: string[] | undefined,
): { fetch: boolean; filter?: SourceFilter } {
  let fetch = true;
  let inc: string[] = includes ?? [];
  const exc: string[] = excludes ?? [];
  if (source === false || source === 'false') fetch = false;
  else if (source === true || source === 'true' || source === undefined || source === null || source === '') fetch = true;
  else if (typeof source === 'string') inc = [...inc, ...source.split(',').map((s) => s.trim()).filter(Boolean)];
  else if (Array.isArray(source)) inc = [...inc, ...source.map(String)];
  else if (typeof source === 'object') {
    const o = source as Record<string, unknown>;
    const i = o['includes'] ?? o['include'];
    const e = o['excludes'] ?? o['exclude'];
    if (i !== undefined) inc = [...inc, ...(Array.isArray(i) ? i.map(String) : [String(i)])];
    if (e !== undefined) exc.push(...(Array.isArray(e) ? e.map(String) : [String(e)]));
  }
  if (inc.length > 0 || exc.length > 0) fetch = true;
  return { fetch, filter: inc.length || exc.length ? { includes: inc, excludes: exc } : undefined };
}
