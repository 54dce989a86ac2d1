/** Shared pieces of the `/_security` REST handlers. */
import { EsError, Errors, type RestRequest } from '@strata/core-common';
import { tokenName } from '@strata/core-engine';
import type { Authentication } from '../authc/authentication.js';
import { securityDisabled } from '../authc/auth-errors.js';
import type { SecurityConfig } from '../security-config.js';
import type { SecurityStore } from '../store/security-store.js';

/** the caller of a request that passed the authenticator chain (security on) */
export function caller(req: RestRequest): Authentication {
  return req.principal as Authentication;
}

/** every security API answers Elasticsearch's "security must be enabled" error while security is off */
export function requireSecurity(config: SecurityConfig): void {
  if (!config.enabled) throw securityDisabled();
}

/** `?refresh=true|false|wait_for` (accepted; every change is visible at once here) */
export function refreshParam(req: RestRequest): void {
  const r = req.param('refresh');
  if (r !== undefined && r !== '' && r !== 'true' && r !== 'false' && r !== 'wait_for') {
    throw Errors.illegalArgument(`Unknown value for refresh: [${r}].`);
  }
}

/** the request body as an object (ES parse_exception otherwise) */
export function objectBody(req: RestRequest, what: string, required = true): Record<string, unknown> {
  if (!req.hasBody()) {
    if (required) throw Errors.actionRequestValidation([`${what} body is required`]);
    return {};
  }
  const b = req.jsonBody();
  if (b === null || typeof b !== 'object' || Array.isArray(b)) throw new EsError('parse_exception', 400, `failed to parse ${what}. expected an object but found [${tokenName(b)}] instead`);
  return b as Record<string, unknown>;
}

/** a comma list path parameter (`/_security/user/a,b`); empty when absent */
export function nameList(req: RestRequest, param: string): string[] {
  const v = req.optionalPathParam(param);
  return v === undefined ? [] : v.split(',').map((s) => s.trim()).filter(Boolean);
}

const NAME_CHARS = /^[\x20-\x7e]{1,507}$/;

/** Validation.Users / Validation.Roles name rules */
export function validName(name: string): boolean {
  return NAME_CHARS.test(name) && name.trim() === name;
}

export function stringArrayField(v: unknown, field: string, what: string): string[] {
  if (v === null || v === undefined) return [];
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return [...(v as string[])];
  throw new EsError('parse_exception', 400, `failed to parse ${what}. expected field [${field}] to be of type string array, but found [${tokenName(v)}] instead`);
}

export function stringField(v: unknown, field: string, what: string): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  throw new EsError('parse_exception', 400, `failed to parse ${what}. expected field [${field}] to be of type string, but found [${tokenName(v)}] instead`);
}

export function objectField(v: unknown, field: string, what: string): Record<string, unknown> {
  if (v === null || v === undefined) return {};
  if (typeof v === 'object' && !Array.isArray(v)) return { ...(v as Record<string, unknown>) };
  throw new EsError('parse_exception', 400, `failed to parse ${what}. expected field [${field}] to be of type object, but found [${tokenName(v)}] instead`);
}

/** `{"_nodes":{...},"cluster_name":...,"nodes":{...}}` of the cache-clear APIs */
export function nodesResponse(config: SecurityConfig, nodeId: string): Record<string, unknown> {
  return {
    _nodes: { total: 1, successful: 1, failed: 0 },
    cluster_name: String(config.settings['cluster.name'] ?? 'strata'),
    nodes: { [nodeId]: { name: config.nodeName } },
  };
}

/** deletes a named entry of a security section; false when there was none */
export async function deleteEntry(store: SecurityStore, section: 'users' | 'roles' | 'role_mappings', name: string): Promise<boolean> {
  if (!store.state()[section][name]) return false;
  return store.update((d) => {
    const had = d[section][name] !== undefined;
    delete d[section][name];
    return had;
  });
}
