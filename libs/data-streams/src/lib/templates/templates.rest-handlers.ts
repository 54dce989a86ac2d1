/**
 * REST: `/_index_template`, `/_component_template`, legacy `/_template`, and the simulate APIs.
 */
import { inject, injectable } from 'inversify';
import { EsError, Errors, RestResponses, addDeprecationWarning, route, type RestHandler, type RestRequest, type RestResponse } from '@strata/core-common';
import { TemplateActions as A } from '../actions.js';
import { isObj, renderSettings, unknownField, type Json } from '../util.js';
import { TemplateService } from './template-service.js';

const TIMEOUTS = ['master_timeout', 'timeout'];
const INDEX_TEMPLATE_KEYS = ['index_patterns', 'template', 'composed_of', 'priority', 'version', '_meta', 'data_stream', 'allow_auto_create', 'ignore_missing_component_templates', 'deprecated'];
const COMPONENT_KEYS = ['template', 'version', '_meta', 'deprecated'];
const INNER_KEYS = ['settings', 'mappings', 'aliases', 'lifecycle', 'data_stream_options'];

/** template warnings go back as `Warning` headers, like ES HeaderWarning */
const WARNINGS = { warn: (m: string) => addDeprecationWarning(m) };

function checkKeys(req: RestRequest, body: Json, allowed: string[], parser: string): void {
  for (const k of Object.keys(body)) if (!allowed.includes(k)) throw unknownField(req, parser, k);
  if (isObj(body['template'])) {
    for (const k of Object.keys(body['template'])) if (!INNER_KEYS.includes(k)) throw unknownField(req, 'template', k);
  } else if (body['template'] !== undefined && body['template'] !== null && parser !== 'index_template_legacy') {
    throw Errors.xContentParse(`[${parser}] template doesn't support values of type: VALUE_${typeof body['template'] === 'string' ? 'STRING' : 'NUMBER'}`);
  }
}

function renderInner(inner: unknown, flat: boolean): Json {
  const t = isObj(inner) ? inner : {};
  const out: Json = {};
  if (t['settings'] !== undefined) out['settings'] = renderSettings(t['settings'] as Json, flat);
  if (t['mappings'] !== undefined) out['mappings'] = t['mappings'];
  if (t['aliases'] !== undefined) out['aliases'] = t['aliases'];
  if (t['lifecycle'] !== undefined) out['lifecycle'] = t['lifecycle'];
  return out;
}

/** HEAD answers 200/404 from the same lookup GET uses */
function headStatus(lookup: () => unknown[]): RestResponse {
  try {
    return RestResponses.empty(lookup().length ? 200 : 404);
  } catch (e) {
    if (e instanceof EsError && e.status === 404) return RestResponses.empty(404);
    throw e;
  }
}

export function renderIndexTemplate(t: Json, flat = false): Json {
  const out: Json = { index_patterns: t['index_patterns'] };
  if (t['template'] !== undefined) out['template'] = renderInner(t['template'], flat);
  out['composed_of'] = t['composed_of'] ?? [];
  for (const k of ['priority', 'version', '_meta', 'data_stream', 'allow_auto_create', 'ignore_missing_component_templates', 'deprecated']) {
    if (t[k] !== undefined) out[k] = t[k];
  }
  return out;
}

// ---------------------------------------------------------------- composable templates

@injectable()
export class PutIndexTemplateRestHandler implements RestHandler {
  readonly name = 'put_composable_index_template_action';
  readonly routes = [route('PUT', '/_index_template/{name}', A.INDEX_PUT), route('POST', '/_index_template/{name}', A.INDEX_PUT)];
  readonly params = ['create', 'cause', ...TIMEOUTS];

  constructor(@inject(TemplateService) private readonly templates: TemplateService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const body = req.objectBody(true) ?? {};
    checkKeys(req, body, INDEX_TEMPLATE_KEYS, 'index_template');
    await this.templates.putIndexTemplate(req.pathParam('name'), body, { create: req.boolParam('create', false), warnings: WARNINGS });
    return RestResponses.acknowledged();
  }
}

@injectable()
export class GetIndexTemplateRestHandler implements RestHandler {
  readonly name = 'get_composable_index_template_action';
  readonly routes = [
    route('GET', '/_index_template', A.INDEX_GET),
    route('GET', '/_index_template/{name}', A.INDEX_GET),
    route('HEAD', '/_index_template/{name}', A.INDEX_GET),
  ];
  readonly params = ['flat_settings', 'include_defaults', 'local', 'master_timeout'];

