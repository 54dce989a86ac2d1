/**
 * `_source` filtering as Elasticsearch's XContentMapValues.filter: include/exclude patterns on dotted
 * paths with `*` wildcards; an include of an object keeps it whole; excludes win.
 */
import { filterSearchSource } from '../search/source-filter.js';


export interface SourceFilter {
  includes: string[];
  excludes: string[];
}

export function hasFilter(f: SourceFilter | undefined): f is SourceFilter {
  return !!f && (f.includes.length > 0 || f.excludes.length > 0);
}

export function filterSource(source: Record<string, unknown>, f: SourceFilter): Record<string, unknown> {
  return filterSearchSource(source, f.includes, f.excludes) as Record<string, unknown>;
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
