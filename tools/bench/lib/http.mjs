// Minimal keep-alive HTTP/JSON client on node:http (no dependencies, low overhead).
import http from 'node:http';

export class HttpError extends Error {
  constructor(message, status, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

/** headers: extra headers sent with every request (e.g. an Authorization of a secured service) */
export function createClient(baseUrl, { maxSockets = 8, headers: extraHeaders = {} } = {}) {
  const url = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const auth = url.username ? 'Basic ' + Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64') : undefined;

  /**
   * Sends one request; resolves { status, text, json (lazy), ms } where ms is the wall time from the call
   * until the whole response body arrived (JSON parsing excluded). Never rejects on HTTP status; rejects
   * on network errors and timeouts.
   */
  function request(method, path, body, { contentType, timeoutMs = 600_000 } = {}) {
    let payload;
    if (body === undefined || body === null) payload = undefined;
    else if (typeof body === 'string' || Buffer.isBuffer(body)) payload = body;
    else payload = JSON.stringify(body);
    const headers = { accept: 'application/json', ...extraHeaders };
    if (auth) headers.authorization = auth;
    if (payload !== undefined) {
      headers['content-type'] = contentType ?? 'application/json';
      headers['content-length'] = Buffer.byteLength(payload);
    }
    return new Promise((resolve, reject) => {
      const t0 = process.hrtime.bigint();
      const req = http.request(
        { host: url.hostname, port: url.port || 80, method, path, headers, agent },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const ms = Number(process.hrtime.bigint() - t0) / 1e6;
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed;
            resolve({
              status: res.statusCode,
              headers: res.headers,
              text,
              ms,
              get json() {
                if (parsed === undefined) {
                  try { parsed = text.length ? JSON.parse(text) : null; } catch { parsed = null; }
                }
                return parsed;
              },
            });
          });
        },
      );
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`timeout after ${timeoutMs} ms: ${method} ${path}`)));
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  /** Like request(), but throws HttpError unless the status is 2xx; returns the parsed JSON body. */
  async function ok(method, path, body, opts) {
    const res = await request(method, path, body, opts);
    if (res.status < 200 || res.status > 299) {
      throw new HttpError(`${method} ${path} -> HTTP ${res.status}: ${res.text.slice(0, 600)}`, res.status, res.text);
    }
    return res.json;
  }

  return { baseUrl: url.origin, request, ok, close: () => agent.destroy() };
}
