import type { DirectoryReader } from '@strata/core-engine';
import { ContextRegistry } from './context-registry.js';
import { decodePitId, decodeScrollId, encodePitId, encodeScrollId } from './context-id.js';

function reader(): DirectoryReader & { refs: number } {
  const r = {
    refs: 1,
    leaves: [],
    maxDoc: 0,
    numDocs: 0,
    generation: 1,
    cacheKey: 'k',
    mappingVersion: 1,
    incRef() {
      r.refs++;
    },
    decRef() {
      r.refs--;
    },
  };
  return r;
}

describe('ContextRegistry', () => {
  it('frees readers when a context is freed, once, and tells the listener (shard search stats)', () => {
    const events: string[] = [];
    const reg = new ContextRegistry({ opened: (c) => events.push(`open ${c.kind} ${c.targets.length}`), freed: (c, ms) => events.push(`free ${c.kind} ${ms}`) });
    const r = reader();
    const ctx = reg.create('scroll', new Map([['a#0', r]]), [{ index: 'a', shardId: 0 }], 1000, 0);
    expect(reg.count('scroll')).toBe(1);
    expect(reg.free(ctx.id, 10)).toBe(true);
    expect(r.refs).toBe(0);
    expect(reg.free(ctx.id, 10)).toBe(false);
    expect(r.refs).toBe(0);
    expect(events).toEqual(['open scroll 1', 'free scroll 10']);
  });

  it('reaps expired contexts not in use, and live() treats expired as missing', () => {
    const reg = new ContextRegistry();
    const a = reg.create('pit', new Map([['a#0', reader()]]), [], 100, 0);
    const b = reg.create('scroll', new Map([['a#0', reader()]]), [], 100, 0);
    const c = reg.create('scroll', new Map(), [], 500, 0);
    b.inUse = 1;
    expect(reg.reap(150)).toBe(1);
    expect(reg.get(a.id)).toBeUndefined();
    expect(reg.get(b.id)).toBeDefined();
    b.inUse = 0;
    expect(reg.live(b.id, 150)).toBeUndefined();
    expect(reg.live(c.id, 150)).toBe(c);
    reg.extend(c, 1000, 400);
    expect(reg.live(c.id, 1300)).toBe(c);
    expect(reg.live(c.id, 1400)).toBeUndefined();
  });

  it('freeAll frees only the kind asked for', () => {
    const reg = new ContextRegistry();
    reg.create('pit', new Map(), [], 100, 0);
    reg.create('scroll', new Map(), [], 100, 0);
    reg.create('scroll', new Map(), [], 100, 0);
    expect(reg.freeAll('scroll', 1)).toBe(2);
    expect(reg.count()).toBe(1);
    expect(reg.count('pit')).toBe(1);
  });
});

describe('context ids', () => {
  it('round-trip and stay apart by kind', () => {
    const p = encodePitId(42, 'node-1');
    const s = encodeScrollId(7, 'node-1');
    expect(p).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodePitId(p)).toEqual({ kind: 'pit', contextId: 42, node: 'node-1' });
    expect(decodeScrollId(s)).toEqual({ kind: 'scroll', contextId: 7, node: 'node-1' });
    expect(() => decodeScrollId(p)).toThrow('Cannot parse scroll id');
    expect(() => decodePitId(s)).toThrow('invalid id');
    expect(() => decodeScrollId('%%%')).toThrow('Cannot parse scroll id');
  });
});
