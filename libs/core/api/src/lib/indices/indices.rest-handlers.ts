/**
 * Index admin REST handlers: create, exists, get, delete, mappings, settings, open/close, resolve.
 */
import { inject, injectable, multiInject, optional } from 'inversify';
import {
  EsError,
  Errors,
  ExtensionPoints,
  indicesOptionsFromParams,
  RestResponses,
  Tokens,
  currentIndicesAccess,
  route,
  type RestHandler,
  type RestRequest,
  type RestResponse,
  type SettingsRegistry,
} from '@strata/core-common';
import {
  DefaultMapperService,
  DefaultMetadataIndexService,
  EngineTokens,
  isHiddenIndex,
  type IndexNameExpressionResolver,
  type IndexNameResolver,
  type MapperService,
  type MetadataIndexService,
  type MetadataStore,
} from '@strata/core-engine';
import {
  ADMIN_DEFAULTS,
  INDICES_OPTIONS_PARAMS,
  IndicesActions as A,
  defaultIndexSettings,
  destructiveRequiresName,
  flatIndexSettings,
  renderAliases,
  renderSettings,
  requireObjectBody,
  resolveTargets,
  wildcardMatch,
} from './indices-support.js';

const TIMEOUTS = ['master_timeout', 'timeout'];

// ---------------------------------------------------------------- create

@injectable()
export class CreateIndexRestHandler implements RestHandler {
  readonly name = 'create_index_action';
  readonly routes = [route('PUT', '/{index}', A.CREATE)];
  readonly params = [...TIMEOUTS, 'wait_for_active_shards', 'include_type_name'];

  constructor(@inject(EngineTokens.MetadataIndexService) private readonly mis: MetadataIndexService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const index = req.pathParam('index');
    const body = req.hasBody() ? (req.objectBody(false) ?? {}) : {};
    const request: { settings?: unknown; mappings?: unknown; aliases?: unknown } = {};
    for (const [k, v] of Object.entries(body)) {
      if (k === 'settings') request.settings = v;
      else if (k === 'mappings') request.mappings = v;
      else if (k === 'aliases') request.aliases = v;
      else throw new EsError('parse_exception', 400, `unknown key [${k}] for create index`);
    }
    const im = await this.mis.createIndex(index, request, 'api');
    const was = req.param('wait_for_active_shards');
    return RestResponses.ok({ acknowledged: true, shards_acknowledged: was !== '0' && was !== 'none', index: im.name });
  }
}

// ---------------------------------------------------------------- get / exists

const GET_PARAMS = [...INDICES_OPTIONS_PARAMS, ...TIMEOUTS, 'local', 'flat_settings', 'include_defaults', 'features', 'human', 'include_type_name'];

@injectable()
export class GetIndexRestHandler implements RestHandler {
  readonly name = 'get_index_action';
  readonly routes = [route('GET', '/{index}', A.GET), route('HEAD', '/{index}', A.GET)];
  readonly params = GET_PARAMS;

  constructor(
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
    @inject(EngineTokens.IndexNameExpressionResolver) private readonly resolver: IndexNameExpressionResolver,
    @inject(Tokens.SettingsRegistry) private readonly registry: SettingsRegistry,
  ) {}

  handle(req: RestRequest): RestResponse {
    const expr = req.pathParam('index');
    if (req.method === 'HEAD') {
      try {
        const names = resolveTargets(this.resolver, req, expr);
        return RestResponses.empty(names.length ? 200 : 404);
      } catch (e) {
        if (e instanceof EsError && e.status === 404) return RestResponses.empty(404);
        throw e;
      }
    }
    const names = resolveTargets(this.resolver, req, expr);
    const features = new Set(req.listParam('features', ['aliases', 'mappings', 'settings']));
    const flat = req.boolParam('flat_settings', false);
    const defaults = req.boolParam('include_defaults', false);
    const md = this.store.current();
    const out: Record<string, unknown> = {};
    for (const n of [...names].sort()) {
      const im = md.indices[n];
      if (!im) continue;
      const o: Record<string, unknown> = {};
      if (features.has('aliases')) o['aliases'] = renderAliases(im);
      if (features.has('mappings')) o['mappings'] = im.mappings;
      if (features.has('settings')) {
        const fs = flatIndexSettings(im);
        o['settings'] = renderSettings(fs, flat);
        if (defaults) o['defaults'] = renderSettings(defaultIndexSettings(im, this.registry, fs), flat);
      }
      out[n] = o;
    }
    return RestResponses.ok(out);
  }
}

// ---------------------------------------------------------------- delete

@injectable()
export class DeleteIndexRestHandler implements RestHandler {
  readonly name = 'delete_index_action';
  readonly routes = [route('DELETE', '/{index}', A.DELETE)];
  readonly params = [...INDICES_OPTIONS_PARAMS, ...TIMEOUTS];

