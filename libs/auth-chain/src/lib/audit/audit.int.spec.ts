/** The audit log: JSON lines of authentication and access decisions, filtered by the include/exclude settings. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestHost } from '@strata/core-testing';
import { authChainFeature } from '../auth-chain.module.js';

const basic = (user: string, pw: string) => ({ Authorization: 'Basic ' + Buffer.from(`${user}:${pw}`).toString('base64') });

describe('audit log', () => {
  it('records authentication and access decisions as JSON lines, without secrets', async () => {
    const logs = mkdtempSync(join(tmpdir(), 'strata-audit-'));
    try {
      const host = await createTestHost({
        features: [authChainFeature],
        settings: {
          'xpack.security.enabled': true,
          'bootstrap.password': 'audit-elastic-pw',
          'xpack.security.audit.enabled': true,
          'xpack.security.audit.logfile.events.include': 'access_denied,access_granted,anonymous_access_denied,authentication_failed,security_config_change,run_as_granted,run_as_denied',
          'path.logs': logs,
          'cluster.name': 'audited',
          'xpack.security.authc.password_hashing.algorithm': 'pbkdf2_1000',
        },
      });
      const elastic = basic('elastic', 'audit-elastic-pw');
      await host.request('GET', '/?pretty', undefined, { 'X-Opaque-Id': 'op-1' });
      await host.request('GET', '/', undefined, basic('elastic', 'not-the-password'));
      await host.request('GET', '/_cluster/health', undefined, elastic);
      await host.request('PUT', '/_security/user/viewer1', { password: 'viewer1-secret', roles: ['viewer'] }, elastic);
      await host.request('PUT', '/_cluster/settings', { persistent: {} }, basic('viewer1', 'viewer1-secret'));
      await host.request('GET', '/_security/_authenticate', undefined, { ...elastic, 'es-security-runas-user': 'viewer1' });
      await host.request('GET', '/_cluster/health', undefined, { ...basic('viewer1', 'viewer1-secret'), 'es-security-runas-user': 'elastic' });
      await host.close();

      const text = readFileSync(join(logs, 'audited_audit.json'), 'utf8');
      expect(text).not.toContain('viewer1-secret');
      expect(text).not.toContain('not-the-password');
      expect(text).not.toContain('audit-elastic-pw');
      const events = text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(events.map((e) => e['event.action'])).toEqual([
        'anonymous_access_denied',
        'authentication_failed',
        'access_granted',
        'access_granted',
        'security_config_change',
        'access_denied',
        'run_as_granted',
        'access_granted',
        'run_as_denied',
      ]);
      expect(events[0]).toMatchObject({ type: 'audit', 'origin.type': 'rest', 'url.path': '/', 'url.query': 'pretty', 'request.method': 'GET', opaque_id: 'op-1' });
      expect(events[1]).toMatchObject({ 'user.name': 'elastic', 'url.path': '/' });
      expect(events[2]).toMatchObject({ 'user.name': 'elastic', 'user.realm': 'reserved', 'user.roles': ['superuser'], action: 'cluster:monitor/health', 'authentication.type': 'REALM' });
      expect(events[4]).toMatchObject({ 'event.type': 'security_config_change', put: { user: { name: 'viewer1', roles: ['viewer'] } } });
      expect(events[5]).toMatchObject({ 'user.name': 'viewer1', action: 'cluster:admin/settings/update' });
      const runAs = { 'user.name': 'elastic', 'user.realm': 'reserved', 'user.roles': ['superuser'], 'user.run_as.name': 'viewer1', 'user.run_as.realm': 'default_native' };
      expect(events[6]).toMatchObject({ ...runAs, action: 'cluster:admin/xpack/security/user/authenticate' });
      expect(events[7]).toMatchObject({ ...runAs, action: 'cluster:admin/xpack/security/user/authenticate' });
      expect(events[8]).toMatchObject({ 'user.name': 'viewer1', 'user.run_as.name': 'elastic', action: 'cluster:monitor/health' });
      for (const e of events) expect(typeof e['timestamp']).toBe('string');
    } finally {
      rmSync(logs, { recursive: true, force: true });
    }
  });
});
