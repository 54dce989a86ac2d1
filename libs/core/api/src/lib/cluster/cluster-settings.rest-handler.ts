import { inject, injectable } from 'inversify';
import {
  Errors,
  RestResponses,
  Tokens,
  flattenSettings,
  nestSettings,
  route,
  type RestHandler,
  type RestRequest,
  type RestResponse,
  type SettingsRegistry,
} from '@strata/core-common';
import { ClusterView } from './cluster-view.js';

function asSettingString(v: unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => String(x));
  return v === null || v === undefined ? v : String(v);
}

/** `GET|PUT /_cluster/settings`: persistent and transient cluster settings kept in the MetadataStore. */
@injectable()
export class ClusterSettingsRestHandler implements RestHandler {
  readonly name = 'cluster_settings_action';
  readonly canTripCircuitBreaker = false;
  readonly routes = [
    route('GET', '/_cluster/settings', 'cluster:monitor/settings'),
    route('PUT', '/_cluster/settings', 'cluster:admin/settings/update'),
  ];
  readonly params = ['flat_settings', 'include_defaults', 'master_timeout', 'timeout', 'local'];

  /** used when no MetadataStore is bound */
  private readonly local = { persistent: {} as Record<string, unknown>, transient: {} as Record<string, unknown> };

  constructor(
    @inject(ClusterView) private readonly cluster: ClusterView,
    @inject(Tokens.SettingsRegistry) private readonly registry: SettingsRegistry,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const flat = req.boolParam('flat_settings', false);
    req.timeParam('master_timeout');
    req.timeParam('timeout');
    const render = (m: Record<string, unknown>): Record<string, unknown> => (flat ? { ...m } : nestSettings(m));
    if (req.method === 'GET') {
      const { persistent, transient } = this.current();
      const body: Record<string, unknown> = { persistent: render(persistent), transient: render(transient) };
      if (req.boolParam('include_defaults', false)) {
        const defaults: Record<string, unknown> = {};
        for (const def of [...this.registry.all('cluster'), ...this.registry.all('node')]) {
          if (def.prefix || def.secure) continue;
          if (def.key in persistent || def.key in transient) continue;
          const v = def.defaultValue;
          defaults[def.key] = def.defaultRaw ?? (typeof v === 'object' && v !== null ? v : asSettingString(v));
        }
        body['defaults'] = render(defaults);
      }
      return RestResponses.ok(body);
    }

    const body = req.objectBody(true)!;
    for (const k of Object.keys(body)) {
      if (k !== 'persistent' && k !== 'transient') {
        throw Errors.xContentParse(`[cluster_update_settings_request] unknown field [${k}]`);
      }
    }
    const updates: Record<'persistent' | 'transient', Record<string, unknown>> = {
      persistent: this.validate('persistent', body['persistent']),
      transient: this.validate('transient', body['transient']),
    };
    const apply = (target: Record<string, unknown>, upd: Record<string, unknown>): void => {
      for (const [k, v] of Object.entries(upd)) {
        if (k.endsWith('*') && v === null) {
          const prefix = k.slice(0, -1);
          for (const key of Object.keys(target)) if (key.startsWith(prefix)) delete target[key];
        } else if (v === null) delete target[k];
        else target[k] = asSettingString(v);
      }
    };
    const store = this.cluster.metadataStore();
    if (store) {
      await store.update((draft) => {
        apply(draft.persistentSettings, updates.persistent);
        apply(draft.transientSettings, updates.transient);
      });
    } else {
      apply(this.local.persistent, updates.persistent);
      apply(this.local.transient, updates.transient);
    }
    const effective = this.current();
    for (const scope of ['persistent', 'transient'] as const) {
      for (const [k, v] of Object.entries(updates[scope])) {
        if (k.endsWith('*')) continue;
        const def = this.registry.get(k);
        const value = effective.transient[k] ?? effective.persistent[k];
        this.registry.notify(k, value === undefined ? def?.defaultValue : def ? def.parse(value) : v);
      }
    }
    const shown = (upd: Record<string, unknown>): Record<string, unknown> => {
      const o: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(upd)) if (v !== null) o[k] = asSettingString(v);
      return render(o);
    };
    return RestResponses.ok({ acknowledged: true, persistent: shown(updates.persistent), transient: shown(updates.transient) });
  }

  private current(): { persistent: Record<string, unknown>; transient: Record<string, unknown> } {
    const store = this.cluster.metadataStore();
    if (!store) return this.local;
    const m = store.current();
    return { persistent: m.persistentSettings, transient: m.transientSettings };
  }

  private validate(scope: 'persistent' | 'transient', raw: unknown): Record<string, unknown> {
    if (raw === undefined || raw === null) return {};
    if (typeof raw !== 'object' || Array.isArray(raw)) {
      throw Errors.xContentParse(`[cluster_update_settings_request] failed to parse field [${scope}]`);
    }
    const flat = flattenSettings(raw);
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(flat)) {
      if (key.endsWith('*') && value === null) {
        out[key] = null;
        continue;
      }
      const def = this.registry.get(key);
      // node settings are cluster settings too in ES (static ones): known, but not dynamically updateable
      if (!def || (def.scope !== 'cluster' && def.scope !== 'node')) {
        throw Errors.illegalArgument(`${scope} setting [${key}], not recognized`);
      }
      if (!def.dynamic) throw Errors.illegalArgument(`${scope} setting [${key}], not dynamically updateable`);
      if (value !== null) def.parse(value);
      out[key] = value;
    }
    return out;
  }
}
