/** Stored scripts: `PUT|POST /_scripts/{id}`, `GET /_scripts/{id}`, `DELETE /_scripts/{id}` (cluster metadata `custom.stored_scripts`). */
import { inject, injectable } from 'inversify';
import { EsError, Errors, RestResponses, ScriptContexts, Tokens, route, type RestHandler, type RestRequest, type RestResponse, type ScriptService } from '@strata/core-common';
import { EngineTokens, type MetadataStore } from '@strata/core-engine';

export const STORED_SCRIPTS = 'stored_scripts';

export interface StoredScript {
  lang: string;
  source: string;
  options?: Record<string, string>;
}

export function storedScripts(store: MetadataStore): Record<string, StoredScript> {
  return (store.current().custom[STORED_SCRIPTS] as Record<string, StoredScript> | undefined) ?? {};
}

@injectable()
export class PutStoredScriptRestHandler implements RestHandler {
  readonly name = 'put_stored_script_action';
  readonly routes = [
    route('PUT', '/_scripts/{id}', 'cluster:admin/script/put'),
    route('POST', '/_scripts/{id}', 'cluster:admin/script/put'),
    route('PUT', '/_scripts/{id}/{context}', 'cluster:admin/script/put'),
    route('POST', '/_scripts/{id}/{context}', 'cluster:admin/script/put'),
  ];
  readonly params = ['master_timeout', 'timeout', 'context'];
  constructor(
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
    @inject(Tokens.ScriptService) private readonly scripts: ScriptService,
  ) {}
  async handle(req: RestRequest): Promise<RestResponse> {
    const id = req.pathParam('id');
    const body = req.jsonBody();
    if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) throw Errors.parsing('request body is required');
    const b = body as Record<string, unknown>;
    for (const k of Object.keys(b)) if (k !== 'script') throw Errors.parsing(`[script] unknown field [${k}]`);
    const s = b['script'];
    if (s === null || typeof s !== 'object' || Array.isArray(s)) throw Errors.illegalArgument('must specify a stored script');
    const o = s as Record<string, unknown>;
    for (const k of Object.keys(o)) if (!['lang', 'source', 'code', 'options'].includes(k)) throw Errors.parsing(`[script] unknown field [${k}]`);
    if (o['lang'] === undefined || o['lang'] === null) throw Errors.illegalArgument('must specify lang for stored script');
    const lang = String(o['lang']);
    const src = o['source'] ?? o['code'];
    if (src === undefined || src === null || (typeof src === 'string' && src.length === 0)) throw Errors.illegalArgument('must specify source for stored script');
    if (lang !== 'painless' && lang !== 'mustache') throw new EsError('illegal_argument_exception', 400, `script_lang not supported [${lang}]`);
    const source = typeof src === 'string' ? src : JSON.stringify(src);
    // a painless script must compile (compile errors are the request's error, as in ES)
    if (lang === 'painless') this.scripts.compile({ source, lang, params: {} }, { name: `stored:${id}`, globals: ['params', 'ctx', 'doc', '_score', '_value', 'state', 'states', 'values'], functions: ['emit', 'saturation', 'sigmoid', 'randomScore', 'decayNumericLinear', 'decayNumericExp', 'decayNumericGauss', 'decayDateLinear', 'decayDateExp', 'decayDateGauss', 'decayGeoLinear', 'decayGeoExp', 'decayGeoGauss'] });
    void ScriptContexts;
    const entry: StoredScript = { lang, source, ...(o['options'] && typeof o['options'] === 'object' ? { options: o['options'] as Record<string, string> } : {}) };
    await this.store.update((draft) => {
      draft.custom[STORED_SCRIPTS] = { ...((draft.custom[STORED_SCRIPTS] as Record<string, StoredScript> | undefined) ?? {}), [id]: entry };
    });
    return RestResponses.acknowledged();
  }
}

@injectable()
export class GetStoredScriptRestHandler implements RestHandler {
  readonly name = 'get_stored_script_action';
  readonly routes = [route('GET', '/_scripts/{id}', 'cluster:admin/script/get')];
  readonly params = ['master_timeout'];
  constructor(@inject(EngineTokens.MetadataStore) private readonly store: MetadataStore) {}
  async handle(req: RestRequest): Promise<RestResponse> {
    const id = req.pathParam('id');
    const s = storedScripts(this.store)[id];
    if (!s) return RestResponses.json(404, { _id: id, found: false });
    return RestResponses.ok({ _id: id, found: true, script: { lang: s.lang, source: s.source, ...(s.options ? { options: s.options } : {}) } });
  }
}

@injectable()
export class DeleteStoredScriptRestHandler implements RestHandler {
  readonly name = 'delete_stored_script_action';
  readonly routes = [route('DELETE', '/_scripts/{id}', 'cluster:admin/script/delete')];
  readonly params = ['master_timeout', 'timeout'];
  constructor(@inject(EngineTokens.MetadataStore) private readonly store: MetadataStore) {}
  async handle(req: RestRequest): Promise<RestResponse> {
    const id = req.pathParam('id');
    if (!storedScripts(this.store)[id]) throw new EsError('resource_not_found_exception', 404, `stored script [${id}] does not exist`);
    await this.store.update((draft) => {
      const all = { ...((draft.custom[STORED_SCRIPTS] as Record<string, StoredScript> | undefined) ?? {}) };
      delete all[id];
      draft.custom[STORED_SCRIPTS] = all;
    });
    return RestResponses.acknowledged();
  }
}
