/**
 * Role names → descriptors (reserved roles, then roles.yml, then native roles) → compiled permissions,
 * cached until a role changes. The permission of an authentication depends on how it authenticated:
 * a user's roles, an API key's role intersected with its creator's, a service account's fixed role.
 */
import { inject, injectable, optional } from 'inversify';
import { Tokens, type Logger } from '@strata/core-common';
import type { Authentication } from '../authc/authentication.js';
import { FileRealmFiles } from '../authc/file-realm-files.js';
import { SecurityStore } from '../store/security-store.js';
import { RESERVED_ROLES } from './reserved-roles.js';
import { DLS_FLS_FEATURE, unlicensedFeatures, withoutDlsFls, type RoleDescriptor } from './role-descriptor.js';
import { LimitedRole, Role, type Permission } from './role.js';

export interface ResolvedPermission {
  permission: Permission;
  /** role names found (sorted) */
  effective: string[];
  /** assigned role names that do not exist */
  missing: string[];
}

/** a role applies unless it needs field or document level security (not available: it grants nothing) */
function licensed(rd: RoleDescriptor | undefined): rd is RoleDescriptor {
  return rd !== undefined && unlicensedFeatures(rd).length === 0;
}

@injectable()
export class RolesService {
  private generation = 0;
  private readonly byNames = new Map<string, ResolvedPermission>();
  private readonly byAuth = new WeakMap<Authentication, { generation: number; resolved: ResolvedPermission }>();

  constructor(
    @inject(SecurityStore) private readonly store: SecurityStore,
    @inject(FileRealmFiles) private readonly files: FileRealmFiles,
    @inject(Tokens.Logger) @optional() private readonly logger?: Logger,
  ) {
    const invalidate = () => {
      this.generation++;
      this.byNames.clear();
    };
    store.onChange(invalidate);
    files.onChange(invalidate);
  }

  /** the descriptor of a role name: reserved, file, native (in that precedence) */
  descriptor(name: string): RoleDescriptor | undefined {
    return RESERVED_ROLES.get(name) ?? this.files.roles().get(name) ?? this.store.state().roles[name];
  }

  isReserved(name: string): boolean {
    return RESERVED_ROLES.has(name);
  }

  resolveNames(names: readonly string[]): ResolvedPermission {
    const key = [...new Set(names)].sort().join('\u0000');
    let r = this.byNames.get(key);
    if (!r) {
      const effective: string[] = [];
      const missing: string[] = [];
      const disabled: string[] = [];
      const descriptors: RoleDescriptor[] = [];
      for (const n of [...new Set(names)].sort()) {
        const d = this.descriptor(n);
        if (licensed(d)) {
          effective.push(n);
          descriptors.push(d);
        } else if (d) disabled.push(n);
        else missing.push(n);
      }
      if (disabled.length) {
        this.logger?.warn(
          { roles: disabled },
          `User roles [${disabled.join(',')}] are disabled because they require field or document level security. The current license is non-compliant for [${DLS_FLS_FEATURE}].`,
        );
      }
      r = { permission: new Role(effective, descriptors), effective, missing };
      this.byNames.set(key, r);
    }
    return r;
  }

  /** descriptors by role name (the creator's roles when an API key is created, `limited_by`) */
  descriptorsOf(names: readonly string[]): Record<string, RoleDescriptor> {
    const out: Record<string, RoleDescriptor> = {};
    for (const n of [...new Set(names)].sort()) {
      const d = this.descriptor(n);
      if (licensed(d)) out[n] = d;
    }
    return out;
  }

  permissionOf(auth: Authentication): ResolvedPermission {
    const cached = this.byAuth.get(auth);
    if (cached && cached.generation === this.generation) return cached.resolved;
    let resolved: ResolvedPermission;
    if (auth.serviceAccountRole) {
      resolved = { permission: new Role([auth.username], [auth.serviceAccountRole]), effective: [], missing: [] };
    } else if (auth.apiKeyRoles) {
      // index groups with field or document level security grant nothing (ES refuses requests they would restrict)
      const limitedBy = new Role(Object.keys(auth.apiKeyRoles.limitedBy), Object.values(auth.apiKeyRoles.limitedBy).map(withoutDlsFls));
      const ownDescriptors = auth.apiKeyRoles.roleDescriptors;
      const own = Object.keys(ownDescriptors).length === 0 ? limitedBy : new Role(Object.keys(ownDescriptors), Object.values(ownDescriptors).map(withoutDlsFls));
      resolved = { permission: new LimitedRole(own, limitedBy), effective: [], missing: [] };
    } else {
      resolved = this.resolveNames(auth.roles);
    }
    this.byAuth.set(auth, { generation: this.generation, resolved });
    return resolved;
  }
}
