/**
 * Index templates as Elasticsearch applies them at index creation (MetadataIndexTemplateService /
 * MetadataCreateIndexService): the composable (v2) template of highest priority whose pattern matches,
 * composed from its component templates in order; otherwise every matching legacy (v1) template by
 * ascending `order`. Templates are stored in cluster metadata custom sections by their owner (the
 * data-streams feature): `index_template`, `component_template` and `templates` (legacy), each a map of
 * name → the ES body with settings flattened under `index.` keys.
 */
import { flattenSettings } from '@strata/core-common';
import { simpleMatch } from '../mapper/mapping.js';
import type { ClusterMetadata } from './metadata.js';

type Json = Record<string, unknown>;

export const TemplateSections = {
  INDEX: 'index_template',
  COMPONENT: 'component_template',
  LEGACY: 'templates',
} as const;

/** the prefix of data stream backing indices */
export const BACKING_INDEX_PREFIX = '.ds-';

function isObj(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** ES Regex.isMatchAllPattern */
export function isMatchAllPattern(p: string): boolean {
  return p === '*';
}

/**
 * Whether two `*`-wildcard patterns can match a common string (ES intersects their automata to find
 * overlapping templates).
 */
export function patternsOverlap(a: string, b: string): boolean {
  const memo = new Map<number, boolean>();
  const go = (i: number, j: number): boolean => {
    const key = i * (b.length + 1) + j;
    const m = memo.get(key);
    if (m !== undefined) return m;
    let r: boolean;
    if (i === a.length && j === b.length) r = true;
    else if (i < a.length && a[i] === '*') r = go(i + 1, j) || (j < b.length && go(i, j + 1)) || (j < b.length && b[j] === '*' && go(i + 1, j + 1));
    else if (j < b.length && b[j] === '*') r = go(i, j + 1) || (i < a.length && go(i + 1, j));
    else r = i < a.length && j < b.length && a[i] === b[j] && go(i + 1, j + 1);
    memo.set(key, r);
    return r;
  };
  return go(0, 0);
}

export function anyPatternsOverlap(as: readonly string[], bs: readonly string[]): boolean {
  return as.some((a) => bs.some((b) => patternsOverlap(a, b)));
}

export function templatePatterns(t: Json): string[] {
  const p = t['index_patterns'];
  if (Array.isArray(p)) return p.map(String);
  if (typeof p === 'string') return p.split(',').map((s) => s.trim()).filter(Boolean);
  return [];
}

export function templateSection(md: ClusterMetadata, section: string): Record<string, Json> {
  const s = md.custom[section];
  return isObj(s) ? (s as Record<string, Json>) : {};
}

/** normalised flat `index.*` settings of a settings object (nested or flat, with or without the prefix) */
export function normalizeTemplateSettings(raw: unknown): Json {
  if (!isObj(raw)) return {};
  const flat = flattenSettings(raw);
  const out: Json = {};
  for (const [k, v] of Object.entries(flat)) out[k.startsWith('index.') ? k : `index.${k}`] = v;
  return out;
}

/** The name of the composable template for `indexName` (ES findV2Template), or undefined. */
export function findV2Template(md: ClusterMetadata, indexName: string, isHidden = false): string | undefined {
  let winner: string | undefined;
  let best = -Infinity;
  for (const [name, t] of Object.entries(templateSection(md, TemplateSections.INDEX)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const pats = templatePatterns(t);
    if (isHidden && pats.some(isMatchAllPattern)) continue;
    if (!pats.some((p) => simpleMatch(p, indexName))) continue;
    const pr = typeof t['priority'] === 'number' ? (t['priority'] as number) : 0;
    if (pr > best) {
      best = pr;
      winner = name;
    }
  }
  return winner;
}

/** Matching legacy templates, by `order` descending (ES findV1Templates). */
export function findV1Templates(md: ClusterMetadata, indexName: string, isHidden: boolean | undefined): Array<[string, Json]> {
  const out: Array<[string, Json]> = [];
  for (const [name, t] of Object.entries(templateSection(md, TemplateSections.LEGACY))) {
    const pats = templatePatterns(t);
    if (isHidden === true && pats.some(isMatchAllPattern)) continue;
    if (pats.some((p) => simpleMatch(p, indexName))) out.push([name, t]);
  }
  out.sort((a, b) => order(b[1]) - order(a[1]));
  if (isHidden === undefined) {
    const hiddenBy = out.find(([, t]) => normalizeTemplateSettings(t['settings'])['index.hidden'] !== undefined);
    const v = hiddenBy ? normalizeTemplateSettings(hiddenBy[1]['settings'])['index.hidden'] : undefined;
    if (v === true || v === 'true') return out.filter(([, t]) => !templatePatterns(t).some(isMatchAllPattern));
  }
  return out;
}

function order(t: Json): number {
  return typeof t['order'] === 'number' ? (t['order'] as number) : Number(t['order'] ?? 0) || 0;
}

function innerTemplate(t: Json | undefined): Json {
  return t && isObj(t['template']) ? (t['template'] as Json) : {};
}

/** the component templates of a composable template that exist, in order */
function components(md: ClusterMetadata, t: Json): Json[] {
  const comps = templateSection(md, TemplateSections.COMPONENT);
  const names = Array.isArray(t['composed_of']) ? (t['composed_of'] as unknown[]).map(String) : [];
  return names.filter((n) => isObj(comps[n])).map((n) => innerTemplate(comps[n]));
}

/** settings of a composable template: components in order, then the template itself */
export function v2Settings(md: ClusterMetadata, t: Json): Json {
  const out: Json = {};
  for (const c of components(md, t)) Object.assign(out, normalizeTemplateSettings(c['settings']));
  Object.assign(out, normalizeTemplateSettings(innerTemplate(t)['settings']));
  return out;
}

/** `{_doc: {...}}` → `{...}` */
export function unwrapMapping(m: unknown): Json | undefined {
  if (!isObj(m)) return undefined;
  const keys = Object.keys(m);
  if (keys.length === 1 && keys[0] === '_doc' && isObj(m['_doc'])) return m['_doc'] as Json;
  return m;
}

export const DATA_STREAM_TIMESTAMP_FIELD = '@timestamp';

/**
 * mappings of a composable template in precedence order (lowest first): for a data stream backing index the
 * default `@timestamp` date mapping first and the `_data_stream_timestamp` meta field last, like ES.
 */
export function v2Mappings(md: ClusterMetadata, t: Json, backingIndex: boolean): Json[] {
  const out: Json[] = [];
  const ds = isObj(t['data_stream']) ? (t['data_stream'] as Json) : undefined;
  if (ds && backingIndex) {
    const m: Json = { properties: { [DATA_STREAM_TIMESTAMP_FIELD]: { type: 'date' } } };
    if (ds['allow_custom_routing'] === true) m['_routing'] = { required: false };
    out.push(m);
  }
  for (const c of components(md, t)) {
    const m = unwrapMapping(c['mappings']);
    if (m) out.push(m);
  }
  const own = unwrapMapping(innerTemplate(t)['mappings']);
  if (own) out.push(own);
  if (ds && backingIndex) out.push({ _data_stream_timestamp: { enabled: true } });
  return out;
}

/** aliases of a composable template: the template's own win over its components' */
export function v2Aliases(md: ClusterMetadata, t: Json): Json {
  const out: Json = {};
  for (const c of components(md, t)) if (isObj(c['aliases'])) Object.assign(out, c['aliases']);
  const own = innerTemplate(t)['aliases'];
  if (isObj(own)) Object.assign(out, own);
  return out;
}

function isObjectField(f: unknown): f is Json {
  if (!isObj(f)) return false;
  const type = f['type'];
  if (type === undefined) return isObj(f['properties']) || Object.keys(f).length === 0 || f['dynamic'] !== undefined || f['enabled'] !== undefined;
  return type === 'object' || type === 'nested';
}

function mergeProperties(a: Json, b: Json): Json {
  const out: Json = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    if (isObjectField(prev) && isObjectField(v)) {
      const merged: Json = { ...prev, ...v };
      if (isObj(prev['properties']) || isObj(v['properties'])) {
        merged['properties'] = mergeProperties((prev['properties'] as Json) ?? {}, (v['properties'] as Json) ?? {});
      }
      out[k] = merged;
    } else out[k] = v;
  }
  return out;
}

/**
 * Composes mappings in precedence order with ES's INDEX_TEMPLATE merge: object fields merge recursively,
 * a later leaf field definition replaces an earlier one, dynamic templates merge by name, runtime fields
 * by field, and other top-level keys are replaced.
 */
export function composeMappings(list: readonly unknown[]): Json | undefined {
  let out: Json | undefined;
  for (const raw of list) {
    const m = unwrapMapping(raw);
    if (!m) continue;
    if (!out) {
      out = structuredClone(m);
      continue;
    }
    for (const [k, v] of Object.entries(m)) {
      if (k === 'properties' && isObj(v)) out['properties'] = mergeProperties(isObj(out['properties']) ? (out['properties'] as Json) : {}, v);
      else if (k === 'runtime' && isObj(v)) out['runtime'] = { ...(isObj(out['runtime']) ? (out['runtime'] as Json) : {}), ...v };
      else if (k === 'dynamic_templates' && Array.isArray(v)) {
        const prev = Array.isArray(out['dynamic_templates']) ? [...(out['dynamic_templates'] as Json[])] : [];
        for (const dt of v as Json[]) {
          const name = isObj(dt) ? Object.keys(dt)[0] : undefined;
          const i = prev.findIndex((p) => isObj(p) && Object.keys(p)[0] === name);
          if (i >= 0) prev[i] = dt;
          else prev.push(dt);
        }
        out['dynamic_templates'] = prev;
      } else out[k] = structuredClone(v);
    }
  }
  return out;
}

export interface ResolvedTemplates {
  /** flat `index.*` settings from the templates (before the request's) */
  settings: Json;
  /** mappings in precedence order (lowest first) */
  mappings: Json[];
  aliases: Json;
  /** the composable template applied, if any */
  v2?: string;
  /** the legacy templates applied (highest order first) */
  v1: string[];
}

/**
 * The templates that apply to a new index. `templateName`: the name templates are matched against (a
 * data stream's name for its backing indices). `isHidden`: the request's explicit `index.hidden`.
 */
export function resolveTemplates(
  md: ClusterMetadata,
  indexName: string,
  opts: { templateName?: string; isHidden?: boolean; backingIndex?: boolean } = {},
): ResolvedTemplates {
  const v2 = findV2Template(md, opts.templateName ?? indexName, opts.isHidden === true);
  if (v2) {
    const t = templateSection(md, TemplateSections.INDEX)[v2];
    return { settings: v2Settings(md, t), mappings: v2Mappings(md, t, opts.backingIndex ?? indexName.startsWith(BACKING_INDEX_PREFIX)), aliases: v2Aliases(md, t), v2, v1: [] };
  }
  const v1 = findV1Templates(md, indexName, opts.isHidden);
  const settings: Json = {};
  const mappings: Json[] = [];
  const aliases: Json = {};
  for (let i = v1.length - 1; i >= 0; i--) {
    const t = v1[i][1];
    Object.assign(settings, normalizeTemplateSettings(t['settings']));
    const m = unwrapMapping(t['mappings']);
    if (m && Object.keys(m).length) mappings.push(m);
    if (isObj(t['aliases'])) {
      for (const [a, body] of Object.entries(t['aliases'])) aliases[a.replace('{index}', indexName)] = body;
    }
  }
  return { settings, mappings, aliases, v1: v1.map(([n]) => n) };
}
