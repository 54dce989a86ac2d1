/**
 * Deep copy of shard results for the request cache, with a byte-size estimate computed in the same pass.
 *
 * Why not structuredClone / v8.serialize: objects they create belong to the main realm, and class instances
 * lose their prototype. This copy keeps prototypes (plain data stays plain, result classes keep their
 * methods), handles typed arrays, Map, Set, Date, bigint and cycles, and rejects functions and symbols
 * (such values are not cacheable).
 */

export class NotCopyableError extends Error {}

const OBJECT_BYTES = 32;
const SLOT_BYTES = 8;

export interface CopyResult<T> {
  value: T;
  bytes: number;
}

/** Copies v; throws NotCopyableError for functions, symbols, promises, weak collections. */
export function copyWithSize<T>(v: T): CopyResult<T> {
  const acc = { bytes: 0 };
  const value = copy(v, acc, new Map()) as T;
  return { value, bytes: acc.bytes };
}

/** Copies v (see copyWithSize). */
export function deepCopy<T>(v: T): T {
  return copy(v, { bytes: 0 }, new Map()) as T;
}

function copy(v: unknown, acc: { bytes: number }, seen: Map<object, unknown>): unknown {
  switch (typeof v) {
    case 'string':
      acc.bytes += 16 + v.length * 2;
      return v;
    case 'number':
    case 'boolean':
    case 'undefined':
      acc.bytes += SLOT_BYTES;
      return v;
    case 'bigint':
      acc.bytes += 16;
      return v;
    case 'function':
    case 'symbol':
      throw new NotCopyableError(`cannot cache a ${typeof v}`);
  }
  if (v === null) {
    acc.bytes += SLOT_BYTES;
    return v;
  }
  const o = v as object;
  const prior = seen.get(o);
  if (prior !== undefined) {
    acc.bytes += SLOT_BYTES;
    return prior;
  }
  if (Array.isArray(o)) {
    const out: unknown[] = new Array(o.length);
    seen.set(o, out);
    acc.bytes += OBJECT_BYTES;
    for (let i = 0; i < o.length; i++) out[i] = copy(o[i], acc, seen);
    return out;
  }
  if (ArrayBuffer.isView(o)) {
    acc.bytes += OBJECT_BYTES + o.byteLength;
    // slice() copies into a new buffer of the same typed array class
    const out = o instanceof DataView ? new DataView(o.buffer.slice(o.byteOffset, o.byteOffset + o.byteLength)) : (o as unknown as { slice(): unknown }).slice();
    seen.set(o, out);
    return out;
  }
  if (o instanceof ArrayBuffer) {
    acc.bytes += OBJECT_BYTES + o.byteLength;
    const out = o.slice(0);
    seen.set(o, out);
    return out;
  }
  if (o instanceof Date) {
    acc.bytes += OBJECT_BYTES;
    const out = new Date(o.getTime());
    seen.set(o, out);
    return out;
  }
  if (o instanceof Map) {
    const out = new Map();
    seen.set(o, out);
    acc.bytes += OBJECT_BYTES;
    for (const [k, x] of o) out.set(copy(k, acc, seen), copy(x, acc, seen));
    return out;
  }
  if (o instanceof Set) {
    const out = new Set();
    seen.set(o, out);
    acc.bytes += OBJECT_BYTES;
    for (const x of o) out.add(copy(x, acc, seen));
    return out;
  }
  if (o instanceof Promise || o instanceof WeakMap || o instanceof WeakSet || o instanceof RegExp) {
    throw new NotCopyableError(`cannot cache a ${o.constructor.name}`);
  }
  const out = Object.create(Object.getPrototypeOf(o)) as Record<string, unknown>;
  seen.set(o, out);
  acc.bytes += OBJECT_BYTES;
  const src = o as Record<string, unknown>;
  for (const k of Object.keys(src)) {
    acc.bytes += 16 + k.length * 2;
    out[k] = copy(src[k], acc, seen);
  }
  return out;
}
