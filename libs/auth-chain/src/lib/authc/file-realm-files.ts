/**
 * The file-backed security files in the configuration directory, as Elasticsearch lays them out:
 * - `users`: `username:hash` lines (bcrypt or PBKDF2 hashes), the file realm's users;
 * - `users_roles`: `role:user1,user2` lines;
 * - `roles.yml`: role descriptors by name (file roles, used by every realm);
 * - `service_tokens`: `namespace/service/token:hash` lines, written by the `service-tokens` tool.
 * Read at start and re-read when a file changes (polled every 5 s, like ES's resource watcher).
 */
import { readFileSync, statSync, unwatchFile, watchFile } from 'node:fs';
import { join } from 'node:path';
import { inject, injectable, optional } from 'inversify';
import { Tokens, type LifecycleComponent, type Logger } from '@strata/core-common';
import { isKnownHash } from '../crypto/hasher.js';
import { parseRoleDescriptor, validateRolePrivileges, type RoleDescriptor } from '../authz/role-descriptor.js';
import { SecurityConfig } from '../security-config.js';

export const FILE_NAMES = { users: 'users', usersRoles: 'users_roles', roles: 'roles.yml', serviceTokens: 'service_tokens' } as const;

/** `user:hash` / `elastic/fleet-server/token:hash` lines (comments `#` and blank lines skipped) */
export function parseHashLines(text: string, onInvalid: (line: number, reason: string) => void, keyPattern: RegExp): Map<string, string> {
  const out = new Map<string, string>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const colon = line.indexOf(':');
    if (colon <= 0) return onInvalid(i + 1, 'missing [:] separator');
    const key = line.slice(0, colon);
    const hash = line.slice(colon + 1);
    if (!keyPattern.test(key)) return onInvalid(i + 1, `invalid name [${key}]`);
    if (!isKnownHash(hash)) return onInvalid(i + 1, 'unknown hash format');
    out.set(key, hash);
  });
  return out;
}

/** `role:user1,user2` lines → user → roles */
export function parseUsersRoles(text: string, onInvalid: (line: number, reason: string) => void): Map<string, string[]> {
  const out = new Map<string, string[]>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const colon = line.indexOf(':');
    if (colon <= 0) return onInvalid(i + 1, 'missing [:] separator');
    const role = line.slice(0, colon).trim();
    for (const u of line.slice(colon + 1).split(',').map((s) => s.trim()).filter(Boolean)) {
      const list = out.get(u) ?? [];
      if (!list.includes(role)) list.push(role);
      out.set(u, list);
    }
  });
  return out;
}

export const USERNAME_PATTERN = /^[\p{L}\p{N}\p{P}\p{S} ]{1,507}$/u;
export const SERVICE_TOKEN_KEY_PATTERN = /^[a-z0-9_.-]+\/[a-z0-9_.-]+\/[a-zA-Z0-9_-]{1,256}$/;

function readOptional(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

@injectable()
export class FileRealmFiles implements LifecycleComponent {
  readonly name = 'security-files';
  private usersMap = new Map<string, string>();
  private rolesByUser = new Map<string, string[]>();
  private fileRoles = new Map<string, RoleDescriptor>();
  private tokens = new Map<string, string>();
  private watched: string[] = [];
  private readonly listeners: Array<() => void> = [];
  private yaml?: typeof import('yaml');

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(Tokens.Logger) @optional() private readonly logger?: Logger,
  ) {}

  users(): ReadonlyMap<string, string> {
    return this.usersMap;
  }

  rolesOf(username: string): string[] {
    return [...(this.rolesByUser.get(username) ?? [])];
  }

  roles(): ReadonlyMap<string, RoleDescriptor> {
    return this.fileRoles;
  }

  serviceTokens(): ReadonlyMap<string, string> {
    return this.tokens;
  }

  /** called after a file changed (caches of authentications and roles drop their entries) */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  private path(name: string): string {
    return join(this.config.configDir, name);
  }

  private warn(file: string) {
    return (line: number, reason: string) => this.logger?.warn({ file, line }, `invalid entry in [${file}] at line [${line}]: ${reason}; skipping`);
  }

  /** (re)reads every file; a broken file keeps its previous content */
  reload(): void {
    const usersFile = this.path(FILE_NAMES.users);
    const users = readOptional(usersFile);
    this.usersMap = users === undefined ? new Map() : parseHashLines(users, this.warn(usersFile), USERNAME_PATTERN);
    const urFile = this.path(FILE_NAMES.usersRoles);
    const ur = readOptional(urFile);
    this.rolesByUser = ur === undefined ? new Map() : parseUsersRoles(ur, this.warn(urFile));
    const tokFile = this.path(FILE_NAMES.serviceTokens);
    const tok = readOptional(tokFile);
    this.tokens = tok === undefined ? new Map() : parseHashLines(tok, this.warn(tokFile), SERVICE_TOKEN_KEY_PATTERN);
    this.fileRoles = this.readRoles();
    for (const l of this.listeners) l();
  }

  private readRoles(): Map<string, RoleDescriptor> {
    const file = this.path(FILE_NAMES.roles);
    const text = readOptional(file);
    const out = new Map<string, RoleDescriptor>();
    if (text === undefined || !this.yaml) return out;
    let doc: unknown;
    try {
      doc = this.yaml.parse(text);
    } catch (e) {
      this.logger?.warn({ file, err: String(e) }, 'failed to parse roles file; no file roles loaded');
      return this.fileRoles;
    }
    if (doc === null || doc === undefined) return out;
    if (typeof doc !== 'object' || Array.isArray(doc)) {
      this.logger?.warn({ file }, 'roles file must hold an object of roles; no file roles loaded');
      return out;
    }
    for (const [name, body] of Object.entries(doc as Record<string, unknown>)) {
      try {
        const rd = parseRoleDescriptor(name, body);
        const errors = validateRolePrivileges(rd);
        if (errors.length) throw new Error(errors.join('; '));
        out.set(name, rd);
      } catch (e) {
        this.logger?.warn({ file, role: name, err: e instanceof Error ? e.message : String(e) }, `invalid role definition [${name}] in roles file; skipping it`);
      }
    }
    return out;
  }

  async start(): Promise<void> {
    if (!this.config.enabled) return;
    if (this.hasFile(FILE_NAMES.roles)) this.yaml = await import('yaml');
    this.reload();
    for (const name of Object.values(FILE_NAMES)) {
      const file = this.path(name);
      watchFile(file, { interval: 5000, persistent: false }, (curr, prev) => {
        // Node reports a file missing at the start once (all fields zero): nothing changed
        if (curr.mtimeMs === prev.mtimeMs && curr.ino === prev.ino && curr.size === prev.size) return;
        void this.onFileChange(name);
      });
      this.watched.push(file);
    }
  }

  private hasFile(name: string): boolean {
    try {
      return statSync(this.path(name)).isFile();
    } catch {
      return false;
    }
  }

  private async onFileChange(name: string): Promise<void> {
    if (name === FILE_NAMES.roles && !this.yaml) this.yaml = await import('yaml');
    this.logger?.info({ file: this.path(name) }, 'security file changed; reloading');
    this.reload();
  }

  stop(): void {
    for (const f of this.watched) unwatchFile(f);
    this.watched = [];
  }
}
