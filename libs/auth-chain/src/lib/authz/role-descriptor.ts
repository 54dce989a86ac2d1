/**
 * Role descriptors as Elasticsearch writes them (`PUT /_security/role/{name}`, API key `role_descriptors`,
 * roles.yml): parsing with RoleDescriptor.parse's errors and privilege validation.
 */
import { EsError, Errors } from '@strata/core-common';
import { tokenName as typeName } from '@strata/core-engine';
import { resolveClusterPrivilege, resolveIndexPrivileges } from './privileges.js';

export interface IndicesPrivileges {
  names: string[];
  privileges: string[];
  field_security?: { grant?: string[]; except?: string[] };
  query?: string;
  allow_restricted_indices: boolean;
}

export interface ApplicationPrivileges {
  application: string;
  privileges: string[];
  resources: string[];
}

export interface RoleDescriptor {
  cluster: string[];
  indices: IndicesPrivileges[];
  applications: ApplicationPrivileges[];
  run_as: string[];
  metadata: Record<string, unknown>;
  transient_metadata?: Record<string, unknown>;
  description?: string;
}

export function parseError(reason: string): EsError {
  return new EsError('parse_exception', 400, reason);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function stringArray(v: unknown, what: () => string): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return [...(v as string[])];
  throw parseError(what());
}

function parseIndices(role: string, v: unknown): IndicesPrivileges[] {
  if (!Array.isArray(v)) throw parseError(`failed to parse indices privileges for role [${role}]. expected field [indices] value to be an array, but found [${typeName(v)}] instead`);
  return v.map((entry) => {
    if (!isObject(entry)) throw parseError(`failed to parse indices privileges for role [${role}]. expected field [indices] value to be an array of objects`);
    let names: string[] | undefined;
    let privileges: string[] | undefined;
    const out: Partial<IndicesPrivileges> = { allow_restricted_indices: false };
    for (const [k, val] of Object.entries(entry)) {
      switch (k) {
        case 'names':
          names = stringArray(val, () => `failed to parse indices privileges for role [${role}]. expected field [names] value to be a string or an array of strings, but found [${typeName(val)}] instead`);
          break;
        case 'privileges':
          privileges = stringArray(val, () => `failed to parse indices privileges for role [${role}]. expected field [privileges] value to be an array of strings, but found [${typeName(val)}] instead`);
          break;
        case 'field_security': {
          if (!isObject(val)) throw parseError(`failed to parse indices privileges for role [${role}]. expected field [field_security] value to be an object, but found [${typeName(val)}] instead`);
          const fs: { grant?: string[]; except?: string[] } = {};
          for (const [fk, fv] of Object.entries(val)) {
            if (fk === 'grant' || fk === 'except') fs[fk] = stringArray(fv, () => `failed to parse indices privileges for role [${role}]. expected field [${fk}] value to be an array of strings`);
            else throw parseError(`failed to parse indices privileges for role [${role}]. expected field [${fk}] to be one of [grant, except]`);
          }
          out.field_security = fs;
          break;
        }
        case 'query':
          if (typeof val === 'string') out.query = val;
          else if (isObject(val)) out.query = JSON.stringify(val);
          else if (val !== null) throw parseError(`failed to parse indices privileges for role [${role}]. expected field [query] value to be null, a string, an array, or an object, but found [${typeName(val)}] instead`);
          break;
        case 'allow_restricted_indices':
          if (typeof val !== 'boolean') throw parseError(`failed to parse indices privileges for role [${role}]. expected field [allow_restricted_indices] value to be a boolean, but found [${typeName(val)}] instead`);
          out.allow_restricted_indices = val;
          break;
        default:
          throw parseError(`failed to parse indices privileges for role [${role}]. unexpected field [${k}]`);
      }
    }
    if (names === undefined) throw parseError(`failed to parse indices privileges for role [${role}]. missing required [names] field`);
    if (names.length === 0) throw parseError(`failed to parse indices privileges for role [${role}]. [names] cannot be an empty array`);
    if (privileges === undefined) throw parseError(`failed to parse indices privileges for role [${role}]. missing required [privileges] field`);
    return { ...out, names, privileges } as IndicesPrivileges;
  });
}

function parseApplications(role: string, v: unknown): ApplicationPrivileges[] {
  if (!Array.isArray(v)) throw parseError(`failed to parse application privileges for role [${role}]. expected field [applications] value to be an array`);
  return v.map((entry) => {
    if (!isObject(entry)) throw parseError(`failed to parse application privileges for role [${role}]. expected an object`);
    const app = entry['application'];
    if (typeof app !== 'string') throw parseError(`failed to parse application privileges for role [${role}]. missing required [application] field`);
    for (const k of Object.keys(entry)) {
      if (!['application', 'privileges', 'resources'].includes(k)) throw parseError(`failed to parse application privileges for role [${role}]. unexpected field [${k}]`);
    }
    if (entry['privileges'] === undefined) throw parseError(`failed to parse application privileges for role [${role}]. missing required [privileges] field`);
    if (entry['resources'] === undefined) throw parseError(`failed to parse application privileges for role [${role}]. missing required [resources] field`);
    return {
      application: app,
      privileges: stringArray(entry['privileges'], () => `failed to parse application privileges for role [${role}]. expected field [privileges] value to be an array of strings`),
      resources: stringArray(entry['resources'], () => `failed to parse application privileges for role [${role}]. expected field [resources] value to be an array of strings`),
    };
  });
}


