/**
 * Document routing exactly as Elasticsearch's OperationRouting: Murmur3 (x86, 32-bit, seed 0) over the
 * UTF-16 code units of the routing value (or _id) as little-endian bytes, then
 * floorMod(hash, routingNumShards) / routingFactor.
 */
import type { IndexMetadata } from '../cluster/metadata.js';
import { murmur3x86_32 } from '../util/murmur3.js';

/** Murmur3HashFunction.hash(String): murmurhash3_x86_32 of the string's UTF-16LE bytes, seed 0. Signed int32. */
export function murmur3HashString(s: string): number {
  return murmur3x86_32(Buffer.from(s, 'utf16le'), 0);
}

/** IndexMetadata.calculateNumRoutingShards for indices created on/after 7.0. */
export function defaultNumRoutingShards(numShards: number): number {
  if (numShards <= 0) return 1;
  const log2NumShards = 32 - Math.clz32(numShards - 1);
  const numSplits = 10 - log2NumShards;
  if (numSplits < 0) return numShards;
  return Math.max(1, numShards * 2 ** numSplits);
}

export function floorMod(a: number, n: number): number {
  return ((a % n) + n) % n;
}

export function routingNumShards(meta: Pick<IndexMetadata, 'numberOfShards' | 'settings'>): number {
  const explicit = meta.settings?.['index.number_of_routing_shards'];
  if (explicit !== undefined && explicit !== null) {
    const n = Number(explicit);
    if (Number.isInteger(n) && n >= meta.numberOfShards && n % meta.numberOfShards === 0) return n;
  }
  return defaultNumRoutingShards(meta.numberOfShards);
}

/** Shard id for a routing value (the `_routing`, or else the `_id`), plus ES's partition offset. */
export function shardIdFor(
  routing: string,
  numberOfShards: number,
  numRoutingShards = defaultNumRoutingShards(numberOfShards),
  partitionOffset = 0,
): number {
  if (numberOfShards === 1) return 0;
  const factor = numRoutingShards / numberOfShards;
  const hash = (murmur3HashString(routing) + partitionOffset) | 0;
  return Math.floor(floorMod(hash, numRoutingShards) / factor);
}

export function shardIdForDoc(meta: Pick<IndexMetadata, 'numberOfShards' | 'settings'>, id: string, routing?: string): number {
  if (routing === undefined || routing === null) return shardIdFor(id, meta.numberOfShards, routingNumShards(meta));
  // index.routing_partition_size > 1: a routing value spreads over a partition of shards, picked by the _id
  const partitionSize = Number(meta.settings?.['index.routing_partition_size'] ?? 1);
  const offset = partitionSize > 1 ? floorMod(murmur3HashString(id), partitionSize) : 0;
  return shardIdFor(routing, meta.numberOfShards, routingNumShards(meta), offset);
}
