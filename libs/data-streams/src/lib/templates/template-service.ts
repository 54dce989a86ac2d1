/**
 * Component, composable and legacy index templates: validation as Elasticsearch's
 * MetadataIndexTemplateService does it, storage in cluster metadata (the sections the engine applies at
 * index creation, see core-engine cluster/templates.ts), and the simulate APIs.
 */
import { inject, injectable } from 'inversify';
import { EsError, Errors, Tokens, type SettingsRegistry } from '@strata/core-common';
import {
  EngineTokens,
  TemplateSections,
  anyPatternsOverlap,
  composeMappings,
  findV2Template,
  isMatchAllPattern,
  normalizeTemplateSettings,
  patternsOverlap,
  resolveTemplates,
  simpleMatch,
  templatePatterns,
  templateSection,
  v2Aliases,
  v2Mappings,
  v2Settings,
  type ClusterMetadata,
  type MapperService,
  type MetadataStore,
} from '@strata/core-engine';
import { isObj, renderSettings, type Json } from '../util.js';
import { DATA_STREAM_SECTION } from '../streams/data-stream-metadata.js';

function invalidTemplate(name: string, reason: string): EsError {
  return new EsError('invalid_index_template_exception', 400, `index_template [${name}] invalid, cause [${reason}]`, { metadata: { name } });
}

export interface WarningSink {
  warn(message: string): void;
}

@injectable()
export class TemplateService {
  constructor(
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
    @inject(EngineTokens.MapperService) private readonly mappers: MapperService,
    @inject(Tokens.SettingsRegistry) private readonly registry: SettingsRegistry,
  ) {}

  // ------------------------------------------------------------------ validation helpers

  /** parsed index settings (unknown or invalid ones throw, like index creation would) */
  private checkSettings(flat: Json): Json {
    const parsed = this.registry.validate('index', flat);
    for (const [k, v] of Object.entries(parsed)) if (v === null) delete parsed[k];
    return parsed;
  }

  private checkMappings(list: Json[], settings: Json): void {
    const m = composeMappings(list);
    if (m && Object.keys(m).length) this.mappers.parseMappings(m, settings);
  }

  private checkAliases(aliases: unknown): void {
    if (aliases === undefined || aliases === null) return;
    if (!isObj(aliases)) throw Errors.illegalArgument('aliases must be an object');
    for (const [a, body] of Object.entries(aliases)) {
      if (body !== null && !isObj(body)) throw Errors.illegalArgument(`failed to parse alias [${a}]`);
      if (isObj(body) && body['is_write_index'] === true) {
        // ES: a template may define write aliases only for data streams
      }
    }
  }

  // ------------------------------------------------------------------ component templates

  /** `template` object of a component / index template, normalised (settings flat with `index.`) */
  normalizeInner(raw: unknown): Json {
    if (!isObj(raw)) return {};
    const out: Json = {};
    if (raw['settings'] !== undefined && raw['settings'] !== null) out['settings'] = normalizeTemplateSettings(raw['settings']);
    if (raw['mappings'] !== undefined && raw['mappings'] !== null) {
      const m = raw['mappings'];
      out['mappings'] = isObj(m) && Object.keys(m).length === 1 && isObj(m['_doc']) ? m['_doc'] : m;
    }
    if (raw['aliases'] !== undefined && raw['aliases'] !== null) out['aliases'] = raw['aliases'];
    if (raw['lifecycle'] !== undefined && raw['lifecycle'] !== null) out['lifecycle'] = raw['lifecycle'];
    return out;
  }

