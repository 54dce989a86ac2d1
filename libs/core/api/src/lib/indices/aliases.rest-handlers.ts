/**
 * Alias REST handlers: POST /_aliases, PUT|DELETE /{index}/_alias/{name}, GET|HEAD /_alias...
 */
import { inject, injectable } from 'inversify';
import { EsError, Errors, RestResponses, route, type RestHandler, type RestRequest, type RestResponse } from '@strata/core-common';
import {
  DefaultMetadataIndexService,
  EngineTokens,
  type AliasAction,
  type IndexNameExpressionResolver,
  type MetadataIndexService,
  type MetadataStore,
} from '@strata/core-engine';
import { ADMIN_DEFAULTS, INDICES_OPTIONS_PARAMS, IndicesActions as A, renderAliases, requireObjectBody, resolveTargets, wildcardMatch } from './indices-support.js';

const TIMEOUTS = ['master_timeout', 'timeout'];

function strList(v: unknown, field: string): string[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v.map(String);
  if (typeof v === 'string') return [v];
  throw Errors.xContentParse(`[aliases] failed to parse field [${field}]`);
}

function aliasResolver(resolver: IndexNameExpressionResolver) {
  return (expr: string[]): string[] => {
    const r = resolver as IndexNameExpressionResolver & { resolve?: (e: string[], o: typeof ADMIN_DEFAULTS, p: 'read', x: { allowClosed: boolean }) => string[] };
    const opts = { ...ADMIN_DEFAULTS, allowNoIndices: false };
    return r.resolve ? r.resolve(expr, opts, 'read', { allowClosed: true }) : resolver.concreteIndices(expr, opts);
  };
}

@injectable()
export class UpdateAliasesRestHandler implements RestHandler {
  readonly name = 'index_aliases_action';
  readonly routes = [route('POST', '/_aliases', A.ALIASES)];
  readonly params = TIMEOUTS;

  constructor(
    @inject(EngineTokens.IndexNameExpressionResolver) private readonly resolver: IndexNameExpressionResolver,
    @inject(EngineTokens.MetadataIndexService) private readonly mis: MetadataIndexService,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const body = requireObjectBody(req);
    for (const k of Object.keys(body)) if (k !== 'actions') throw Errors.xContentParse(`[aliases] unknown field [${k}]`);
    const raw = body['actions'];
    if (!Array.isArray(raw)) throw Errors.actionRequestValidation(['no actions specified']);
    if (raw.length === 0) throw Errors.actionRequestValidation(['no actions specified']);
    const actions: AliasAction[] = [];
    for (const item of raw) {
      if (item === null || typeof item !== 'object' || Array.isArray(item) || Object.keys(item).length !== 1) {
        throw Errors.xContentParse('[aliases] failed to parse field [actions]');
      }
      const [type, spec] = Object.entries(item as Record<string, unknown>)[0];
      if (type !== 'add' && type !== 'remove' && type !== 'remove_index') {
        throw Errors.xContentParse(`[aliases] failed to parse field [actions]`, 1, 1, Errors.parsing(`Unknown action [${type}]`));
      }
      const s = (spec ?? {}) as Record<string, unknown>;
      const indices = [...strList(s['index'], 'index'), ...strList(s['indices'], 'indices')];
      const aliases = [...strList(s['alias'], 'alias'), ...strList(s['aliases'], 'aliases')];
      const errors: string[] = [];
      if (indices.length === 0) errors.push('One of [index] or [indices] is required');
      if (type !== 'remove_index' && aliases.length === 0) errors.push('One of [alias] or [aliases] is required');
      if (errors.length) throw Errors.actionRequestValidation(errors.map((e) => `[${type}] ${e}`));
      const mustExist = s['must_exist'] === undefined || s['must_exist'] === null ? undefined : s['must_exist'] === true || s['must_exist'] === 'true';
      actions.push({ type, indices, aliases, body: s, mustExist });
    }
    await (this.mis as DefaultMetadataIndexService).updateAliases(actions, aliasResolver(this.resolver));
    return RestResponses.ok({ acknowledged: true, errors: false });
  }
}

@injectable()
export class PutAliasRestHandler implements RestHandler {
  readonly name = 'index_put_alias_action';
  readonly routes = [
    route('PUT', '/{index}/_alias/{name}', A.ALIASES),
    route('POST', '/{index}/_alias/{name}', A.ALIASES),
    route('PUT', '/{index}/_aliases/{name}', A.ALIASES),
    route('POST', '/{index}/_aliases/{name}', A.ALIASES),
  ];
  readonly params = TIMEOUTS;

