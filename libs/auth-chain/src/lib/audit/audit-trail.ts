/**
 * The audit log (`xpack.security.audit.enabled: true`): authentication and access decisions as JSON lines in
 * `<path.logs>/<cluster.name>_audit.json` (`path.logs` defaults to `<path.data>/logs`), with Elasticsearch's
 * LoggingAuditTrail field names. Events are filtered by `xpack.security.audit.logfile.events.include` /
 * `.exclude` (default: everything except authentication_success). Never contains a secret.
 */
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { join, resolve } from 'node:path';
import { inject, injectable, optional } from 'inversify';
import { DateFormatter, Tokens, type Clock, type LifecycleComponent, type RestRequest } from '@strata/core-common';
import type { Authentication } from '../authc/authentication.js';
import { SecurityConfig } from '../security-config.js';

export const AUDIT_EVENTS = [
  'access_denied',
  'access_granted',
  'anonymous_access_denied',
  'authentication_failed',
  'authentication_success',
  'realm_authentication_failed',
  'connection_denied',
  'connection_granted',
  'tampered_request',
  'run_as_denied',
  'run_as_granted',
  'security_config_change',
] as const;
export type AuditEvent = (typeof AUDIT_EVENTS)[number];

const DEFAULT_INCLUDE: readonly AuditEvent[] = [
  'access_denied',
  'access_granted',
  'anonymous_access_denied',
  'authentication_failed',
  'connection_denied',
  'tampered_request',
  'run_as_denied',
  'run_as_granted',
  'security_config_change',
];

function eventList(key: string, raw: unknown): AuditEvent[] | undefined {
  if (raw === undefined) return undefined;
  const list = (Array.isArray(raw) ? raw.map(String) : String(raw).split(',')).map((s) => s.trim().toLowerCase()).filter(Boolean);
  if (list.includes('_all')) return [...AUDIT_EVENTS];
  for (const e of list) {
    if (!(AUDIT_EVENTS as readonly string[]).includes(e)) throw new Error(`invalid event name specified [${e}] for setting [${key}]`);
  }
  return list as AuditEvent[];
}

function timestamp(ms: number): string {
  return DateFormatter.of("yyyy-MM-dd'T'HH:mm:ss,SSSX").format(ms);
}

