import { existsSync } from 'node:fs';
import { createTestHost, encodeBody } from './test-host.js';
import { ManualClock, SequentialIdGenerator } from './test-doubles.js';
import { Tokens, type Clock, type IdGenerator } from '@strata/core-common';

describe('createTestHost', () => {
  it('serves the node on a free port with a temp dir removed on close', async () => {
    const clock = new ManualClock(1000);
    const host = await createTestHost({ clock, ids: new SequentialIdGenerator() });
    expect(existsSync(host.dataPath)).toBe(true);
    const r = await host.request('GET', '/');
    expect(r.status).toBe(200);
    expect(r.headers['x-elastic-product']).toBe('Elasticsearch');
    expect(r.body.tagline).toBe('You Know, for Search');
    expect(host.container.get<Clock>(Tokens.Clock).now()).toBe(1000);
    clock.advance(5);
    expect(host.container.get<Clock>(Tokens.Clock).now()).toBe(1005);
    expect(host.container.get<IdGenerator>(Tokens.IdGenerator).next()).toBe('id-1');
    const bad = await host.request('PUT', '/_cluster/settings', '{bad');
    expect(bad.status).toBe(400);
    expect(bad.body.error.type).toBe('x_content_parse_exception');
    await host.close();
    expect(existsSync(host.dataPath)).toBe(false);
  });

  it('encodes bodies: objects as JSON, arrays of objects as NDJSON', () => {
    const h1: Record<string, string> = {};
    expect(encodeBody({ a: 1 }, h1)).toBe('{"a":1}');
    expect(h1['Content-Type']).toBe('application/json');
    const h2: Record<string, string> = {};
    expect(encodeBody([{ index: {} }, { a: 1 }], h2)).toBe('{"index":{}}\n{"a":1}\n');
    expect(h2['Content-Type']).toBe('application/x-ndjson');
    const h3: Record<string, string> = { 'content-type': 'text/plain' };
    expect(encodeBody('x', h3)).toBe('x');
    expect(h3['Content-Type']).toBeUndefined();
  });
});
