/**
 * A compiled role: cluster privileges and index groups as predicates over action names and index names.
 * An API key's permissions are its own role intersected with its creator's at creation (LimitedRole).
 */
import { automatonMatcher, automatonRegExp, type StringMatcher } from '@strata/core-common';
import { ActionPattern, MANAGE_OWN_API_KEY, covered, resolveClusterPrivilege, resolveIndexPrivileges } from './privileges.js';
import type { RoleDescriptor } from './role-descriptor.js';

export interface IndexGroup {
  readonly names: readonly string[];
  readonly privileges: readonly string[];
  readonly nameMatcher: StringMatcher;
  readonly actions: ActionPattern;
  readonly allowRestricted: boolean;
}

/** what a role grants for a cluster action */
export type ClusterGrant = 'granted' | 'own-api-keys' | 'denied';

export interface Permission {
  /** role names for messages (`with effective roles [...]`) */
  readonly names: readonly string[];
  /** true for a role granting every cluster and index action on every name (the fast path) */
  readonly unrestricted: boolean;
  cluster(action: string): ClusterGrant;
  /** whether the action may run on the index, alias or data stream `name` */
  index(action: string, name: string): boolean;
  /** whether some index group grants the action at all (requests without explicit targets) */
  anyIndex(action: string): boolean;
  /** whether `runAs` may be impersonated */
  runAs(user: string): boolean;
  /** whether every action the cluster privilege grants is granted (`_has_privileges`) */
  clusterCovers(privilege: ActionPattern): boolean;
  /** whether every action the index privilege grants is granted on `name` (a name or a pattern) */
  indexCovers(name: string, privilege: ActionPattern): boolean;
  /** whether the application privilege is granted on the resource */
  applicationCovers(application: string, privilege: string, resource: string): boolean;
}

function eachInclude(p: ActionPattern, grants: readonly ActionPattern[]): boolean {
  return p.includes.every((i) => grants.some((g) => g.implies(new ActionPattern([i]))));
}

function nameRegExp(patterns: readonly string[]): StringMatcher {
  return automatonMatcher(patterns);
}

export class Role implements Permission {
  readonly unrestricted: boolean;
  private readonly clusterGrants: readonly ActionPattern[];
  private readonly ownApiKeys: ActionPattern | null;
  readonly groups: readonly IndexGroup[];
  private readonly runAsMatcher: StringMatcher | null;

  constructor(
    readonly names: readonly string[],
    readonly descriptors: readonly RoleDescriptor[],
  ) {
    const cluster: ActionPattern[] = [];
    let own: ActionPattern | null = null;
    for (const rd of descriptors) {
      for (const c of rd.cluster) {
        try {
          if (c.toLowerCase() === MANAGE_OWN_API_KEY) own = resolveClusterPrivilege(c);
          else cluster.push(resolveClusterPrivilege(c));
        } catch {
          // an unknown privilege of a stored role grants nothing (privileges are validated when written)
        }
      }
    }
    // a role grants the union of its privileges (each one its patterns minus its exclusions)
    this.clusterGrants = cluster;
    this.ownApiKeys = own;
    const groups: IndexGroup[] = [];
    for (const rd of descriptors) {
      for (const ip of rd.indices) {
        let actions: ActionPattern;
        try {
          actions = resolveIndexPrivileges(ip.privileges);
        } catch {
          continue;
        }
        groups.push({ names: ip.names, privileges: ip.privileges, nameMatcher: nameRegExp(ip.names), actions, allowRestricted: ip.allow_restricted_indices });
      }
    }
    this.groups = groups;
    const runAs = descriptors.flatMap((d) => d.run_as);
    this.runAsMatcher = runAs.length ? nameRegExp(runAs) : null;
    this.unrestricted =
      descriptors.some((d) => d.cluster.some((c) => c.toLowerCase() === 'all')) &&
      groups.some((g) => g.names.includes('*') && g.privileges.some((p) => p.toLowerCase() === 'all'));
  }

  cluster(action: string): ClusterGrant {
    if (this.clusterGrants.some((p) => p.test(action))) return 'granted';
    if (this.ownApiKeys?.test(action)) return 'own-api-keys';
    return 'denied';
  }

  index(action: string, name: string): boolean {
    for (const g of this.groups) if (g.actions.test(action) && g.nameMatcher.test(name)) return true;
    return false;
  }

  anyIndex(action: string): boolean {
    return this.groups.some((g) => g.actions.test(action));
  }

  runAs(user: string): boolean {
    return this.runAsMatcher !== null && this.runAsMatcher.test(user);
  }

  clusterCovers(privilege: ActionPattern): boolean {
    return eachInclude(privilege, this.clusterGrants);
  }

  indexCovers(name: string, privilege: ActionPattern): boolean {
    const literal = !/[*?]/.test(name) && !name.startsWith('/');
    const groups = this.groups.filter((g) => (literal ? g.nameMatcher.test(name) : covered(name, g.names)));
    return eachInclude(
      privilege,
      groups.map((g) => g.actions),
    );
  }

  applicationCovers(application: string, privilege: string, resource: string): boolean {
    return this.descriptors.some((d) =>
      d.applications.some(
        (a) =>
          automatonRegExp(a.application).test(application) &&
          a.privileges.some((p) => p === '*' || p === privilege) &&
          a.resources.some((r) => automatonRegExp(r).test(resource)),
      ),
    );
  }
}

/** an API key: what both its own role and its creator's role (at creation) allow */
export class LimitedRole implements Permission {
  readonly unrestricted: boolean;
  constructor(
    readonly own: Permission,
    readonly limitedBy: Permission,
  ) {
    this.unrestricted = own.unrestricted && limitedBy.unrestricted;
  }
  get names(): readonly string[] {
    return this.own.names;
  }
  cluster(action: string): ClusterGrant {
    const a = this.own.cluster(action);
    const b = this.limitedBy.cluster(action);
    if (a === 'denied' || b === 'denied') return 'denied';
    return a === 'granted' && b === 'granted' ? 'granted' : 'own-api-keys';
  }
  index(action: string, name: string): boolean {
    return this.own.index(action, name) && this.limitedBy.index(action, name);
  }
  anyIndex(action: string): boolean {
    return this.own.anyIndex(action) && this.limitedBy.anyIndex(action);
  }
  runAs(): boolean {
    return false;
  }
  clusterCovers(privilege: ActionPattern): boolean {
    return this.own.clusterCovers(privilege) && this.limitedBy.clusterCovers(privilege);
  }
  indexCovers(name: string, privilege: ActionPattern): boolean {
    return this.own.indexCovers(name, privilege) && this.limitedBy.indexCovers(name, privilege);
  }
  applicationCovers(application: string, privilege: string, resource: string): boolean {
    return this.own.applicationCovers(application, privilege, resource) && this.limitedBy.applicationCovers(application, privilege, resource);
  }
}
