// Deterministic pseudo-random numbers for the benchmark data generator.
// sfc32 (128-bit state) seeded through splitmix32: fast, good enough statistically, and identical on
// every platform because it only uses 32-bit integer arithmetic.

function splitmix32(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** Returns an object with `next()` (float in [0,1)), `int(n)` (integer in [0,n)) and `normal()`. */
export function createRng(seed) {
  const sm = splitmix32(typeof seed === 'number' ? seed : hashString(String(seed)));
  let a = sm(), b = sm(), c = sm(), d = sm();
  const u32 = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 12; i++) u32();
  const next = () => u32() / 4294967296;
  let spare = NaN;
  return {
    u32,
    next,
    int: (n) => Math.floor(next() * n),
    /** Standard normal variate (Box-Muller, caches the second value). */
    normal() {
      if (!Number.isNaN(spare)) {
        const v = spare;
        spare = NaN;
        return v;
      }
      let u = 0;
      while (u === 0) u = next();
      const v = next();
      const r = Math.sqrt(-2 * Math.log(u));
      spare = r * Math.sin(2 * Math.PI * v);
      return r * Math.cos(2 * Math.PI * v);
    },
  };
}

/** FNV-1a 32-bit hash, used to turn string seeds into numbers. */
export function hashString(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * Walker alias table over arbitrary non-negative weights: O(1) sampling.
 * `sample(rng)` returns an index in [0, weights.length).
 */
export function createAliasTable(weights) {
  const n = weights.length;
  const total = weights.reduce((s, w) => s + w, 0);
  const prob = new Float64Array(n);
  const alias = new Int32Array(n);
  const scaled = new Float64Array(n);
  const small = [];
  const large = [];
  for (let i = 0; i < n; i++) {
    scaled[i] = (weights[i] * n) / total;
    (scaled[i] < 1 ? small : large).push(i);
  }
  while (small.length && large.length) {
    const s = small.pop();
    const l = large.pop();
    prob[s] = scaled[s];
    alias[s] = l;
    scaled[l] = scaled[l] + scaled[s] - 1;
    (scaled[l] < 1 ? small : large).push(l);
  }
  for (const i of large) prob[i] = 1;
  for (const i of small) prob[i] = 1;
  return {
    size: n,
    sample(rng) {
      const x = rng.next() * n;
      const i = Math.floor(x);
      return x - i < prob[i] ? i : alias[i];
    },
  };
}

/** Zipf weights 1/rank^s for ranks 1..n. */
export function zipfWeights(n, s = 1) {
  const w = new Array(n);
  for (let i = 0; i < n; i++) w[i] = 1 / Math.pow(i + 1, s);
  return w;
}