  constructor(
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
    @inject(EngineTokens.IndexNameExpressionResolver) private readonly resolver: IndexNameExpressionResolver,
    @inject(EngineTokens.MetadataIndexService) private readonly mis: MetadataIndexService,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const expr = req.pathParam('index');
    const parts = expr.split(',').map((s) => s.trim()).filter(Boolean);
    if (destructiveRequiresName(this.store)) {
      for (const p of parts) {
        if (p === '_all' || p === '*' || (p.includes('*') && !p.startsWith('-'))) {
          throw Errors.illegalArgument('Wildcard expressions or all indices are not allowed');
        }
      }
    }
    const md = this.store.current();
    for (const p of parts) {
      if (p.includes('*') || p.startsWith('-') || md.indices[p]) continue;
      const isAlias = Object.values(md.indices).some((im) => im.aliases[p]);
      if (isAlias) {
        throw Errors.illegalArgument(`The provided expression [${p}] matches an alias, specify the corresponding concrete indices instead.`);
      }
    }
    // data streams are no targets here (as in Elasticsearch): a stream's name is not found, a wildcard
    // reaches backing indices only by their own names (DELETE /_data_stream/<name> deletes a stream)
    const names = resolveTargets(this.resolver, req, expr, { ...ADMIN_DEFAULTS, allowNoIndices: true }, true, false);
    await this.mis.deleteIndices(names);
    return RestResponses.acknowledged();
  }
}

// ---------------------------------------------------------------- mappings

@injectable()
export class GetMappingRestHandler implements RestHandler {
  readonly name = 'get_mapping_action';
  readonly routes = [route('GET', '/_mapping', A.GET_MAPPINGS), route('GET', '/{index}/_mapping', A.GET_MAPPINGS)];
  readonly params = [...INDICES_OPTIONS_PARAMS, ...TIMEOUTS, 'local', 'include_type_name'];

  constructor(
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
    @inject(EngineTokens.IndexNameExpressionResolver) private readonly resolver: IndexNameExpressionResolver,
  ) {}

  handle(req: RestRequest): RestResponse {
    const names = resolveTargets(this.resolver, req, req.optionalPathParam('index'));
    const md = this.store.current();
    const out: Record<string, unknown> = {};
    for (const n of [...names].sort()) if (md.indices[n]) out[n] = { mappings: md.indices[n].mappings };
    return RestResponses.ok(out);
  }
}

@injectable()
export class PutMappingRestHandler implements RestHandler {
  readonly name = 'put_mapping_action';
  readonly routes = [route('PUT', '/{index}/_mapping', A.PUT_MAPPING), route('POST', '/{index}/_mapping', A.PUT_MAPPING)];
  readonly params = [...INDICES_OPTIONS_PARAMS, ...TIMEOUTS, 'write_index_only', 'include_type_name'];

  constructor(
    @inject(EngineTokens.IndexNameExpressionResolver) private readonly resolver: IndexNameExpressionResolver,
    @inject(EngineTokens.MetadataIndexService) private readonly mis: MetadataIndexService,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const body = requireObjectBody(req);
    const expr = req.pathParam('index');
    let names: string[];
    if (req.boolParam('write_index_only', false)) {
      const w = this.resolver.writeIndex(expr);
      if (!w) throw Errors.indexNotFound(expr);
      names = [w];
    } else names = resolveTargets(this.resolver, req, expr, { ...ADMIN_DEFAULTS, allowNoIndices: false });
    await this.mis.putMapping(names, body);
    return RestResponses.acknowledged();
  }
}

@injectable()
export class GetFieldMappingRestHandler implements RestHandler {
  readonly name = 'get_field_mapping_action';
  readonly routes = [
    route('GET', '/_mapping/field/{fields}', A.GET_FIELD_MAPPINGS),
    route('GET', '/{index}/_mapping/field/{fields}', A.GET_FIELD_MAPPINGS),
  ];
  readonly params = [...INDICES_OPTIONS_PARAMS, 'local', 'include_defaults', 'include_type_name'];

  constructor(
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
    @inject(EngineTokens.IndexNameExpressionResolver) private readonly resolver: IndexNameExpressionResolver,
    @inject(EngineTokens.MapperService) private readonly mappers: MapperService,
  ) {}

  handle(req: RestRequest): RestResponse {
    const names = resolveTargets(this.resolver, req, req.optionalPathParam('index'));
    const fields = req.pathParam('fields').split(',').map((s) => s.trim()).filter(Boolean);
    const md = this.store.current();
    const out: Record<string, unknown> = {};
    const ms = this.mappers as MapperService & Partial<Pick<DefaultMapperService, 'fieldMappings'>>;
    for (const n of [...names].sort()) {
      const im = md.indices[n];
      if (!im) continue;
      const m = ms.fieldMappings ? ms.fieldMappings(im, fields, req.boolParam('include_defaults', false)) : {};
      out[n] = { mappings: m };
    }
    return RestResponses.ok(out);
  }
}

