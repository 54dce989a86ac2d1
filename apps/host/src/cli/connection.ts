import http from 'node:http';
import https from 'node:https';

/** How the command line reaches a running node: `--url`, `--user/--password` or `--api-key`, with env fallbacks. */
export interface ConnectionOptions {
  url: string;
  /** the Authorization header value, if any */
  authorization?: string;
}

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/**
 * `--url` (else `ES_URL`, else http://127.0.0.1:9200), `--api-key` (else `ES_API_KEY`), `--user` and
 * `--password` (else `ELASTIC_PASSWORD`, for the user `elastic` unless `--user` names another).
 */
export function connectionFrom(flags: Record<string, string | boolean | undefined>, env: NodeJS.ProcessEnv = process.env): ConnectionOptions {
  const url = String(flags['url'] ?? env['ES_URL'] ?? 'http://127.0.0.1:9200').replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`invalid --url [${url}]`, 64);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new CliError(`invalid --url [${url}]: http or https only`, 64);
  const apiKey = flags['api-key'] ?? env['ES_API_KEY'];
  if (typeof apiKey === 'string' && apiKey.length > 0) {
    const encoded = apiKey.includes(':') ? Buffer.from(apiKey).toString('base64') : apiKey;
    return { url: url, authorization: `ApiKey ${encoded}` };
  }
  const password = flags['password'] ?? env['ELASTIC_PASSWORD'];
  const user = flags['user'] ?? (password !== undefined ? 'elastic' : undefined);
  if (typeof user === 'string' && typeof password !== 'string') throw new CliError('--user needs --password (or ELASTIC_PASSWORD)', 64);
  if (typeof user === 'string' && typeof password === 'string') {
    return { url, authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
  }
  return { url };
}

export interface HttpResult {
  status: number;
  body: string;
}

/** A keep-alive client for one node. */
export class NodeClient {
  private readonly agent: http.Agent;
  private readonly base: URL;
  private readonly mod: typeof http | typeof https;

  constructor(
    readonly conn: ConnectionOptions,
    maxSockets = 4,
  ) {
    this.base = new URL(conn.url);
    this.mod = this.base.protocol === 'https:' ? https : http;
    this.agent = new this.mod.Agent({ keepAlive: true, maxSockets });
  }

  request(method: string, path: string, body?: string | Buffer, contentType = 'application/json'): Promise<HttpResult> {
    const headers: Record<string, string | number> = { Accept: 'application/json' };
    if (this.conn.authorization) headers['Authorization'] = this.conn.authorization;
    if (body !== undefined) {
      headers['Content-Type'] = contentType;
      headers['Content-Length'] = Buffer.byteLength(body);
    }
    const prefix = this.base.pathname.replace(/\/+$/, '');
    return new Promise((resolve, reject) => {
      const req = this.mod.request(
        { protocol: this.base.protocol, hostname: this.base.hostname, port: this.base.port, path: prefix + path, method, headers, agent: this.agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      if (body !== undefined) req.write(body);
      req.end();
    });
  }

  async json(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const r = await this.request(method, path, body === undefined ? undefined : JSON.stringify(body));
    let parsed: unknown;
    try {
      parsed = r.body ? JSON.parse(r.body) : undefined;
    } catch {
      parsed = r.body;
    }
    return { status: r.status, body: parsed };
  }

  close(): void {
    this.agent.destroy();
  }
}

/** `{"error":{"type":..,"reason":..}}` → `type: reason` */
export function errorText(body: any): string {
  const e = body?.error;
  if (!e) return typeof body === 'string' ? body.slice(0, 300) : JSON.stringify(body).slice(0, 300);
  if (typeof e === 'string') return e;
  return `${e.type}: ${e.reason}`;
}

/** Reaching the node failed: a clear line, not a stack trace. */
export function unreachable(conn: ConnectionOptions, e: unknown): CliError {
  const code = (e as NodeJS.ErrnoException).code;
  return new CliError(`cannot reach ${conn.url}: ${code ?? (e instanceof Error ? e.message : String(e))}`, 69);
}
