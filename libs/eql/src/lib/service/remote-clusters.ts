/**
 * Remote clusters for `<cluster>:<target>` EQL searches. A remote is configured through the cluster settings
 * `cluster.remote.<alias>.seeds` (or `.mode: proxy` + `.proxy_address`), each seed being a node's HTTP
 * address; the whole EQL request is forwarded to it (ccs_minimize_roundtrips: one round trip) after checking
 * that it runs the same version, and the returned events are qualified with the cluster alias.
 */
import { inject, injectable, optional } from 'inversify';
import { EsError, Errors, simpleMatch } from '@strata/core-common';
import { VERSION } from '@strata/core-api';
import { EngineTokens, type MetadataStore } from '@strata/core-engine';
import { EqlVerificationException } from '../errors.js';
import type { EqlSearchRequest } from './eql-request.js';

export interface RemoteSplit {
  local: string[];
  /** alias → targets on that cluster */
  remote: Map<string, string[]>;
}

const REQUEST_TIMEOUT_MS = 60_000;

@injectable()
export class RemoteClusters {
  /** versions seen per seed (checked once per address) */
  private readonly versions = new Map<string, string>();

  constructor(@inject(EngineTokens.MetadataStore) @optional() private readonly metadata?: MetadataStore) {}

  private settings(): Record<string, unknown> {
    const md = this.metadata?.current();
    return { ...(md?.persistentSettings ?? {}), ...(md?.transientSettings ?? {}) };
  }

  /** configured aliases → HTTP addresses */
  configured(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    const s = this.settings();
    const aliases = new Set<string>();
    for (const k of Object.keys(s)) {
      const m = /^cluster\.remote\.([^.]+)\.(seeds|proxy_address|mode|skip_unavailable)$/.exec(k);
      if (m && s[k] !== null) aliases.add(m[1]!);
    }
    for (const alias of aliases) {
      const mode = String(s[`cluster.remote.${alias}.mode`] ?? 'sniff');
      const raw = mode === 'proxy' ? s[`cluster.remote.${alias}.proxy_address`] : s[`cluster.remote.${alias}.seeds`];
      const list = (Array.isArray(raw) ? raw.map(String) : raw === undefined || raw === null ? [] : String(raw).split(','))
        .map((x) => x.trim())
        .filter((x) => x.length > 0);
      if (list.length) out.set(alias, list);
    }
    return out;
  }

  split(indices: string[]): RemoteSplit {
    const local: string[] = [];
    const remote = new Map<string, string[]>();
    const configured = this.configured();
    for (const expr of indices) {
      const colon = expr.indexOf(':');
      if (colon < 0) {
        local.push(expr);
        continue;
      }
      const pattern = expr.substring(0, colon);
      const target = expr.substring(colon + 1);
      const matching = [...configured.keys()].filter((a) => simpleMatch(pattern, a));
      if (matching.length === 0) {
        if (pattern.includes('*')) continue;
        throw new EsError('no_such_remote_cluster_exception', 404, `no such remote cluster: [${pattern}]`);
      }
      for (const alias of matching) {
        let l = remote.get(alias);
        if (!l) remote.set(alias, (l = []));
        l.push(target);
      }
    }
    return { local, remote };
  }

  private async call(base: string, method: string, path: string, body: unknown, signal: AbortSignal): Promise<{ status: number; json: Record<string, unknown> }> {
    const url = /^https?:\/\//.test(base) ? base.replace(/\/+$/, '') + path : `http://${base}${path}`;
    const ctl = new AbortController();
    const onAbort = () => ctl.abort(signal.reason);
    signal.addEventListener('abort', onAbort);
    const timer = setTimeout(() => ctl.abort(new Error('timeout')), REQUEST_TIMEOUT_MS);
    try {
      const res = await fetch(url, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: ctl.signal,
      });
      const text = await res.text();
      let json: Record<string, unknown> = {};
      try {
        json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      } catch {
        json = {};
      }
      return { status: res.status, json };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** the first seed that answers, with its version checked against ours */
  private async seed(alias: string, signal: AbortSignal): Promise<string> {
    const seeds = this.configured().get(alias) ?? [];
    let lastError: unknown;
    for (const s of seeds) {
      try {
        let version = this.versions.get(s);
        if (version === undefined) {
          const { status, json } = await this.call(s, 'GET', '/', undefined, signal);
          if (status !== 200) throw new Error(`HTTP ${status}`);
          version = String((json['version'] as { number?: string } | undefined)?.number ?? '');
          this.versions.set(s, version);
        }
        if (version !== VERSION.number) {
          throw new EqlVerificationException([
            {
              line: 1,
              col: 1,
              message: `the following remote cluster is incompatible, being on a version different than local cluster's [${VERSION.number}]: [${alias}]`,
            },
          ]);
        }
        return s;
      } catch (e) {
        if (e instanceof EsError) throw e;
        lastError = e;
      }
    }
    throw new EsError('connect_transport_exception', 500, `[${alias}] unable to connect to any seed of the remote cluster${lastError instanceof Error ? `: ${lastError.message}` : ''}`);
  }

  /** forwards the search to the remote cluster and qualifies the returned events with the alias */
  async forward(alias: string, targets: string[], req: EqlSearchRequest, signal: AbortSignal): Promise<Record<string, unknown>> {
    const base = await this.seed(alias, signal);
    const body = { ...req.body };
    delete body['wait_for_completion_timeout'];
    delete body['keep_on_completion'];
    delete body['keep_alive'];
    const params = new URLSearchParams();
    params.set('ignore_unavailable', String(req.ignoreUnavailable));
    params.set('allow_no_indices', String(req.allowNoIndices));
    params.set('expand_wildcards', req.expandWildcards.join(','));
    params.set('ccs_minimize_roundtrips', String(req.ccsMinimizeRoundtrips));
    const path = `/${targets.map(encodeURIComponent).join(',')}/_eql/search?${params.toString()}`;
    const { status, json } = await this.call(base, 'POST', path, body, signal);
    if (status >= 300) {
      const err = json['error'] as Record<string, unknown> | undefined;
      if (err && typeof err['type'] === 'string') {
        throw new EsError(err['type'], status, String(err['reason'] ?? ''), { metadata: omit(err, ['type', 'reason', 'root_cause', 'caused_by']) });
      }
      throw Errors.illegalState(`remote cluster [${alias}] answered HTTP ${status}`);
    }
    const hits = json['hits'] as { events?: Array<Record<string, unknown>>; sequences?: Array<{ events: Array<Record<string, unknown>> }> } | undefined;
    const qualify = (e: Record<string, unknown>) => {
      if (typeof e['_index'] === 'string' && e['_index'] !== '') e['_index'] = `${alias}:${e['_index']}`;
    };
    for (const e of hits?.events ?? []) qualify(e);
    for (const s of hits?.sequences ?? []) for (const e of s.events ?? []) qualify(e);
    delete json['id'];
    return { is_partial: json['is_partial'] ?? false, is_running: false, ...json };
  }
}

function omit(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (!keys.includes(k)) out[k] = v;
  return out;
}