// ---------------------------------------------------------------- settings

@injectable()
export class GetSettingsRestHandler implements RestHandler {
  readonly name = 'get_settings_action';
  readonly routes = [
    route('GET', '/_settings', A.GET_SETTINGS),
    route('GET', '/_settings/{name}', A.GET_SETTINGS),
    route('GET', '/{index}/_settings', A.GET_SETTINGS),
    route('GET', '/{index}/_settings/{name}', A.GET_SETTINGS),
  ];
  readonly params = [...INDICES_OPTIONS_PARAMS, ...TIMEOUTS, 'local', 'flat_settings', 'include_defaults'];

  constructor(
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
    @inject(EngineTokens.IndexNameExpressionResolver) private readonly resolver: IndexNameExpressionResolver,
    @inject(Tokens.SettingsRegistry) private readonly registry: SettingsRegistry,
  ) {}

  handle(req: RestRequest): RestResponse {
    const names = resolveTargets(this.resolver, req, req.optionalPathParam('index'));
    const filter = req.optionalPathParam('name')?.split(',').map((s) => s.trim()).filter(Boolean);
    const flat = req.boolParam('flat_settings', false);
    const includeDefaults = req.boolParam('include_defaults', false);
    const md = this.store.current();
    const out: Record<string, unknown> = {};
    const keep = (o: Record<string, unknown>) => {
      if (!filter || filter.length === 0 || filter.includes('_all')) return o;
      const r: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(o)) if (filter.some((f) => wildcardMatch(f, k))) r[k] = v;
      return r;
    };
    for (const n of [...names].sort()) {
      const im = md.indices[n];
      if (!im) continue;
      const fs = flatIndexSettings(im);
      const s = keep(fs);
      const o: Record<string, unknown> = { settings: renderSettings(s, flat) };
      if (includeDefaults) o['defaults'] = renderSettings(keep(defaultIndexSettings(im, this.registry, fs)), flat);
      if (filter && Object.keys(s).length === 0 && !includeDefaults) continue;
      out[n] = o;
    }
    return RestResponses.ok(out);
  }
}

@injectable()
export class UpdateSettingsRestHandler implements RestHandler {
  readonly name = 'update_settings_action';
  readonly routes = [route('PUT', '/_settings', A.UPDATE_SETTINGS), route('PUT', '/{index}/_settings', A.UPDATE_SETTINGS)];
  readonly params = [...INDICES_OPTIONS_PARAMS, ...TIMEOUTS, 'preserve_existing', 'flat_settings', 'reopen'];

  constructor(
    @inject(EngineTokens.IndexNameExpressionResolver) private readonly resolver: IndexNameExpressionResolver,
    @inject(EngineTokens.MetadataIndexService) private readonly mis: MetadataIndexService,
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const body = requireObjectBody(req);
    const settings = body['settings'] !== undefined && Object.keys(body).length === 1 ? body['settings'] : body;
    const names = resolveTargets(this.resolver, req, req.optionalPathParam('index'), { ...ADMIN_DEFAULTS, allowNoIndices: false });
    let upd = settings as Record<string, unknown>;
    if (req.boolParam('preserve_existing', false)) {
      const md = this.store.current();
      const flat = Object.fromEntries(Object.entries(upd).map(([k, v]) => [k.startsWith('index.') ? k : `index.${k}`, v]));
      upd = {};
      for (const [k, v] of Object.entries(flat)) if (names.every((n) => md.indices[n]?.settings[k] === undefined)) upd[k] = v;
      if (Object.keys(upd).length === 0) return RestResponses.acknowledged();
    }
    await (this.mis as DefaultMetadataIndexService).updateSettings(names, upd, { reopen: req.boolParam('reopen', false) });
    return RestResponses.acknowledged();
  }
}

// ---------------------------------------------------------------- open / close

@injectable()
export class CloseIndexRestHandler implements RestHandler {
  readonly name = 'close_index_action';
  readonly routes = [route('POST', '/{index}/_close', A.CLOSE)];
  readonly params = [...INDICES_OPTIONS_PARAMS, ...TIMEOUTS, 'wait_for_active_shards'];

