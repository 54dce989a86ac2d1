/**
 * HTTPS with `xpack.security.http.ssl.*` (PEM key, certificate and CA, client authentication), as
 * Elasticsearch configures it; certificates are made with openssl for the test.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@elastic/elasticsearch';
import { startServer } from '../../src/index.js';
import { ELASTIC_AUTH, ELASTIC_PASSWORD, http, startE2eHost, type E2eHost } from './helpers.js';

function openssl(dir: string, ...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

/** a CA, a server certificate for 127.0.0.1/localhost and a client certificate, all signed by the CA */
function makeCertificates(dir: string): void {
  openssl(dir, 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=Strata Test CA');
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(dir, 'req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  openssl(dir, 'x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '2', '-extfile', 'server.ext');
  openssl(dir, 'req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'client.key', '-out', 'client.csr', '-subj', '/CN=client');
  openssl(dir, 'x509', '-req', '-in', 'client.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'client.crt', '-days', '2');
}

function get(url: string, opts: { ca: Buffer; cert?: Buffer; key?: Buffer; headers?: Record<string, string> }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { ca: opts.ca, cert: opts.cert, key: opts.key, headers: opts.headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += String(c)));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('HTTPS (xpack.security.http.ssl)', () => {
  let conf: string;
  let ca: Buffer;
  const hosts: E2eHost[] = [];

  beforeAll(() => {
    conf = mkdtempSync(join(tmpdir(), 'strata-tls-'));
    makeCertificates(conf);
    ca = readFileSync(join(conf, 'ca.crt'));
  });
  afterAll(async () => {
    for (const h of hosts) await h.close();
    rmSync(conf, { recursive: true, force: true });
  });

  const tlsSettings = (extra: Record<string, unknown> = {}) => ({
    'xpack.security.enabled': true,
    'xpack.security.http.ssl.enabled': true,
    // absolute paths here; relative ones resolve against the configuration directory
    'xpack.security.http.ssl.key': join(conf, 'server.key'),
    'xpack.security.http.ssl.certificate': join(conf, 'server.crt'),
    'xpack.security.http.ssl.certificate_authorities': join(conf, 'ca.crt'),
    ...extra,
  });

  it('serves HTTPS only; the official client connects with the CA and basic credentials', async () => {
    const host = await startE2eHost(tlsSettings());
    hosts.push(host);
    expect(host.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const client = new Client({ node: host.url, auth: { username: 'elastic', password: ELASTIC_PASSWORD }, tls: { ca } });
    try {
      expect((await client.info()).tagline).toBe('You Know, for Search');
      expect((await client.security.authenticate()).username).toBe('elastic');
    } finally {
      await client.close();
    }
    expect((await get(`${host.url}/`, { ca })).status).toBe(401);
    // plain HTTP on the HTTPS port gets no answer
    await expect(http(host.url.replace('https:', 'http:') + '/', { headers: ELASTIC_AUTH })).rejects.toThrow();
  });

  it('requires a client certificate signed by the CA with client_authentication: required', async () => {
    const host = await startE2eHost(tlsSettings({ 'xpack.security.http.ssl.client_authentication': 'required', 'xpack.security.http.ssl.supported_protocols': 'TLSv1.2,TLSv1.3' }));
    hosts.push(host);
    await expect(get(`${host.url}/`, { ca, headers: ELASTIC_AUTH })).rejects.toThrow();
    const ok = await get(`${host.url}/`, { ca, cert: readFileSync(join(conf, 'client.crt')), key: readFileSync(join(conf, 'client.key')), headers: ELASTIC_AUTH });
    expect(ok.status).toBe(200);
  });

  it('refuses to start with a broken configuration, saying why', async () => {
    const dataPath = mkdtempSync(join(tmpdir(), 'strata-tls-data-'));
    const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
    try {
      const start = (settings: Record<string, unknown>) => startServer({ port: 0, dataPath, settings: { 'bootstrap.password': 'x'.repeat(8), ...settings }, logger: silent });
      await expect(start({ 'xpack.security.enabled': true, 'xpack.security.http.ssl.enabled': true })).rejects.toThrow(
        'invalid SSL configuration for xpack.security.http.ssl - server ssl configuration requires a key and certificate, but these have not been configured; you must set either [xpack.security.http.ssl.keystore.path], or both [xpack.security.http.ssl.key] and [xpack.security.http.ssl.certificate]',
      );
      await expect(start({ ...tlsSettings(), 'xpack.security.http.ssl.key': join(conf, 'missing.key') })).rejects.toThrow(/cannot read configured PEM private key \[.*missing\.key\] because the file does not exist/);
      await expect(start({ ...tlsSettings(), 'xpack.security.http.ssl.client_authentication': 'sometimes' })).rejects.toThrow(/unknown client auth mode \[sometimes\]/);
      await expect(start({ ...tlsSettings(), 'xpack.security.http.ssl.bogus': 1 })).rejects.toThrow(/unknown setting \[xpack\.security\.http\.ssl\.bogus\]/);
    } finally {
      rmSync(dataPath, { recursive: true, force: true });
    }
  });
});