  constructor(
    @inject(EngineTokens.IndexNameExpressionResolver) private readonly resolver: IndexNameExpressionResolver,
    @inject(EngineTokens.MetadataIndexService) private readonly mis: MetadataIndexService,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const body = req.hasBody() ? (req.objectBody(false) ?? {}) : {};
    const indices = req.pathParam('index').split(',');
    const aliases = req.pathParam('name').split(',');
    await (this.mis as DefaultMetadataIndexService).updateAliases([{ type: 'add', indices, aliases, body }], aliasResolver(this.resolver));
    return RestResponses.acknowledged();
  }
}

@injectable()
export class DeleteAliasRestHandler implements RestHandler {
  readonly name = 'index_delete_aliases_action';
  readonly routes = [route('DELETE', '/{index}/_alias/{name}', A.ALIASES), route('DELETE', '/{index}/_aliases/{name}', A.ALIASES)];
  readonly params = TIMEOUTS;

  constructor(
    @inject(EngineTokens.IndexNameExpressionResolver) private readonly resolver: IndexNameExpressionResolver,
    @inject(EngineTokens.MetadataIndexService) private readonly mis: MetadataIndexService,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const indices = req.pathParam('index').split(',');
    const aliases = req.pathParam('name').split(',');
    await (this.mis as DefaultMetadataIndexService).updateAliases([{ type: 'remove', indices, aliases, body: {} }], aliasResolver(this.resolver));
    return RestResponses.acknowledged();
  }
}

@injectable()
export class GetAliasesRestHandler implements RestHandler {
  readonly name = 'get_aliases_action';
  readonly routes = [
    route('GET', '/_alias', A.GET_ALIASES),
    route('GET', '/_aliases', A.GET_ALIASES),
    route('GET', '/_alias/{name}', A.GET_ALIASES),
    route('HEAD', '/_alias/{name}', A.GET_ALIASES),
    route('GET', '/{index}/_alias', A.GET_ALIASES),
    route('GET', '/{index}/_aliases', A.GET_ALIASES),
    route('GET', '/{index}/_alias/{name}', A.GET_ALIASES),
    route('HEAD', '/{index}/_alias/{name}', A.GET_ALIASES),
  ];
  readonly params = [...INDICES_OPTIONS_PARAMS, 'local', 'master_timeout'];

  constructor(
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
    @inject(EngineTokens.IndexNameExpressionResolver) private readonly resolver: IndexNameExpressionResolver,
  ) {}

  handle(req: RestRequest): RestResponse {
    const index = req.optionalPathParam('index');
    const nameParam = req.optionalPathParam('name');
    const names = nameParam ? nameParam.split(',').map((s) => s.trim()).filter(Boolean) : undefined;
    let indices: string[];
    try {
      indices = resolveTargets(this.resolver, req, index, { ...ADMIN_DEFAULTS, expandWildcards: { open: true, closed: true, hidden: true } });
    } catch (e) {
      if (req.method === 'HEAD' && e instanceof EsError && e.status === 404) return RestResponses.empty(404);
      throw e;
    }
    const md = this.store.current();
    const matches = (a: string) => !names || names.some((p) => wildcardMatch(p, a));
    const out: Record<string, unknown> = {};
    const found = new Set<string>();
    for (const n of [...indices].sort()) {
      const im = md.indices[n];
      if (!im) continue;
      const al = renderAliases(im, matches);
      for (const a of Object.keys(al)) found.add(a);
      if (names && Object.keys(al).length === 0) continue;
      if (!names && !index && (n.startsWith('.') || im.settings['index.hidden'] === true) && Object.keys(al).length === 0) continue;
      out[n] = { aliases: al };
    }
    const missing = names ? names.filter((p) => !p.includes('*') && p !== '_all' && !found.has(p)) : [];
    if (req.method === 'HEAD') return RestResponses.empty(missing.length === 0 && (!names || found.size > 0) ? 200 : 404);
    if (missing.length) {
      const error = missing.length === 1 ? `alias [${missing[0]}] missing` : `aliases [${missing.join(',')}] missing`;
      return RestResponses.json(404, { error, status: 404, ...out });
    }
    return RestResponses.ok(out);
  }
}