  async putComponentTemplate(name: string, body: Json, opts: { create?: boolean } = {}): Promise<void> {
    const inner = this.normalizeInner(body['template']);
    const settings = this.checkSettings((inner['settings'] as Json) ?? {});
    if (inner['mappings'] !== undefined) {
      if (!isObj(inner['mappings'])) throw Errors.mapperParsing('Failed to parse mapping: mapping source must be an object');
      this.checkMappings([inner['mappings'] as Json], settings);
    }
    this.checkAliases(inner['aliases']);
    const stored: Json = { template: inner };
    for (const k of ['version', '_meta', 'deprecated']) if (body[k] !== undefined && body[k] !== null) stored[k] = body[k];
    // every index template composed of it must stay valid
    const md = this.store.current();
    const next = structuredClone(md) as ClusterMetadata;
    this.section(next, TemplateSections.COMPONENT)[name] = stored;
    for (const [tname, t] of Object.entries(templateSection(md, TemplateSections.INDEX))) {
      const comps = Array.isArray(t['composed_of']) ? (t['composed_of'] as string[]) : [];
      if (!comps.includes(name)) continue;
      try {
        this.validateComposite(next, t);
      } catch (e) {
        throw Errors.illegalArgument(
          `updating component template [${name}] results in invalid composable template [${tname}] after templates are merged`,
          e instanceof Error ? e : undefined,
        );
      }
    }
    await this.store.update((d) => {
      const sec = this.section(d, TemplateSections.COMPONENT);
      if (opts.create && sec[name]) throw Errors.illegalArgument(`component template [${name}] already exists`);
      sec[name] = stored;
    });
  }

  componentTemplates(nameExpr: string | undefined): Array<[string, Json]> {
    return this.list(TemplateSections.COMPONENT, nameExpr, (n) => `component template matching [${n}] not found`);
  }

  /** templates of a section matching a comma list of names / wildcards; a concrete name with no match is a 404 */
  private list(section: string, nameExpr: string | undefined, notFound?: (name: string) => string): Array<[string, Json]> {
    const sec = templateSection(this.store.current(), section);
    const names = Object.keys(sec).sort();
    if (nameExpr === undefined || nameExpr === '' || nameExpr === '*' || nameExpr === '_all') return names.map((n) => [n, sec[n]]);
    const out = names.filter((n) => nameExpr.split(',').some((p) => simpleMatch(p.trim(), n)));
    if (out.length === 0 && notFound && !nameExpr.includes('*')) throw Errors.resourceNotFound(notFound(nameExpr));
    return out.map((n) => [n, sec[n]]);
  }

  async deleteComponentTemplates(expr: string): Promise<void> {
    const names = expr.split(',').map((s) => s.trim()).filter(Boolean);
    await this.store.update((d) => {
      const sec = this.section(d, TemplateSections.COMPONENT);
      const matched = this.matchNamesForDelete(Object.keys(sec), names, (missing) => Errors.resourceNotFound(missing));
      if (matched === null) return;
      const users: string[] = [];
      const used = new Set<string>();
      for (const [tname, t] of Object.entries(this.section(d, TemplateSections.INDEX))) {
        const comps = Array.isArray(t['composed_of']) ? (t['composed_of'] as string[]) : [];
        const hit = comps.filter((c) => matched.includes(c));
        if (hit.length) {
          users.push(tname);
          hit.forEach((c) => used.add(c));
        }
      }
      if (users.length) {
        throw Errors.illegalArgument(`component templates [${[...used].sort().join(', ')}] cannot be removed as they are still in use by index templates [${users.sort().join(', ')}]`);
      }
      for (const n of matched) delete sec[n];
    });
  }

  /** ES innerRemove*: several names must all exist; a single one may be a wildcard (`*` with none is fine) */
  private matchNamesForDelete(all: string[], names: string[], missingError: (missing: string) => EsError): string[] | null {
    if (names.length > 1) {
      const missing = names.filter((n) => !all.includes(n));
      if (missing.length) throw missingError(missing.join(','));
      return names;
    }
    const matched = all.filter((n) => simpleMatch(names[0], n));
    if (matched.length === 0) {
      if (isMatchAllPattern(names[0])) return null;
      throw missingError(names[0]);
    }
    return matched;
  }

  private section(d: ClusterMetadata, key: string): Record<string, Json> {
    if (!isObj(d.custom[key])) d.custom[key] = {};
    return d.custom[key] as Record<string, Json>;
  }

  // ------------------------------------------------------------------ composable templates

