import { murmur3HashString, defaultNumRoutingShards, shardIdFor, shardIdForDoc, floorMod } from './routing.js';

describe('routing', () => {
  it('hashes like Elasticsearch Murmur3HashFunction (known values)', () => {
    expect(murmur3HashString('hell')).toBe(0x5a0cb7c3 | 0);
    expect(murmur3HashString('hello')).toBe(0xd7c31989 | 0);
    expect(murmur3HashString('hello w')).toBe(0x22ab2984 | 0);
    expect(murmur3HashString('hello wo')).toBe(0xdf0ca123 | 0);
    expect(murmur3HashString('hello wor')).toBe(0xe7744d61 | 0);
    expect(murmur3HashString('The quick brown fox jumps over the lazy dog')).toBe(0xe07db09c | 0);
    expect(murmur3HashString('The quick brown fox jumps over the lazy cog')).toBe(0x4e63d2ad | 0);
  });

  it('computes the default number of routing shards', () => {
    expect(defaultNumRoutingShards(1)).toBe(1024);
    expect(defaultNumRoutingShards(2)).toBe(1024);
    expect(defaultNumRoutingShards(3)).toBe(768);
    expect(defaultNumRoutingShards(5)).toBe(640);
    expect(defaultNumRoutingShards(1024)).toBe(1024);
  });

  it('routes with floorMod(hash, routingShards) / factor', () => {
    expect(shardIdFor('anything', 1)).toBe(0);
    for (const id of ['a', 'b', 'doc-1', 'hello', '🌵']) {
      const h = murmur3HashString(id);
      const expected = Math.floor((((h % 640) + 640) % 640) / 128);
      expect(shardIdFor(id, 5)).toBe(expected);
    }
    // spread over shards
    const counts = [0, 0, 0];
    for (let i = 0; i < 3000; i++) counts[shardIdFor(String(i), 3)]++;
    for (const c of counts) expect(c).toBeGreaterThan(800);
  });

  it('uses routing over _id, and a partition offset with routing_partition_size', () => {
    const meta = { numberOfShards: 8, settings: {} };
    expect(shardIdForDoc(meta, 'doc1', 'user7')).toBe(shardIdFor('user7', 8));
    expect(shardIdForDoc(meta, 'doc1')).toBe(shardIdFor('doc1', 8));
    const part = { numberOfShards: 8, settings: { 'index.routing_partition_size': 3 } };
    const seen = new Set<number>();
    for (let i = 0; i < 200; i++) {
      const id = `d${i}`;
      const off = floorMod(murmur3HashString(id), 3);
      const expected = Math.floor(floorMod((murmur3HashString('user7') + off) | 0, 1024) / 128);
      expect(shardIdForDoc(part, id, 'user7')).toBe(expected);
      seen.add(expected);
    }
    expect(seen.size).toBeLessThanOrEqual(3);
  });
});