  constructor(@inject(TemplateService) private readonly templates: TemplateService) {}

  handle(req: RestRequest): RestResponse {
    const name = req.optionalPathParam('name');
    if (req.method === 'HEAD') return headStatus(() => this.templates.indexTemplates(name));
    const flat = req.boolParam('flat_settings', false);
    return RestResponses.ok({
      index_templates: this.templates.indexTemplates(name).map(([n, t]) => ({ name: n, index_template: renderIndexTemplate(t, flat) })),
    });
  }
}

@injectable()
export class DeleteIndexTemplateRestHandler implements RestHandler {
  readonly name = 'delete_composable_index_template_action';
  readonly routes = [route('DELETE', '/_index_template/{name}', A.INDEX_DELETE)];
  readonly params = TIMEOUTS;

  constructor(@inject(TemplateService) private readonly templates: TemplateService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    await this.templates.deleteIndexTemplates(req.pathParam('name'));
    return RestResponses.acknowledged();
  }
}

@injectable()
export class SimulateIndexTemplateRestHandler implements RestHandler {
  readonly name = 'simulate_index_template_action';
  readonly routes = [route('POST', '/_index_template/_simulate_index/{name}', A.SIMULATE_INDEX)];
  readonly params = ['create', 'cause', 'include_defaults', ...TIMEOUTS];

  constructor(@inject(TemplateService) private readonly templates: TemplateService) {}

  handle(req: RestRequest): RestResponse {
    const body = req.hasBody() ? req.objectBody(false) : undefined;
    let candidate: { name: string; template: Json } | undefined;
    if (body && Object.keys(body).length) {
      checkKeys(req, body, INDEX_TEMPLATE_KEYS, 'index_template');
      candidate = { name: 'simulate_index_template', template: this.templates.normalizeIndexTemplate('simulate_index_template', body) };
    }
    return RestResponses.ok(this.templates.simulateIndex(req.pathParam('name'), candidate));
  }
}

@injectable()
export class SimulateTemplateRestHandler implements RestHandler {
  readonly name = 'simulate_template_action';
  readonly routes = [route('POST', '/_index_template/_simulate', A.SIMULATE), route('POST', '/_index_template/_simulate/{name}', A.SIMULATE)];
  readonly params = ['create', 'cause', 'include_defaults', ...TIMEOUTS];

  constructor(@inject(TemplateService) private readonly templates: TemplateService) {}

  handle(req: RestRequest): RestResponse {
    const body = req.hasBody() ? req.objectBody(false) : undefined;
    if (body && Object.keys(body).length) checkKeys(req, body, INDEX_TEMPLATE_KEYS, 'index_template');
    return RestResponses.ok(this.templates.simulateTemplate(req.optionalPathParam('name'), body));
  }
}

// ---------------------------------------------------------------- component templates

@injectable()
export class PutComponentTemplateRestHandler implements RestHandler {
  readonly name = 'put_component_template_action';
  readonly routes = [route('PUT', '/_component_template/{name}', A.COMPONENT_PUT), route('POST', '/_component_template/{name}', A.COMPONENT_PUT)];
  readonly params = ['create', 'cause', ...TIMEOUTS];

  constructor(@inject(TemplateService) private readonly templates: TemplateService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const body = req.objectBody(true) ?? {};
    checkKeys(req, body, COMPONENT_KEYS, 'component_template');
    if (body['template'] === undefined || body['template'] === null) {
      throw Errors.xContentParse('Required [template]');
    }
    await this.templates.putComponentTemplate(req.pathParam('name'), body, { create: req.boolParam('create', false) });
    return RestResponses.acknowledged();
  }
}

@injectable()
export class GetComponentTemplateRestHandler implements RestHandler {
  readonly name = 'get_component_template_action';
  readonly routes = [
    route('GET', '/_component_template', A.COMPONENT_GET),
    route('GET', '/_component_template/{name}', A.COMPONENT_GET),
    route('HEAD', '/_component_template/{name}', A.COMPONENT_GET),
  ];
  readonly params = ['flat_settings', 'include_defaults', 'local', 'master_timeout'];

  constructor(@inject(TemplateService) private readonly templates: TemplateService) {}