  /** validates the body of PUT _index_template and returns the stored shape */
  normalizeIndexTemplate(name: string, body: Json): Json {
    const patterns = body['index_patterns'];
    if (patterns === undefined || patterns === null || (Array.isArray(patterns) && patterns.length === 0)) {
      throw Errors.actionRequestValidation(['index patterns are missing']);
    }
    const pats = Array.isArray(patterns) ? patterns.map(String) : [String(patterns)];
    for (const p of pats) {
      const bad = this.patternProblem(p);
      if (bad) throw invalidTemplate(name, `index_pattern [${p}] ${bad}`);
    }
    const out: Json = { index_patterns: pats };
    if (body['template'] !== undefined && body['template'] !== null) out['template'] = this.normalizeInner(body['template']);
    if (Array.isArray(body['composed_of'])) out['composed_of'] = (body['composed_of'] as unknown[]).map(String);
    else out['composed_of'] = [];
    for (const k of ['priority', 'version']) {
      const v = body[k];
      if (v === undefined || v === null) continue;
      if (typeof v !== 'number' || !Number.isInteger(v)) throw Errors.xContentParse(`[index_template] failed to parse field [${k}]`);
      if (k === 'priority' && v < 0) throw Errors.actionRequestValidation(['index template priority must be >= 0']);
      out[k] = v;
    }
    if (body['_meta'] !== undefined && body['_meta'] !== null) out['_meta'] = body['_meta'];
    if (body['data_stream'] !== undefined && body['data_stream'] !== null) {
      const ds = isObj(body['data_stream']) ? body['data_stream'] : {};
      out['data_stream'] = { hidden: ds['hidden'] === true, allow_custom_routing: ds['allow_custom_routing'] === true };
    }
    if (typeof body['allow_auto_create'] === 'boolean') out['allow_auto_create'] = body['allow_auto_create'];
    if (Array.isArray(body['ignore_missing_component_templates'])) out['ignore_missing_component_templates'] = body['ignore_missing_component_templates'];
    if (typeof body['deprecated'] === 'boolean') out['deprecated'] = body['deprecated'];
    return out;
  }

  private patternProblem(p: string): string | undefined {
    if (p.includes(' ')) return "must not contain a space";
    if (p.includes(',')) return "must not contain a ','";
    if (p.includes('#')) return "must not contain a '#'";
    if (p.includes(':')) return "must not contain a ':'";
    if (p.startsWith('_')) return "must not start with '_'";
    for (const c of ['\\', '/', '?', '"', '<', '>', '|']) {
      if (p.includes(c)) return 'must not contain the following characters [ , ", *, \\, <, |, ,, >, /, ?]'.replace(', *', '');
    }
    return undefined;
  }

  /** the composed settings/mappings/aliases of a template must make a valid index */
  private validateComposite(md: ClusterMetadata, t: Json): void {
    const settings = this.checkSettings(v2Settings(md, t));
    this.checkMappings(v2Mappings(md, t, isObj(t['data_stream'])), settings);
    this.checkAliases(v2Aliases(md, t));
  }

