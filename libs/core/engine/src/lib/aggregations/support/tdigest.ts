/**
 * Percentile sketch in the spirit of Elasticsearch's hybrid TDigest: exact (sorted samples) while small,
 * a merging t-digest (compression 100 by default) beyond. Plain-data state for shard results.
 */

export interface DigestState {
  /** exact samples (unsorted) while small; null once compressed into centroids */
  samples: number[] | null;
  means: number[];
  weights: number[];
  count: number;
  min: number;
  max: number;
}

export function newDigest(): DigestState {
  return { samples: [], means: [], weights: [], count: 0, min: Infinity, max: -Infinity };
}

function maxExact(compression: number): number {
  return Math.max(200, Math.round(compression * 20));
}

export function digestAdd(d: DigestState, v: number, compression: number): void {
  d.count++;
  if (v < d.min) d.min = v;
  if (v > d.max) d.max = v;
  if (d.samples) {
    d.samples.push(v);
    if (d.samples.length > maxExact(compression)) toCentroids(d, compression);
    return;
  }
  d.means.push(v);
  d.weights.push(1);
  if (d.means.length > compression * 20) compress(d, compression);
}

function toCentroids(d: DigestState, compression: number): void {
  const s = d.samples!;
  d.samples = null;
  for (const v of s) {
    d.means.push(v);
    d.weights.push(1);
  }
  compress(d, compression);
}

/** merging pass with the k1 scale function limit (4 n q (1-q) / compression) */
export function compress(d: DigestState, compression: number): void {
  const n = d.means.length;
  if (n <= 1) return;
  const idx = Array.from({ length: n }, (_, i) => i).sort((a, b) => d.means[a]! - d.means[b]!);
  const total = d.weights.reduce((a, b) => a + b, 0);
  const outM: number[] = [];
  const outW: number[] = [];
  let curM = d.means[idx[0]!]!;
  let curW = d.weights[idx[0]!]!;
  let soFar = 0;
  for (let j = 1; j < n; j++) {
    const m = d.means[idx[j]!]!;
    const w = d.weights[idx[j]!]!;
    const q = (soFar + (curW + w) / 2) / total;
    const limit = Math.max(1, (4 * total * q * (1 - q)) / compression);
    if (curW + w <= limit) {
      curM = curM + ((m - curM) * w) / (curW + w);
      curW += w;
    } else {
      outM.push(curM);
      outW.push(curW);
      soFar += curW;
      curM = m;
      curW = w;
    }
  }
  outM.push(curM);
  outW.push(curW);
  d.means = outM;
  d.weights = outW;
}

export function digestMerge(into: DigestState, other: DigestState, compression: number): void {
  if (other.count === 0) return;
  if (other.samples && into.samples) {
    into.count += other.count;
    into.min = Math.min(into.min, other.min);
    into.max = Math.max(into.max, other.max);
    for (const v of other.samples) into.samples.push(v);
    if (into.samples.length > maxExact(compression)) toCentroids(into, compression);
    return;
  }
  if (into.samples) toCentroids(into, compression);
  into.count += other.count;
  into.min = Math.min(into.min, other.min);
  into.max = Math.max(into.max, other.max);
  if (other.samples) {
    for (const v of other.samples) {
      into.means.push(v);
      into.weights.push(1);
    }
  } else {
    for (let i = 0; i < other.means.length; i++) {
      into.means.push(other.means[i]!);
      into.weights.push(other.weights[i]!);
    }
  }
  compress(into, compression);
}

/** q in [0,1] */
export function digestQuantile(d: DigestState, q: number): number {
  if (d.count === 0) return NaN;
  if (d.samples) {
    const s = [...d.samples].sort((a, b) => a - b);
    const n = s.length;
    if (n === 1) return s[0]!;
    const index = q * (n - 1);
    const lo = Math.floor(index);
    const hi = Math.min(lo + 1, n - 1);
    const frac = index - lo;
    return s[lo]! + frac * (s[hi]! - s[lo]!);
  }
  if (q <= 0) return d.min;
  if (q >= 1) return d.max;
  const n = d.means.length;
  const total = d.count;
  const target = q * total;
  // centroid i covers [cum, cum + w); its mean sits at cum + w/2
  let cum = 0;
  let prevMid = 0;
  let prevMean = d.min;
  for (let i = 0; i < n; i++) {
    const w = d.weights[i]!;
    const mid = cum + w / 2;
    if (target < mid) {
      const span = mid - prevMid;
      const t = span > 0 ? (target - prevMid) / span : 0;
      return prevMean + t * (d.means[i]! - prevMean);
    }
    prevMid = mid;
    prevMean = d.means[i]!;
    cum += w;
  }
  const span = total - prevMid;
  const t = span > 0 ? (target - prevMid) / span : 1;
  return prevMean + t * (d.max - prevMean);
}

/** fraction of values <= x (ties count half), in [0,1] */
export function digestCdf(d: DigestState, x: number): number {
  if (d.count === 0) return NaN;
  if (x < d.min) return 0;
  if (x > d.max) return 1;
  if (d.samples) {
    let below = 0;
    let eq = 0;
    for (const v of d.samples) {
      if (v < x) below++;
      else if (v === x) eq++;
    }
    if (d.min === d.max) return 0.5;
    return (below + eq / 2) / d.samples.length;
  }
  let cum = 0;
  const n = d.means.length;
  for (let i = 0; i < n; i++) {
    const m = d.means[i]!;
    const w = d.weights[i]!;
    if (x < m) {
      const prev = i === 0 ? d.min : d.means[i - 1]!;
      const prevCum = i === 0 ? 0 : cum - d.weights[i - 1]! / 2;
      const mid = cum + w / 2;
      const t = m > prev ? (x - prev) / (m - prev) : 1;
      return (prevCum + t * (mid - prevCum)) / d.count;
    }
    cum += w;
  }
  return 1;
}
