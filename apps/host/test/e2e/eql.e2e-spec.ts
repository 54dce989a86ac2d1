/**
 * EQL on the full host: the official client's eql API (search, async get / status / delete), data streams
 * as targets, runtime_mappings, ownership of stored searches and index privileges with security on, and
 * remote clusters (`<cluster>:<target>`) forwarded over HTTP with the same-version check.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@elastic/elasticsearch';
import { hasher } from '@strata/auth-chain';
import { ELASTIC_AUTH, http, startE2eHost, type E2eHost } from './helpers.js';

const json = (body: unknown, headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 10, 0, s)).toISOString();
const events = [
  { '@timestamp': t(0), host: { id: 'a' }, event: { category: 'process' }, process: { name: 'cmd.exe' } },
  { '@timestamp': t(10), host: { id: 'a' }, event: { category: 'network' }, destination: { port: 443 } },
  { '@timestamp': t(20), host: { id: 'b' }, event: { category: 'process' }, process: { name: 'cmd.exe' } },
  { '@timestamp': t(90), host: { id: 'b' }, event: { category: 'network' }, destination: { port: 443 } },
];

async function load(host: E2eHost, index: string, op: 'index' | 'create' = 'index', headers: Record<string, string> = {}): Promise<void> {
  const lines = events.flatMap((e) => [JSON.stringify({ [op]: { _index: index } }), JSON.stringify(e)]).join('\n') + '\n';
  const r = await http(`${host.url}/_bulk?refresh=true`, { method: 'POST', headers: { 'Content-Type': 'application/x-ndjson', ...headers }, body: lines });
  expect(r.status).toBe(200);
  expect(r.json.errors).toBe(false);
}

describe('EQL on the full host', () => {
  let host: E2eHost;
  let client: Client;

  beforeAll(async () => {
    host = await startE2eHost();
    client = new Client({ node: host.url });
    await load(host, 'events');
  });
  afterAll(async () => {
    await client?.close();
    await host?.close();
  });

  it('the official client: search, then async get / status / delete', async () => {
    const r = await client.eql.search({ index: 'events', query: 'sequence by host.id with maxspan=30s [process where process.name == "cmd.exe"] [network where true]' });
    expect(r.hits.total).toEqual({ value: 1, relation: 'eq' });
    expect(r.hits.sequences?.[0]?.join_keys).toEqual(['a']);
    const submitted = await client.eql.search({ index: 'events', query: 'network where destination.port == 443', wait_for_completion_timeout: '0ms', keep_on_completion: true });
    const id = submitted.id!;
    expect(typeof id).toBe('string');
    const got = await client.eql.get({ id, wait_for_completion_timeout: '10s' });
    expect(got.is_running).toBe(false);
    expect(got.hits.events?.map((e) => (e._source as { host: { id: string } }).host.id)).toEqual(['a', 'b']);
    const status = await client.eql.getStatus({ id });
    expect(status).toMatchObject({ id, is_running: false, is_partial: false, completion_status: 200 });
    expect((await client.eql.delete({ id })).acknowledged).toBe(true);
    await expect(client.eql.get({ id })).rejects.toMatchObject({ meta: { statusCode: 404 } });
  });

  it('searches a data stream through the index-name resolver', async () => {
    const tpl = await http(`${host.url}/_index_template/eql-ds`, {
      ...json({ index_patterns: ['logs-eql*'], data_stream: {}, template: { mappings: { properties: { host: { properties: { id: { type: 'keyword' } } } } } } }),
      method: 'PUT',
    });
    expect(tpl.status).toBe(200);
    await load(host, 'logs-eql', 'create');
    const r = await http(`${host.url}/logs-eql/_eql/search`, json({ query: 'sequence by host.id [process where true] [network where true]' }));
    expect(r.status).toBe(200);
    expect(r.json.hits.total.value).toBe(2);
    expect(r.json.hits.sequences[0].events[0]._index).toMatch(/^\.ds-logs-eql-/);
  });

  it('runtime_mappings define fields for the query and the returned fields', async () => {
    const r = await http(
      `${host.url}/events/_eql/search`,
      json({
        query: 'any where port_class == "tls"',
        runtime_mappings: { port_class: { type: 'keyword', script: { source: "if (doc['destination.port'].size() > 0 && doc['destination.port'].value == 443) emit('tls')" } } },
        fields: ['port_class'],
      }),
    );
    expect(r.status).toBe(200);
    expect(r.json.hits.events.map((e: { fields: unknown }) => e.fields)).toEqual([{ port_class: ['tls'] }, { port_class: ['tls'] }]);
  });
});

describe('EQL with security on', () => {
  let host: E2eHost;
  let conf: string;
  const basic = (u: string, p: string) => ({ Authorization: 'Basic ' + Buffer.from(`${u}:${p}`).toString('base64') });

  beforeAll(async () => {
    conf = mkdtempSync(join(tmpdir(), 'strata-eql-conf-'));
    const h = hasher('pbkdf2_1000');
    writeFileSync(join(conf, 'users'), `alice:${await h.hash('alice-password')}\nbob:${await h.hash('bob-password')}\ncarol:${await h.hash('carol-password')}\n`);
    writeFileSync(join(conf, 'users_roles'), 'events_reader:alice,bob\n');
    writeFileSync(join(conf, 'roles.yml'), 'events_reader:\n  indices:\n    - names: ["events"]\n      privileges: [read]\n');
    host = await startE2eHost({ 'xpack.security.enabled': true }, undefined, conf);
    await load(host, 'events', 'index', ELASTIC_AUTH);
  });
  afterAll(async () => {
    await host?.close();
    rmSync(conf, { recursive: true, force: true });
  });

  it('needs the read privilege on the target, and a stored search is only its owner’s', async () => {
    const denied = await http(`${host.url}/events/_eql/search`, json({ query: 'any where true' }, basic('carol', 'carol-password')));
    expect(denied.status).toBe(403);
    expect(denied.json.error.type).toBe('security_exception');
    const r = await http(`${host.url}/events/_eql/search?keep_on_completion=true`, json({ query: 'any where true' }, basic('alice', 'alice-password')));
    expect(r.status).toBe(200);
    const id = r.json.id as string;
    expect((await http(`${host.url}/_eql/search/${id}`, { headers: basic('alice', 'alice-password') })).status).toBe(200);
    expect((await http(`${host.url}/_eql/search/${id}`, { headers: basic('bob', 'bob-password') })).status).toBe(404);
    expect((await http(`${host.url}/_eql/search/status/${id}`, { headers: basic('bob', 'bob-password') })).status).toBe(404);
    expect((await http(`${host.url}/_eql/search/${id}`, { method: 'DELETE', headers: basic('bob', 'bob-password') })).status).toBe(404);
    expect((await http(`${host.url}/_eql/search/${id}`, { method: 'DELETE', headers: basic('alice', 'alice-password') })).status).toBe(200);
  });
});

describe('EQL across clusters', () => {
  let local: E2eHost;
  let remote: E2eHost;
  let old: Server;

  beforeAll(async () => {
    remote = await startE2eHost();
    await load(remote, 'events');
    local = await startE2eHost();
    old = createServer((_req, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ name: 'old', version: { number: '7.17.0' }, tagline: 'You Know, for Search' }));
    });
    await new Promise<void>((r) => old.listen(0, '127.0.0.1', r));
    const oldPort = (old.address() as AddressInfo).port;
    const s = await http(`${local.url}/_cluster/settings`, {
      ...json({ persistent: { 'cluster.remote.other.seeds': [new URL(remote.url).host], 'cluster.remote.old.seeds': [`127.0.0.1:${oldPort}`] } }),
      method: 'PUT',
    });
    expect(s.status).toBe(200);
  });
  afterAll(async () => {
    await local?.close();
    await remote?.close();
    await new Promise((r) => old?.close(r));
  });

  it('forwards <cluster>:<target> to the remote node and qualifies the events', async () => {
    const r = await http(`${local.url}/other:events/_eql/search`, json({ query: 'sequence by host.id [process where true] [network where true]' }));
    expect(r.status).toBe(200);
    expect(r.json.hits.total.value).toBe(2);
    expect(r.json.hits.sequences[0].events.map((e: { _index: string }) => e._index)).toEqual(['other:events', 'other:events']);
  });

  it('refuses a remote cluster on another version, and an unknown one', async () => {
    const r = await http(`${local.url}/old:events/_eql/search`, json({ query: 'any where true' }));
    expect(r.status).toBe(400);
    expect(r.json.error.type).toBe('verification_exception');
    expect(r.json.error.reason).toContain("the following remote cluster is incompatible, being on a version different than local cluster's [8.17.0]: [old]");
    const u = await http(`${local.url}/nope:events/_eql/search`, json({ query: 'any where true' }));
    expect(u.status).toBe(404);
    expect(u.json.error.type).toBe('no_such_remote_cluster_exception');
  });
});