@injectable()
export class AuditTrail implements LifecycleComponent {
  readonly name = 'security-audit';
  readonly enabled: boolean;
  private readonly events: ReadonlySet<AuditEvent>;
  private out?: WriteStream;
  readonly file: string;

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(Tokens.Clock) @optional() private readonly clock?: Clock,
  ) {
    this.enabled = config.auditEnabled;
    const s = config.settings;
    const include = eventList('xpack.security.audit.logfile.events.include', s['xpack.security.audit.logfile.events.include']) ?? DEFAULT_INCLUDE;
    const exclude = eventList('xpack.security.audit.logfile.events.exclude', s['xpack.security.audit.logfile.events.exclude']) ?? [];
    this.events = new Set(include.filter((e) => !exclude.includes(e)));
    const logs = String(s['path.logs'] || join(config.dataPath, 'logs'));
    this.file = resolve(logs, `${String(s['cluster.name'] ?? 'strata')}_audit.json`);
  }

  start(): void {
    if (!this.enabled) return;
    mkdirSync(resolve(this.file, '..'), { recursive: true });
    this.out = createWriteStream(this.file, { flags: 'a' });
  }

  async stop(): Promise<void> {
    const out = this.out;
    this.out = undefined;
    if (out) await new Promise<void>((r) => out.end(() => r()));
  }

  private on(e: AuditEvent): boolean {
    return this.enabled && this.out !== undefined && this.events.has(e);
  }

  private write(e: AuditEvent, fields: Record<string, unknown>): void {
    const rec: Record<string, unknown> = {
      type: 'audit',
      timestamp: timestamp(this.clock?.now() ?? Date.now()),
      'node.name': this.config.nodeName,
      'event.type': 'rest',
      'event.action': e,
      ...fields,
    };
    this.out!.write(JSON.stringify(rec) + '\n');
  }

  private restFields(req: RestRequest): Record<string, unknown> {
    const q = (req.uri ?? req.path).indexOf('?');
    const f: Record<string, unknown> = { 'origin.type': 'rest' };
    if (req.remoteAddress) f['origin.address'] = req.remoteAddress;
    f['url.path'] = req.path;
    if (q >= 0) f['url.query'] = (req.uri ?? '').slice(q + 1);
    f['request.method'] = req.method;
    const opaque = req.headers['x-opaque-id'];
    if (opaque) f['opaque_id'] = opaque;
    return f;
  }

  private userFields(a: Authentication): Record<string, unknown> {
    const f: Record<string, unknown> = {
      'authentication.type': a.authenticationType.toUpperCase(),
      'user.name': a.runBy ? a.runBy.username : a.username,
      'user.realm': a.runBy ? a.runBy.realm.name : (a.lookupRealm ?? a.realm).name,
    };
    if (a.runBy) {
      f['user.run_as.name'] = a.username;
      f['user.run_as.realm'] = (a.lookupRealm ?? a.realm).name;
    }
    if (!a.apiKey && !a.serviceAccountRole) f['user.roles'] = a.runBy ? a.runBy.roles : a.roles;
    if (a.apiKey) {
      f['apikey.id'] = a.apiKey.id;
      if (a.apiKey.name !== null) f['apikey.name'] = a.apiKey.name;
    }
    if (a.token) f['authentication.token.name'] = a.token.name;
    return f;
  }

  authenticationSuccess(a: Authentication, req: RestRequest): void {
    if (!this.on('authentication_success')) return;
    this.write('authentication_success', { ...this.userFields(a), ...this.restFields(req) });
  }

  /** a failed authentication; `principal` is the user name a Basic credential claimed, if any */
  authenticationFailed(req: RestRequest, principal?: string): void {
    if (!this.on('authentication_failed')) return;
    this.write('authentication_failed', { ...(principal !== undefined ? { 'user.name': principal } : {}), ...this.restFields(req) });
  }

  anonymousAccessDenied(req: RestRequest): void {
    if (!this.on('anonymous_access_denied')) return;
    this.write('anonymous_access_denied', this.restFields(req));
  }

  accessGranted(a: Authentication, action: string, req: RestRequest): void {
    if (!this.on('access_granted')) return;
    this.write('access_granted', { ...this.userFields(a), ...this.restFields(req), action, ...this.indices(req) });
  }

  runAsGranted(a: Authentication, action: string, req: RestRequest): void {
    if (!this.on('run_as_granted')) return;
    this.write('run_as_granted', { ...this.userFields(a), ...this.restFields(req), action, ...this.indices(req) });
  }

  /** `a` (the authenticated user) may not act as `target` */
  runAsDenied(a: Authentication, target: string, action: string, req: RestRequest): void {
    if (!this.on('run_as_denied')) return;
    this.write('run_as_denied', { ...this.userFields(a), 'user.run_as.name': target, ...this.restFields(req), action, ...this.indices(req) });
  }

  accessDenied(a: Authentication, action: string, req: RestRequest): void {
    if (!this.on('access_denied')) return;
    this.write('access_denied', { ...this.userFields(a), ...this.restFields(req), action, ...this.indices(req) });
  }

  /** a change of users, roles, role mappings, API keys or service tokens (never the secrets themselves) */
  securityConfigChange(a: Authentication | undefined, change: string, details: Record<string, unknown>, req?: RestRequest): void {
    if (!this.on('security_config_change')) return;
    this.write('security_config_change', {
      ...(a ? this.userFields(a) : {}),
      ...(req ? this.restFields(req) : {}),
      'event.type': 'security_config_change',
      [change]: details,
    });
  }

  private indices(req: RestRequest): Record<string, unknown> {
    const param = req.route.targets ?? 'index';
    const v = req.optionalPathParam(param);
    return v ? { indices: v.split(',') } : {};
  }
}
