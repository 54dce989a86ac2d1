/**
 * Shared helpers of the index admin REST handlers: target resolution and Elasticsearch-style rendering
 * of index settings and aliases.
 */
import { Errors, indicesOptionsFromParams, nestSettings, type RestRequest, type SettingsRegistry, wildcardRegExp } from '@strata/core-common';
import {
  type AliasMetadata,
  type IndexMetadata,
  type IndexNameExpressionResolver,
  type IndicesOptions,
  type MetadataStore,
} from '@strata/core-engine';

export const IndicesActions = {
  CREATE: 'indices:admin/create',
  DELETE: 'indices:admin/delete',
  GET: 'indices:admin/get',
  PUT_MAPPING: 'indices:admin/mapping/put',
  GET_MAPPINGS: 'indices:admin/mappings/get',
  GET_FIELD_MAPPINGS: 'indices:admin/mappings/fields/get',
  UPDATE_SETTINGS: 'indices:admin/settings/update',
  GET_SETTINGS: 'indices:monitor/settings/get',
  ALIASES: 'indices:admin/aliases',
  GET_ALIASES: 'indices:admin/aliases/get',
  ANALYZE: 'indices:admin/analyze',
  OPEN: 'indices:admin/open',
  CLOSE: 'indices:admin/close',
  RESOLVE: 'indices:admin/resolve/index',
} as const;

export { INDICES_OPTIONS_PARAMS } from '@strata/core-common';

/** open + closed wildcard expansion, explicit closed indices allowed (get/settings/mapping/delete) */
export const ADMIN_DEFAULTS: IndicesOptions = {
  ignoreUnavailable: false,
  allowNoIndices: true,
  expandWildcards: { open: true, closed: true, hidden: false },
};

type Resolver = IndexNameExpressionResolver & {
  resolve?(e: string | string[] | undefined, o: IndicesOptions, p: 'read' | 'write', r: { allowClosed?: boolean; includeDataStreams?: boolean }): string[];
};

export function resolveTargets(
  resolver: IndexNameExpressionResolver,
  req: RestRequest,
  expression: string | undefined,
  defaults: IndicesOptions = ADMIN_DEFAULTS,
  allowClosed = true,
  includeDataStreams = true,
): string[] {
  const opts = indicesOptionsFromParams((n) => req.param(n), defaults);
  const r = resolver as Resolver;
  if (r.resolve) return r.resolve(expression, opts, 'read', { allowClosed, includeDataStreams });
  return resolver.concreteIndices(expression, opts, 'read');
}

function str(v: unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => (x !== null && typeof x === 'object' ? x : String(x)));
  if (v === null || v === undefined) return v;
  if (typeof v === 'object') return v;
  return String(v);
}

/** Flat settings of an index as ES renders them (all values strings, internal settings included). */
export function flatIndexSettings(im: IndexMetadata): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const s = im.settings;
  const put = (k: string, v: unknown) => {
    out[k] = str(v);
  };
  for (const [k, v] of Object.entries(s)) {
    if (k === 'index.number_of_shards' || k === 'index.number_of_replicas') continue;
    put(k, v);
  }
  if (!('index.routing.allocation.include._tier_preference' in s)) put('index.routing.allocation.include._tier_preference', 'data_content');
  put('index.number_of_shards', im.numberOfShards);
  put('index.provided_name', im.name);
  put('index.creation_date', im.creationDate);
  put('index.number_of_replicas', im.numberOfReplicas);
  put('index.uuid', im.uuid);
  put('index.version.created', '8521000');
  if (im.state === 'close') put('index.verified_before_close', 'true');
  return out;
}

export function defaultIndexSettings(im: IndexMetadata, registry: SettingsRegistry, present: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const def of registry.all('index')) {
    if (def.prefix || def.key in present || def.defaultValue === undefined) continue;
    if (def.key in im.settings) continue;
    out[def.key] = str(def.defaultValue);
  }
  return out;
}

export function renderSettings(flat: Record<string, unknown>, flatSettings: boolean): Record<string, unknown> {
  if (flatSettings) return flat;
  const sorted: Record<string, unknown> = {};
  for (const k of Object.keys(flat)) sorted[k] = flat[k];
  return nestSettings(sorted);
}

export function renderAlias(a: AliasMetadata): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  if (a.filter) o['filter'] = a.filter;
  if (a.index_routing !== undefined) o['index_routing'] = a.index_routing;
  if (a.search_routing !== undefined) o['search_routing'] = a.search_routing;
  if (a.is_write_index !== undefined) o['is_write_index'] = a.is_write_index;
  if (a.is_hidden !== undefined) o['is_hidden'] = a.is_hidden;
  return o;
}

export function renderAliases(im: IndexMetadata, filter?: (alias: string) => boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(im.aliases).sort()) {
    if (filter && !filter(name)) continue;
    out[name] = renderAlias(im.aliases[name]);
  }
  return out;
}

export function wildcardMatch(pattern: string, value: string): boolean {
  if (pattern === '_all') return true;
  if (!pattern.includes('*')) return pattern === value;
  return wildcardRegExp(pattern).test(value);
}

export function destructiveRequiresName(store: MetadataStore): boolean {
  const md = store.current();
  const v = md.transientSettings['action.destructive_requires_name'] ?? md.persistentSettings['action.destructive_requires_name'];
  if (v === undefined || v === null) return true;
  return v === true || v === 'true';
}

export function requireObjectBody(req: RestRequest): Record<string, unknown> {
  const b = req.objectBody(true);
  if (!b) throw Errors.parsing('request body is required');
  return b;
}