  async putIndexTemplate(name: string, body: Json, opts: { create?: boolean; warnings?: WarningSink } = {}): Promise<void> {
    const t = this.normalizeIndexTemplate(name, body);
    const md = this.store.current();
    const pats = t['index_patterns'] as string[];
    // a global template may not make indices hidden
    if (pats.some(isMatchAllPattern) && v2Settings(md, t)['index.hidden'] !== undefined) {
      throw invalidTemplate(name, 'global composable templates may not specify the setting index.hidden');
    }
    const comps = templateSection(md, TemplateSections.COMPONENT);
    const ignore = Array.isArray(t['ignore_missing_component_templates']) ? (t['ignore_missing_component_templates'] as string[]) : [];
    const missing = (t['composed_of'] as string[]).filter((c) => !comps[c] && !ignore.includes(c));
    if (missing.length) throw invalidTemplate(name, `index template [${name}] specifies component templates [${missing.join(', ')}] that do not exist`);
    await this.store.update((d) => {
      const sec = this.section(d, TemplateSections.INDEX);
      if (opts.create && sec[name]) throw Errors.illegalArgument(`index template [${name}] already exists`);
      const priority = (t['priority'] as number | undefined) ?? 0;
      const overlaps: Array<[string, string[]]> = [];
      for (const [other, ot] of Object.entries(sec).sort(([a], [b]) => (a < b ? -1 : 1))) {
        if (other === name) continue;
        const op = ((ot['priority'] as number | undefined) ?? 0);
        if (op === priority && anyPatternsOverlap(pats, templatePatterns(ot))) overlaps.push([other, templatePatterns(ot)]);
      }
      if (overlaps.length) {
        throw Errors.illegalArgument(
          `index template [${name}] has index patterns [${pats.join(', ')}] matching patterns from existing templates [${overlaps.map(([n]) => n).join(',')}] with patterns (${overlaps
            .map(([n, p]) => `${n} => [${p.join(', ')}]`)
            .join(',')}) that have the same priority [${priority}], multiple index templates may not match during index creation, please use a different priority`,
        );
      }
      const v1 = Object.entries(this.section(d, TemplateSections.LEGACY)).filter(([, lt]) => anyPatternsOverlap(pats, templatePatterns(lt)));
      if (v1.length) {
        opts.warnings?.warn(
          `index template [${name}] has index patterns [${pats.join(', ')}] matching patterns from existing older templates [${v1.map(([n]) => n).join(',')}] with patterns (${v1
            .map(([n, lt]) => `${n} => [${templatePatterns(lt).join(', ')}]`)
            .join(',')}); this template [${name}] will take precedence during new index creation`,
        );
      }
      const next = { ...d, custom: { ...d.custom, [TemplateSections.INDEX]: { ...sec, [name]: t } } } as ClusterMetadata;
      try {
        this.validateComposite(next, t);
      } catch (e) {
        const c = t['composed_of'] as string[];
        throw Errors.illegalArgument(
          `composable template [${name}] template after composition ${c.length ? `with component templates [${c.join(', ')}] ` : ''}is invalid`,
          e instanceof Error ? e : undefined,
        );
      }
      this.checkStreamsStillMatched(d, next, name, t);
      sec[name] = t;
    });
  }

  /** ES validateDataStreamsStillReferenced: a change may not leave a data stream without its template */
  private checkStreamsStillMatched(before: ClusterMetadata, after: ClusterMetadata, name: string, t: Json): void {
    const streams = isObj(before.custom[DATA_STREAM_SECTION]) ? Object.keys(before.custom[DATA_STREAM_SECTION] as Json) : [];
    const unref = (md: ClusterMetadata): Set<string> => {
      const out = new Set<string>();
      for (const s of streams) {
        const m = findV2Template(md, s, false);
        if (!m || !isObj(templateSection(md, TemplateSections.INDEX)[m]['data_stream'])) out.add(s);
      }
      return out;
    };
    const a = unref(before);
    const b = unref(after);
    const newly = [...b].filter((s) => !a.has(s)).sort();
    if (newly.length) {
      throw Errors.illegalArgument(
        `composable template [${name}] with index patterns [${(t['index_patterns'] as string[]).join(', ')}], priority [${t['priority'] ?? 'null'}] ${
          t['data_stream'] ? '' : 'and no data stream configuration '
        }would cause data streams [${newly.join(', ')}] to no longer match a data stream template`,
      );
    }
  }

  indexTemplates(nameExpr: string | undefined): Array<[string, Json]> {
    return this.list(TemplateSections.INDEX, nameExpr, (n) => `index template matching [${n}] not found`);
  }

