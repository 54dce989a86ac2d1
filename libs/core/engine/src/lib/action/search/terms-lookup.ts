/**
 * Terms lookup (`{"terms": {"field": {"index", "id", "path", "routing"?}}}`): resolved at the coordinator
 * before parsing, by fetching the document and replacing the lookup with the values found at `path`.
 */
import { Errors } from '@strata/core-common';
import { extractValues } from './source-filter.js';

export interface LookupDocumentGetter {
  get(req: { index: string; id: string; routing?: string }): Promise<{ status: number; body: Record<string, unknown> }>;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function hasLookup(json: unknown): boolean {
  if (Array.isArray(json)) return json.some(hasLookup);
  if (!isObj(json)) return false;
  for (const [k, v] of Object.entries(json)) {
    if (k === 'terms' && isObj(v)) {
      for (const [f, x] of Object.entries(v)) if (f !== 'boost' && f !== '_name' && isObj(x)) return true;
    }
    if (hasLookup(v)) return true;
  }
  return false;
}

/** returns the JSON with every terms lookup replaced by the looked-up values (the input is not modified) */
export async function resolveTermsLookups(json: unknown, getter: LookupDocumentGetter | undefined): Promise<unknown> {
  if (!hasLookup(json)) return json;
  const walk = async (v: unknown): Promise<unknown> => {
    if (Array.isArray(v)) return Promise.all(v.map(walk));
    if (!isObj(v)) return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === 'terms' && isObj(x)) {
        const t: Record<string, unknown> = {};
        for (const [f, spec] of Object.entries(x)) {
          if (f === 'boost' || f === '_name' || !isObj(spec)) {
            t[f] = spec;
            continue;
          }
          if (typeof spec['index'] !== 'string' || spec['id'] === undefined || typeof spec['path'] !== 'string') {
            throw Errors.parsing('[terms] query lookup element requires specifying [index], [id] and [path]');
          }
          if (!getter) throw Errors.parsing('[terms] query does not support terms lookup');
          const res = await getter.get({
            index: spec['index'],
            id: String(spec['id']),
            ...(spec['routing'] !== undefined ? { routing: String(spec['routing']) } : {}),
          });
          const src = res.status === 200 ? res.body['_source'] : undefined;
          t[f] = src === undefined ? [] : extractValues(src, spec['path']).filter((y) => y === null || typeof y !== 'object');
        }
        out[k] = t;
      } else out[k] = await walk(x);
    }
    return out;
  };
  return walk(json);
}