  handle(req: RestRequest): RestResponse {
    const name = req.optionalPathParam('name');
    if (req.method === 'HEAD') return headStatus(() => this.templates.componentTemplates(name));
    const flat = req.boolParam('flat_settings', false);
    return RestResponses.ok({
      component_templates: this.templates.componentTemplates(name).map(([n, t]) => {
        const ct: Json = { template: renderInner(t['template'], flat) };
        for (const k of ['version', '_meta', 'deprecated']) if (t[k] !== undefined) ct[k] = t[k];
        return { name: n, component_template: ct };
      }),
    });
  }
}

@injectable()
export class DeleteComponentTemplateRestHandler implements RestHandler {
  readonly name = 'delete_component_template_action';
  readonly routes = [route('DELETE', '/_component_template/{name}', A.COMPONENT_DELETE)];
  readonly params = TIMEOUTS;

  constructor(@inject(TemplateService) private readonly templates: TemplateService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    await this.templates.deleteComponentTemplates(req.pathParam('name'));
    return RestResponses.acknowledged();
  }
}

// ---------------------------------------------------------------- legacy templates

@injectable()
export class PutLegacyTemplateRestHandler implements RestHandler {
  readonly name = 'put_index_template_action';
  readonly routes = [route('PUT', '/_template/{name}', A.LEGACY_PUT), route('POST', '/_template/{name}', A.LEGACY_PUT)];
  readonly params = ['create', 'order', 'cause', ...TIMEOUTS];

  constructor(@inject(TemplateService) private readonly templates: TemplateService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const body = req.objectBody(true) ?? {};
    addDeprecationWarning('Legacy index templates are deprecated in favor of composable templates.');
    await this.templates.putLegacyTemplate(req.pathParam('name'), body, {
      create: req.boolParam('create', false),
      order: req.intParam('order'),
      warnings: WARNINGS,
    });
    return RestResponses.acknowledged();
  }
}

@injectable()
export class GetLegacyTemplateRestHandler implements RestHandler {
  readonly name = 'get_index_template_action';
  readonly routes = [route('GET', '/_template', A.LEGACY_GET), route('GET', '/_template/{name}', A.LEGACY_GET), route('HEAD', '/_template/{name}', A.LEGACY_GET)];
  readonly params = ['flat_settings', 'local', 'master_timeout'];

  constructor(@inject(TemplateService) private readonly templates: TemplateService) {}

  handle(req: RestRequest): RestResponse {
    const name = req.optionalPathParam('name');
    const found = this.templates.legacyTemplates(name);
    const concrete = name !== undefined && !name.split(',').some((p) => p.includes('*') || p === '_all');
    if (req.method === 'HEAD') return RestResponses.empty(found.length ? 200 : 404);
    const flat = req.boolParam('flat_settings', false);
    const out: Json = {};
    for (const [n, t] of found) {
      const o: Json = { order: t['order'] ?? 0 };
      if (t['version'] !== undefined) o['version'] = t['version'];
      o['index_patterns'] = t['index_patterns'];
      o['settings'] = renderSettings((t['settings'] as Json) ?? {}, flat);
      o['mappings'] = t['mappings'] ?? {};
      o['aliases'] = t['aliases'] ?? {};
      out[n] = o;
    }
    return RestResponses.json(concrete && found.length === 0 ? 404 : 200, out);
  }
}

@injectable()
export class DeleteLegacyTemplateRestHandler implements RestHandler {
  readonly name = 'delete_index_template_action';
  readonly routes = [route('DELETE', '/_template/{name}', A.LEGACY_DELETE)];
  readonly params = TIMEOUTS;

  constructor(@inject(TemplateService) private readonly templates: TemplateService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    await this.templates.deleteLegacyTemplates(req.pathParam('name'));
    return RestResponses.acknowledged();
  }
}

export const TEMPLATE_REST_HANDLERS = [
  PutIndexTemplateRestHandler,
  GetIndexTemplateRestHandler,
  DeleteIndexTemplateRestHandler,
  SimulateIndexTemplateRestHandler,
  SimulateTemplateRestHandler,
  PutComponentTemplateRestHandler,
  GetComponentTemplateRestHandler,
  DeleteComponentTemplateRestHandler,
  PutLegacyTemplateRestHandler,
  GetLegacyTemplateRestHandler,
  DeleteLegacyTemplateRestHandler,
];