  constructor(
    @inject(EngineTokens.IndexNameExpressionResolver) private readonly resolver: IndexNameExpressionResolver,
    @inject(EngineTokens.MetadataIndexService) private readonly mis: MetadataIndexService,
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const expr = req.pathParam('index');
    if (destructiveRequiresName(this.store) && expr.split(',').some((p) => p === '_all' || p === '*' || p.includes('*'))) {
      throw Errors.illegalArgument('Wildcard expressions or all indices are not allowed');
    }
    const names = resolveTargets(this.resolver, req, expr, { ...ADMIN_DEFAULTS, allowNoIndices: false, expandWildcards: { open: true, closed: false, hidden: false } });
    await (this.mis as DefaultMetadataIndexService).setState(names, 'close');
    const indices: Record<string, unknown> = {};
    for (const n of names) indices[n] = { closed: true };
    return RestResponses.ok({ acknowledged: true, shards_acknowledged: true, indices });
  }
}

@injectable()
export class OpenIndexRestHandler implements RestHandler {
  readonly name = 'open_index_action';
  readonly routes = [route('POST', '/{index}/_open', A.OPEN)];
  readonly params = [...INDICES_OPTIONS_PARAMS, ...TIMEOUTS, 'wait_for_active_shards'];

  constructor(
    @inject(EngineTokens.IndexNameExpressionResolver) private readonly resolver: IndexNameExpressionResolver,
    @inject(EngineTokens.MetadataIndexService) private readonly mis: MetadataIndexService,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const names = resolveTargets(this.resolver, req, req.pathParam('index'), { ...ADMIN_DEFAULTS, allowNoIndices: false, expandWildcards: { open: false, closed: true, hidden: false } });
    await (this.mis as DefaultMetadataIndexService).setState(names, 'open');
    return RestResponses.ok({ acknowledged: true, shards_acknowledged: true });
  }
}

// ---------------------------------------------------------------- resolve

@injectable()
export class ResolveIndexRestHandler implements RestHandler {
  readonly name = 'resolve_index_action';
  readonly routes = [route('GET', '/_resolve/index/{name}', A.RESOLVE, { targets: 'name' })];
  readonly params = ['expand_wildcards', 'ignore_unavailable', 'allow_no_indices'];

  private readonly resolvers: IndexNameResolver[];

  constructor(
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
    @multiInject(ExtensionPoints.IndexNameResolver) @optional() resolvers: IndexNameResolver[] = [],
  ) {
    this.resolvers = resolvers ?? [];
  }

  handle(req: RestRequest): RestResponse {
    const parts = req.pathParam('name').split(',').map((s) => s.trim()).filter(Boolean);
    const opts = indicesOptionsFromParams((n) => req.param(n));
    const md = this.store.current();
    // with security on, only what the caller may see (indices, aliases and data streams it is authorized for)
    const access = currentIndicesAccess();
    const visible = (name: string) => !access || access.allowed(name);
    // data streams (contributed by IndexNameResolvers) matched by name, and the stream of each backing index
    const streams = this.resolvers.flatMap((r) => r.dataStreams?.() ?? []);
    const streamOf = new Map<string, string>();
    for (const ds of streams) for (const b of ds.backingIndices) streamOf.set(b, ds.name);
    const dataStreams = streams
      .filter((ds) => visible(ds.name))
      .filter((ds) => parts.some((p) => p === ds.name || ((p === '_all' || p.includes('*')) && wildcardMatch(p, ds.name) && (!ds.hidden || opts.expandWildcards.hidden || (p.startsWith('.') && ds.name.startsWith('.'))))))
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((ds) => ({ name: ds.name, backing_indices: ds.backingIndices, timestamp_field: ds.timestampField }));
    const indices: Array<Record<string, unknown>> = [];
    const aliases = new Map<string, string[]>();
    for (const [n, im] of Object.entries(md.indices).sort(([a], [b]) => a.localeCompare(b))) {
      const hidden = isHiddenIndex(im) || n.startsWith('.');
      const explicit = parts.some((p) => p === n);
      const matched = explicit || parts.some((p) => (p === '_all' || p.includes('*')) && wildcardMatch(p, n) && (!hidden || opts.expandWildcards.hidden || (p.startsWith('.') && n.startsWith('.'))) && (im.state === 'open' ? opts.expandWildcards.open : opts.expandWildcards.closed));
      if (matched && visible(n)) {
        const o: Record<string, unknown> = { name: n };
        const al = Object.keys(im.aliases).sort();
        if (al.length) o['aliases'] = al;
        const attrs = [im.state === 'open' ? 'open' : 'closed'];
        if (hidden) attrs.unshift('hidden');
        o['attributes'] = attrs;
        const ds = streamOf.get(n);
        if (ds) o['data_stream'] = ds;
        indices.push(o);
      }
      for (const a of Object.keys(im.aliases)) {
        if (parts.some((p) => wildcardMatch(p, a)) && visible(a)) aliases.set(a, [...(aliases.get(a) ?? []), n]);
      }
    }
    return RestResponses.ok({
      indices,
      aliases: [...aliases.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, idx]) => ({ name, indices: idx.sort() })),
      data_streams: dataStreams,
    });
  }
}
