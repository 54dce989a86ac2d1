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

function stringLeaves(v: unknown, out: string[]): void {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) stringLeaves(x, out);
  else if (isObj(v)) for (const x of Object.values(v)) stringLeaves(x, out);
}

function hasMltDocs(json: unknown): boolean {
  if (Array.isArray(json)) return json.some(hasMltDocs);
  if (!isObj(json)) return false;
  for (const [k, v] of Object.entries(json)) {
    if (k === 'more_like_this' && isObj(v)) {
      const items = [v['like'], v['unlike']].flatMap((x) => (Array.isArray(x) ? x : x === undefined ? [] : [x]));
      if (items.some((x) => isObj(x) && (x['_id'] !== undefined || x['doc'] !== undefined))) return true;
    }
    if (hasMltDocs(v)) return true;
  }
  return false;
}

/**
 * more_like_this `like`/`unlike` documents (`{_index?, _id}` or artificial `{doc}`) become `{_text, _id?}`
 * items holding the documents' string values (restricted to the query's `fields` when given).
 */
export async function resolveMoreLikeThisDocs(json: unknown, getter: LookupDocumentGetter | undefined, defaultIndex: string | undefined): Promise<unknown> {
  if (!hasMltDocs(json)) return json;
  const walk = async (v: unknown): Promise<unknown> => {
    if (Array.isArray(v)) return Promise.all(v.map(walk));
    if (!isObj(v)) return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === 'more_like_this' && isObj(x)) {
        const fields = Array.isArray(x['fields']) ? x['fields'].map(String) : undefined;
        const textOf = (src: unknown): string => {
          const parts: string[] = [];
          if (fields) for (const f of fields) for (const val of extractValues(src, f)) stringLeaves(val, parts);
          else stringLeaves(src, parts);
          return parts.join(' ');
        };
        const conv = async (item: unknown): Promise<unknown> => {
          if (!isObj(item)) return item;
          if (isObj(item['doc'])) return { _text: textOf(item['doc']) };
          if (item['_id'] === undefined) return item;
          const index = typeof item['_index'] === 'string' ? item['_index'] : defaultIndex;
          if (!index || !getter) throw Errors.illegalArgument('more_like_this: liked documents need an [_index]');
          const res = await getter.get({ index, id: String(item['_id']), ...(item['routing'] !== undefined ? { routing: String(item['routing']) } : {}) });
          const src = res.status === 200 ? res.body['_source'] : undefined;
          return { _id: String(item['_id']), _text: src === undefined ? '' : textOf(src) };
        };
        const m: Record<string, unknown> = { ...x };
        for (const key of ['like', 'unlike']) {
          const val = x[key];
          if (val === undefined) continue;
          m[key] = Array.isArray(val) ? await Promise.all(val.map(conv)) : await conv(val);
        }
        out[k] = m;
      } else out[k] = await walk(x);
    }
    return out;
  };
  return walk(json);
}
