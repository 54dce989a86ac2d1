/**
 * The security library's view of an authenticated caller: the core's Principal plus what authorization
 * needs (the role descriptors an API key or a service account carries). Plain data.
 */
import type { Principal } from '@strata/core-common';
import type { RoleDescriptor } from '../authz/role-descriptor.js';

export interface Authentication extends Principal {
  enabled?: boolean;
  /** API key (or a token created with one): its own role descriptors and the creator's at creation */
  apiKeyRoles?: { roleDescriptors: Record<string, RoleDescriptor>; limitedBy: Record<string, RoleDescriptor> };
  /** API key: the realm of the user who owns it (ownership of keys, contexts) */
  apiKeyOwnerRealm?: { name: string; type: string };
  /** service account: its fixed role */
  serviceAccountRole?: RoleDescriptor;
  /** epoch millis after which a cached authentication must be re-checked (token / API key expiry) */
  expiresAt?: number;
  /** run-as (`es-security-runas-user`): the user who authenticated and now acts as this one */
  runBy?: { username: string; realm: { name: string; type: string }; roles: string[] };
}

export const REALM_RESERVED = { name: 'reserved', type: 'reserved' } as const;
export const REALM_API_KEY = { name: '_es_api_key', type: '_es_api_key' } as const;
export const REALM_ANONYMOUS = { name: '__anonymous', type: '__anonymous' } as const;
export const REALM_SERVICE_ACCOUNT = { name: '_service_account', type: '_service_account' } as const;

/** `GET /_security/_authenticate` body */
export function authenticateResponse(a: Authentication): Record<string, unknown> {
  const body: Record<string, unknown> = {
    username: a.username,
    roles: a.apiKey || a.serviceAccountRole ? [] : a.roles,
    full_name: a.fullName ?? null,
    email: a.email ?? null,
    metadata: a.metadata ?? {},
    enabled: a.enabled ?? true,
    authentication_realm: a.realm,
    lookup_realm: a.lookupRealm ?? a.realm,
    authentication_type: a.authenticationType,
  };
  if (a.apiKey) body['api_key'] = { id: a.apiKey.id, name: a.apiKey.name };
  if (a.token) body['token'] = a.token;
  return body;
}