  async deleteIndexTemplates(expr: string): Promise<void> {
    const names = expr.split(',').map((s) => s.trim()).filter(Boolean);
    await this.store.update((d) => {
      const sec = this.section(d, TemplateSections.INDEX);
      const matched = this.matchNamesForDelete(Object.keys(sec), names, (missing) => templateMissing(missing));
      if (matched === null) return;
      const streams = isObj(d.custom[DATA_STREAM_SECTION]) ? (d.custom[DATA_STREAM_SECTION] as Record<string, Json>) : {};
      const using: string[] = [];
      for (const [s, ds] of Object.entries(streams)) {
        const m = findV2Template(d, s, ds['hidden'] === true);
        if (m && matched.includes(m)) using.push(s);
      }
      if (using.length) {
        throw Errors.illegalArgument(`unable to remove composable templates [${[...matched].sort().join(', ')}] as they are in use by a data streams [${using.sort().join(', ')}]`);
      }
      for (const n of matched) delete sec[n];
    });
  }

  // ------------------------------------------------------------------ legacy templates

  async putLegacyTemplate(name: string, body: Json, opts: { create?: boolean; order?: number; warnings?: WarningSink } = {}): Promise<void> {
    let patterns = body['index_patterns'] ?? body['template'];
    if (patterns === undefined || patterns === null) throw Errors.actionRequestValidation(['index patterns are missing']);
    if (typeof patterns === 'string') patterns = [patterns];
    const pats = (patterns as unknown[]).map(String);
    for (const p of pats) {
      const bad = this.patternProblem(p);
      if (bad) throw invalidTemplate(name, `index_pattern [${p}] ${bad}`);
    }
    for (const k of Object.keys(body)) {
      if (!['index_patterns', 'template', 'order', 'version', 'settings', 'mappings', 'aliases'].includes(k)) {
        throw Errors.illegalArgument(`unknown key [${k}] in the template `);
      }
    }
    const settingsFlat = normalizeTemplateSettings(body['settings']);
    const settings = this.checkSettings(settingsFlat);
    let mappings = body['mappings'];
    if (isObj(mappings) && Object.keys(mappings).length === 1 && isObj(mappings['_doc'])) mappings = mappings['_doc'];
    if (mappings !== undefined && mappings !== null) {
      if (!isObj(mappings)) throw Errors.mapperParsing('Failed to parse mapping: mapping source must be an object');
      if (Object.keys(mappings).length) this.checkMappings([mappings], settings);
    }
    this.checkAliases(body['aliases']);
    const order = opts.order ?? (body['order'] === undefined ? 0 : Number(body['order']));
    const t: Json = { order, index_patterns: pats, settings: settingsFlat, mappings: mappings ?? {}, aliases: isObj(body['aliases']) ? body['aliases'] : {} };
    if (body['version'] !== undefined && body['version'] !== null) t['version'] = body['version'];
    await this.store.update((d) => {
      const sec = this.section(d, TemplateSections.LEGACY);
      if (opts.create && sec[name]) throw Errors.illegalArgument(`index_template [${name}] already exists`);
      const v2 = Object.entries(this.section(d, TemplateSections.INDEX)).filter(([, it]) => anyPatternsOverlap(pats, templatePatterns(it)));
      if (v2.length) {
        opts.warnings?.warn(
          `legacy template [${name}] has index patterns [${pats.join(', ')}] matching patterns from existing composable templates [${v2.map(([n]) => n).join(',')}] with patterns (${v2
            .map(([n, it]) => `${n} => [${templatePatterns(it).join(', ')}]`)
            .join(',')}); this template [${name}] may be ignored in favor of a composable template at index creation time`,
        );
      }
      sec[name] = t;
    });
  }

  legacyTemplates(nameExpr: string | undefined): Array<[string, Json]> {
    return this.list(TemplateSections.LEGACY, nameExpr);
  }

  async deleteLegacyTemplates(expr: string): Promise<void> {
    await this.store.update((d) => {
      const sec = this.section(d, TemplateSections.LEGACY);
      const matched = Object.keys(sec).filter((n) => simpleMatch(expr, n));
      if (matched.length === 0) throw templateMissing(expr);
      for (const n of matched) delete sec[n];
    });
  }

  // ------------------------------------------------------------------ simulate

