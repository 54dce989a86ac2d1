/**
 * An API key never exceeds its creator: for random creator roles and random key role descriptors, every
 * cluster action, index action on an index name, and privilege check the key's permission grants is
 * granted to the creator too (seeded fast-check property, short run inside `npm test`).
 */
import fc from 'fast-check';
import { CLUSTER_PRIVILEGES, INDEX_PRIVILEGES, resolveClusterPrivilege, resolveIndexPrivileges } from './privileges.js';
import type { RoleDescriptor } from './role-descriptor.js';
import { LimitedRole, Role } from './role.js';

const clusterNames = [...CLUSTER_PRIVILEGES.keys()];
const indexNames = [...INDEX_PRIVILEGES.keys()];
const patterns = ['*', 'logs-*', 'logs-app', 'metrics-*', 'secret', '.ds-logs-*', 'a*', 'logs-app-2024.*'];
const names = ['logs-app', 'logs-web', 'metrics-cpu', 'secret', '.ds-logs-app-000001', 'abc', 'logs-app-2024.01.01'];

/** concrete action names: every privilege's patterns with the wildcard filled in, plus a few odd ones */
const actions = [
  ...new Set([
    ...[...CLUSTER_PRIVILEGES.values(), ...INDEX_PRIVILEGES.values()].flatMap((p) => p.pattern.includes.map((i) => i.replace(/\*/g, 'x').replace(/\[x$/, '[s]'))),
    'cluster:monitor/main',
    'cluster:admin/settings/update',
    'indices:data/write/index:op_type/index',
    'indices:data/write/index:op_type/create',
    'indices:admin/template/put',
  ]),
];

const descriptor: fc.Arbitrary<RoleDescriptor> = fc.record({
  cluster: fc.subarray(clusterNames, { maxLength: 4 }),
  indices: fc.array(fc.record({ names: fc.subarray(patterns, { minLength: 1, maxLength: 3 }), privileges: fc.subarray(indexNames, { minLength: 1, maxLength: 3 }), allow_restricted_indices: fc.boolean() }), {
    maxLength: 3,
  }),
  applications: fc.constant([]),
  run_as: fc.constant([]),
  metadata: fc.constant({}),
});

describe('an API key never exceeds its creator', () => {
  it('grants nothing its creator lacks (cluster, index, privilege checks)', () => {
    fc.assert(
      fc.property(fc.array(descriptor, { minLength: 1, maxLength: 3 }), fc.array(descriptor, { maxLength: 3 }), (creatorRds, keyRds) => {
        const creator = new Role(creatorRds.map((_, i) => `c${i}`), creatorRds);
        // no own descriptors: the key acts with its creator's (limited_by) permissions
        const own = keyRds.length === 0 ? creator : new Role(keyRds.map((_, i) => `k${i}`), keyRds);
        const key = new LimitedRole(own, creator);
        for (const a of actions) {
          if (key.cluster(a) === 'granted' && creator.cluster(a) !== 'granted') return false;
          if (key.cluster(a) !== 'denied' && creator.cluster(a) === 'denied') return false;
          if (key.anyIndex(a) && !creator.anyIndex(a)) return false;
          for (const n of names) if (key.index(a, n) && !creator.index(a, n)) return false;
        }
        for (const c of clusterNames) {
          if (key.clusterCovers(resolveClusterPrivilege(c)) && !creator.clusterCovers(resolveClusterPrivilege(c))) return false;
        }
        for (const p of indexNames) {
          for (const n of [...names, ...patterns]) {
            if (key.indexCovers(n, resolveIndexPrivileges([p])) && !creator.indexCovers(n, resolveIndexPrivileges([p]))) return false;
          }
        }
        return !key.unrestricted || creator.unrestricted;
      }),
      { seed: 13, numRuns: 40 },
    );
  });

  it('a key with its own role gets at most the intersection', () => {
    const creator = new Role(['c'], [{ cluster: ['monitor'], indices: [{ names: ['logs-*'], privileges: ['read', 'write'], allow_restricted_indices: false }], applications: [], run_as: [], metadata: {} }]);
    const own = new Role(['k'], [{ cluster: ['all'], indices: [{ names: ['*'], privileges: ['read'], allow_restricted_indices: false }], applications: [], run_as: [], metadata: {} }]);
    const key = new LimitedRole(own, creator);
    expect(key.cluster('cluster:monitor/health')).toBe('granted');
    expect(key.cluster('cluster:admin/settings/update')).toBe('denied');
    expect(key.index('indices:data/read/search', 'logs-app')).toBe(true);
    expect(key.index('indices:data/write/index', 'logs-app')).toBe(false);
    expect(key.index('indices:data/read/search', 'secret')).toBe(false);
  });
});
