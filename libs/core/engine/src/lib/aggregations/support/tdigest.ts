/**
 * Percentile sketch in the spirit of Elasticsearch's (>= 8.9) HybridDigest: every sample is kept (ES
 * SortingDigest) while the population stays below `round(compression) * 20` values (2000 for the default
 * compression 100), with exact quantiles (index q·(n−1), linear interpolation) and cdf; it switches to a merging
 * t-digest once that size is reached. Plain-data state for shard results.
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

/** HybridDigest: the sorting phase ends when the size would reach round(compression) * 20 */
export function maxSortingSize(compression: number): number {
  return Math.round(compression) * 20;
}

export function digestAdd(d: DigestState, v: number, compression: number): void {
  d.count++;
  if (v < d.min) d.min = v;
  if (v > d.max) d.max = v;
  if (d.samples) {
    if (d.samples.length + 1 >= maxSortingSize(compression)) {
      d.samples.push(v);
      toCentroids(d, compression);
      return;
    }
    d.samples.push(v);
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
  if (other.samples && into.samples && into.samples.length + other.samples.length < maxSortingSize(compression)) {
    into.count += other.count;
    into.min = Math.min(into.min, other.min);
    into.max = Math.max(into.max, other.max);
    for (const v of other.samples) into.samples.push(v);
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

/** sorted centroids (samples count as weight-1 centroids) */
function centroids(d: DigestState): { means: number[]; weights: number[] } {
  if (d.samples) {
    const m = [...d.samples].sort((a, b) => a - b);
    return { means: m, weights: m.map(() => 1) };
  }
  return { means: d.means, weights: d.weights };
}

/**
 * q in [0,1]. Each centroid sits at the middle of its weight on the cumulative axis; values interpolate
 * linearly between neighbouring centroids, clamp to min/max outside (ES t-digest semantics:
 * [1, 51, 101, 151] -> p25 = 26, p50 = 76).
 */
export function digestQuantile(d: DigestState, q: number): number {
  if (d.count === 0) return NaN;
  if (d.samples) return sortedQuantile(sortedSamples(d), q);
  const { means, weights } = centroids(d);
  const n = means.length;
  if (n === 1) return means[0]!;
  const target = q * d.count;
  let cum = 0;
  let prevMid = NaN;
  let prevMean = NaN;
  for (let i = 0; i < n; i++) {
    const w = weights[i]!;
    const mid = cum + w / 2;
    if (target < mid) {
      if (i === 0) return d.min;
      const t = mid > prevMid ? (target - prevMid) / (mid - prevMid) : 0;
      return prevMean + t * (means[i]! - prevMean);
    }
    prevMid = mid;
    prevMean = means[i]!;
    cum += w;
  }
  return d.max;
}

/** fraction of values below x, in [0,1], interpolating (and extrapolating) between centroid midpoints */
export function digestCdf(d: DigestState, x: number): number {
  if (d.count === 0) return NaN;
  if (d.samples) return sortedCdf(sortedSamples(d), x);
  if (d.min === d.max) return x < d.min ? 0 : x > d.max ? 1 : 0.5;
  const { means, weights } = centroids(d);
  const n = means.length;
  const mids: number[] = new Array(n);
  let cum = 0;
  for (let i = 0; i < n; i++) {
    mids[i] = cum + weights[i]! / 2;
    cum += weights[i]!;
  }
  const interp = (i: number, j: number) => {
    const dm = means[j]! - means[i]!;
    return dm === 0 ? mids[j]! : mids[i]! + ((x - means[i]!) * (mids[j]! - mids[i]!)) / dm;
  };
  let pos: number;
  if (x <= means[0]!) {
    let j = 1;
    while (j < n - 1 && means[j] === means[0]) j++;
    pos = interp(0, j);
  } else if (x >= means[n - 1]!) {
    let i = n - 2;
    while (i > 0 && means[i] === means[n - 1]) i--;
    pos = interp(i, n - 1);
  } else {
    let i = 0;
    while (i < n - 1 && !(means[i]! <= x && x < means[i + 1]!)) i++;
    pos = interp(i, i + 1);
  }
  return Math.min(1, Math.max(0, pos / d.count));
}

/** the samples of an exact digest, sorted in place (once; later calls find them sorted) */
function sortedSamples(d: DigestState): number[] {
  const s = d.samples!;
  for (let i = 1; i < s.length; i++) {
    if (s[i - 1]! > s[i]!) {
      s.sort((a, b) => a - b);
      break;
    }
  }
  return s;
}

/** exact quantile of sorted values (ES Dist.quantile): index q·(n−1), linear interpolation between neighbours */
export function sortedQuantile(v: ArrayLike<number>, q: number): number {
  const n = v.length;
  if (n === 0) return NaN;
  const index = q * (n - 1);
  if (index <= 0) return v[0]!;
  if (index >= n - 1) return v[n - 1]!;
  const lo = Math.floor(index);
  const w = index - lo;
  const a = v[lo]!;
  return a + w * (v[lo + 1]! - a);
}

/**
 * exact cdf of sorted values (ES Dist.cdf): the first value counts half, values equal to x count half, and a
 * point between two values interpolates linearly within the gap.
 */
export function sortedCdf(v: ArrayLike<number>, x: number): number {
  const n = v.length;
  if (n === 0) return NaN;
  if (x < v[0]!) return 0;
  let n1 = 0.5;
  let n2 = 0;
  for (let i = 1; i < n; i++) {
    const value = v[i]!;
    if (value > x) {
      if (n2 > 0) return (n1 + 0.5 * n2) / n;
      const prev = v[i - 1]!;
      return (n1 + (x - prev) / (value - prev)) / n;
    }
    if (value < x) n1++;
    else n2++;
  }
  return (n - 0.5 * n2) / n;
}