/** RoleDescriptor.parse: the body of a role (or one entry of `role_descriptors`) */
export function parseRoleDescriptor(role: string, body: unknown, opts: { allowDescription?: boolean } = {}): RoleDescriptor {
  if (!isObject(body)) throw parseError(`failed to parse role [${role}]. expected an object but found [${typeName(body)}] instead`);
  const rd: RoleDescriptor = { cluster: [], indices: [], applications: [], run_as: [], metadata: {} };
  for (const [k, v] of Object.entries(body)) {
    switch (k) {
      case 'cluster':
        rd.cluster = stringArray(v, () => `failed to parse role [${role}]. expected field [cluster] value to be an array of strings, but found [${typeName(v)}] instead`);
        break;
      case 'indices':
      case 'index':
        rd.indices = parseIndices(role, v);
        break;
      case 'applications':
      case 'application':
        rd.applications = parseApplications(role, v);
        break;
      case 'run_as':
        rd.run_as = stringArray(v, () => `failed to parse role [${role}]. expected field [run_as] value to be an array of strings`);
        break;
      case 'metadata':
        if (!isObject(v)) throw parseError(`expected field [metadata] to be of type object, but found [${typeName(v)}] instead`);
        rd.metadata = { ...v };
        break;
      case 'transient_metadata':
        if (!isObject(v)) throw parseError(`failed to parse role [${role}]. expected field [transient_metadata] to be an object`);
        break;
      case 'global':
      case 'remote_indices':
      case 'remote_cluster':
      case 'restriction':
        // accepted and ignored: no application/remote privileges apply on a single node
        break;
      case 'description':
        if (opts.allowDescription !== false) {
          if (typeof v !== 'string') throw parseError(`failed to parse role [${role}]. expected field [description] value to be a string`);
          rd.description = v;
          break;
        }
        throw parseError(`failed to parse role [${role}]. unexpected field [${k}]`);
      default:
        throw parseError(`failed to parse role [${role}]. unexpected field [${k}]`);
    }
  }
  return rd;
}

/** the `Validation Failed: ...` errors of a role's privileges (PutRoleRequest.validate), or undefined */
export function validateRolePrivileges(rd: RoleDescriptor): string[] {
  const errors: string[] = [];
  for (const c of rd.cluster) {
    try {
      resolveClusterPrivilege(c);
    } catch (e) {
      errors.push((e as Error).message);
    }
  }
  for (const ip of rd.indices) {
    try {
      resolveIndexPrivileges(ip.privileges);
    } catch (e) {
      errors.push((e as Error).message);
    }
  }
  for (const [k] of Object.entries(rd.metadata)) {
    if (k.startsWith('_')) errors.push('role descriptor metadata keys may not start with [_]');
  }
  return errors;
}

/**
 * Field and document level security (`field_security`, `query`) is a paid feature in Elasticsearch; under the
 * basic license this service runs with, ES refuses to create such roles and disables such roles found
 * elsewhere (roles.yml, stored earlier) — it never silently grants more than the role says.
 */
export const DLS_FLS_FEATURE = 'field and document level security';

/** which of `dls` / `fls` a descriptor uses (empty when neither) */
export function unlicensedFeatures(rd: RoleDescriptor): string[] {
  const out: string[] = [];
  if (rd.indices.some((ip) => ip.query !== undefined)) out.push('dls');
  if (rd.indices.some((ip) => ip.field_security !== undefined)) out.push('fls');
  return out;
}

/** ES's LicenseUtils.newComplianceException for DLS/FLS (403) */
export function dlsFlsNonCompliant(): EsError {
  return Errors.security(`current license is non-compliant for [${DLS_FLS_FEATURE}]`, 403, undefined, { 'license.expired.feature': DLS_FLS_FEATURE });
}

/** the descriptor without its DLS/FLS index groups (an API key's descriptors: fail closed, grant less) */
export function withoutDlsFls(rd: RoleDescriptor): RoleDescriptor {
  if (unlicensedFeatures(rd).length === 0) return rd;
  return { ...rd, indices: rd.indices.filter((ip) => ip.query === undefined && ip.field_security === undefined) };
}

/** parses and validates; validation errors become action_request_validation_exception */
export function parseAndValidateRole(role: string, body: unknown): RoleDescriptor {
  const rd = parseRoleDescriptor(role, body);
  const errors = validateRolePrivileges(rd);
  if (errors.length) throw Errors.actionRequestValidation(errors);
  return rd;
}

/** the wire form (GET role, API key role_descriptors) */
export function roleDescriptorToJson(rd: RoleDescriptor): Record<string, unknown> {
  const out: Record<string, unknown> = {
    cluster: rd.cluster,
    indices: rd.indices.map((ip) => {
      const o: Record<string, unknown> = { names: ip.names, privileges: ip.privileges };
      if (ip.field_security) o['field_security'] = ip.field_security;
      if (ip.query !== undefined) o['query'] = ip.query;
      o['allow_restricted_indices'] = ip.allow_restricted_indices;
      return o;
    }),
    applications: rd.applications,
    run_as: rd.run_as,
    metadata: rd.metadata,
    transient_metadata: rd.transient_metadata ?? { enabled: true },
  };
  if (rd.description !== undefined) out['description'] = rd.description;
  return out;
}

/** a role as GET /_security/role shows it: a role using DLS/FLS is marked disabled, as ES marks unlicensed roles */
export function roleToJson(rd: RoleDescriptor): Record<string, unknown> {
  const out = roleDescriptorToJson(rd);
  const unlicensed = unlicensedFeatures(rd);
  if (unlicensed.length) out['transient_metadata'] = { ...(rd.transient_metadata ?? {}), enabled: false, unlicensed_features: unlicensed };
  return out;
}