  /**
   * The settings, mappings and aliases an index of that name would get (ES _simulate_index), optionally
   * with `candidate` added as index template `candidateName` first; plus the other templates that match.
   */
  simulateIndex(indexName: string, candidate?: { name: string; template: Json }): Json {
    let md = this.store.current();
    if (candidate) md = this.withTemplate(md, candidate.name, candidate.template);
    const ds = isObj(md.custom[DATA_STREAM_SECTION]) ? (md.custom[DATA_STREAM_SECTION] as Record<string, Json>)[indexName] : undefined;
    const winner = findV2Template(md, indexName, ds ? ds['hidden'] === true : false);
    const r = resolveTemplates(md, indexName, { backingIndex: ds !== undefined || (winner !== undefined && isObj(templateSection(md, TemplateSections.INDEX)[winner]['data_stream'])) });
    return this.renderResolution(md, r.settings, r.mappings, r.aliases, indexName, winner, r.v1);
  }

  /** ES _simulate: the composed template of `name` (or the body given) and the templates it overlaps */
  simulateTemplate(name: string | undefined, body: Json | undefined): Json {
    let md = this.store.current();
    let t: Json;
    let tname: string;
    if (body && Object.keys(body).length) {
      tname = name ?? 'simulate_template';
      t = this.normalizeIndexTemplate(tname, body);
      const comps = templateSection(md, TemplateSections.COMPONENT);
      const missing = (t['composed_of'] as string[]).filter((c) => !comps[c]);
      if (missing.length) throw invalidTemplate(tname, `index template [${tname}] specifies component templates [${missing.join(', ')}] that do not exist`);
      md = this.withTemplate(md, tname, t);
    } else {
      if (!name) throw Errors.actionRequestValidation(['[index_template] or [template] is required']);
      const sec = templateSection(md, TemplateSections.INDEX);
      if (!sec[name]) throw Errors.resourceNotFound(`unable to simulate template [${name}] that does not exist`);
      tname = name;
      t = sec[name];
    }
    const settings = v2Settings(md, t);
    const mappings = v2Mappings(md, t, isObj(t['data_stream']));
    const aliases = v2Aliases(md, t);
    const out = this.renderResolution(md, settings, mappings, aliases, undefined, tname, []);
    return out;
  }

  private withTemplate(md: ClusterMetadata, name: string, t: Json): ClusterMetadata {
    const next = structuredClone(md) as ClusterMetadata;
    this.section(next, TemplateSections.INDEX)[name] = t;
    return next;
  }

  private renderResolution(md: ClusterMetadata, settings: Json, mappings: Json[], aliases: Json, indexName: string | undefined, winner: string | undefined, v1: string[]): Json {
    const composed = composeMappings(mappings);
    const parsedSettings = this.checkSettings(settings);
    const mapping = composed && Object.keys(composed).length ? this.mappers.parseMappings(composed, parsedSettings) : {};
    const renderedSettings: Json = {};
    for (const [k, v] of Object.entries(parsedSettings)) renderedSettings[k] = v;
    const overlapping: Json[] = [];
    const sec = templateSection(md, TemplateSections.INDEX);
    const winnerPats = winner ? templatePatterns(sec[winner]) : [];
    for (const [n, t] of Object.entries(sec).sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (n === winner) continue;
      const pats = templatePatterns(t);
      const hit = indexName !== undefined ? pats.some((p) => simpleMatch(p, indexName)) : pats.some((p) => winnerPats.some((w) => patternsOverlap(p, w)));
      if (hit) overlapping.push({ name: n, index_patterns: pats });
    }
    if (indexName !== undefined) {
      for (const n of v1) overlapping.push({ name: n, index_patterns: templatePatterns(templateSection(md, TemplateSections.LEGACY)[n]) });
    }
    return {
      template: {
        settings: renderSettings(renderedSettings),
        mappings: mapping,
        aliases,
      },
      overlapping,
    };
  }
}

export function templateMissing(name: string): EsError {
  return new EsError('index_template_missing_exception', 404, `index_template [${name}] missing`);
}

