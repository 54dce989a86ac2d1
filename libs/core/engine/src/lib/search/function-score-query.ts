/**
 * Elasticsearch's function_score: combines the query score with functions (weight, field_value_factor,
 * decay gauss/exp/linear) per score_mode / boost_mode, max_boost and min_score.
 */
import { EsError, Errors } from '@strata/core-common';
import type { LeafReaderContext } from '../index/leaf-reader.js';
import { numericReader } from '../index/doc-values-reader.js';
import { NO_MORE_DOCS } from './doc-id-set.js';
import type { IndexSearcher } from './index-searcher.js';
import { Query, Scorer, type Weight } from './query.js';

export type ScoreMode = 'multiply' | 'sum' | 'avg' | 'first' | 'max' | 'min';
export type BoostMode = 'multiply' | 'replace' | 'sum' | 'avg' | 'max' | 'min';

/** per-leaf function: (doc, subQueryScore) → value (before weight) */
export type LeafScoreFunction = (doc: number, subScore: number) => number;
export interface ScoreFunction {
  /** null = constant 1 (weight-only function) */
  leaf: ((ctx: LeafReaderContext) => LeafScoreFunction) | null;
  describe: string;
}

export interface FilterFunction {
  filter?: Query;
  weight?: number;
  fn: ScoreFunction | null;
}

export class FunctionScoreQuery extends Query {
  constructor(
    readonly query: Query,
    readonly functions: readonly FilterFunction[],
    readonly scoreMode: ScoreMode = 'multiply',
    readonly boostMode: BoostMode = 'multiply',
    readonly maxBoost = Number.MAX_VALUE,
    readonly minScore: number | null = null,
  ) {
    super();
  }

  createWeight(searcher: IndexSearcher, needsScores: boolean, boost: number): Weight {
    const sub = searcher.createWeight(this.query, needsScores || this.minScore !== null, 1);
    const filters = this.functions.map((f) => (f.filter ? searcher.createWeight(f.filter, false, 1) : null));
    const { functions, scoreMode, boostMode, maxBoost, minScore } = this;
    return {
      query: this,
      scorer(ctx: LeafReaderContext): Scorer | null {
        const inner = sub.scorer(ctx);
        if (!inner) return null;
        const filterScorers = filters.map((w) => (w ? w.scorer(ctx) : undefined));
        const leafFns = functions.map((f) => (f.fn?.leaf ? f.fn.leaf(ctx) : null));
        const matchesFilter = (i: number, doc: number): boolean => {
          const fs = filterScorers[i];
          if (fs === undefined) return true;
          if (fs === null) return false;
          let d = fs.docID();
          if (d < doc) d = fs.advance(doc);
          return d === doc;
        };
        const fnValue = (i: number, doc: number, subScore: number): number => {
          const lf = leafFns[i];
          const w = functions[i]!.weight;
          const v = lf ? lf(doc, subScore) : 1;
          return w === undefined ? v : v * w;
        };
        const compute = (doc: number, subScore: number): number => {
          let factor = 1;
          if (functions.length > 0) {
            if (scoreMode === 'first') {
              for (let i = 0; i < functions.length; i++) {
                if (matchesFilter(i, doc)) {
                  factor = fnValue(i, doc, subScore);
                  break;
                }
              }
            } else if (scoreMode === 'multiply') {
              for (let i = 0; i < functions.length; i++) if (matchesFilter(i, doc)) factor *= fnValue(i, doc, subScore);
            } else if (scoreMode === 'max' || scoreMode === 'min') {
              let acc = scoreMode === 'max' ? -Infinity : Infinity;
              let any = false;
              for (let i = 0; i < functions.length; i++) {
                if (matchesFilter(i, doc)) {
                  const v = fnValue(i, doc, subScore);
                  acc = scoreMode === 'max' ? Math.max(acc, v) : Math.min(acc, v);
                  any = true;
                }
              }
              if (any) factor = acc;
            } else {
              let total = 0;
              let weightSum = 0;
              for (let i = 0; i < functions.length; i++) {
                if (matchesFilter(i, doc)) {
                  total += fnValue(i, doc, subScore);
                  weightSum += functions[i]!.weight ?? 1;
                }
              }
              if (weightSum !== 0) factor = scoreMode === 'avg' ? total / weightSum : total;
            }
          }
          const fs = Math.min(factor, maxBoost);
          let r: number;
          switch (boostMode) {
            case 'replace':
              r = fs;
              break;
            case 'sum':
              r = subScore + fs;
              break;
            case 'avg':
              r = (subScore + fs) / 2;
              break;
            case 'max':
              r = Math.max(subScore, fs);
              break;
            case 'min':
              r = Math.min(subScore, fs);
              break;
            default:
              r = subScore * fs;
          }
          return Math.fround(Math.fround(r) * boost);
        };
        return new FunctionScorer(inner, compute, minScore);
      },
    };
  }
  toString(): string {
    return `function score (${this.query.toString()}, functions: [${this.functions.map((f) => f.fn?.describe ?? 'weight').join(', ')}])`;
  }
}

class FunctionScorer extends Scorer {
  private cur = 0;
  constructor(
    private readonly inner: Scorer,
    private readonly compute: (doc: number, sub: number) => number,
    private readonly minScore: number | null,
  ) {
    super();
  }
  private accept(d: number): boolean {
    if (d === NO_MORE_DOCS) return true;
    this.cur = this.compute(d, this.inner.score());
    return this.minScore === null || this.cur >= this.minScore;
  }
  docID(): number {
    return this.inner.docID();
  }
  nextDoc(): number {
    let d = this.inner.nextDoc();
    while (!this.accept(d)) d = this.inner.nextDoc();
    return d;
  }
  advance(target: number): number {
    let d = this.inner.advance(target);
    while (!this.accept(d)) d = this.inner.nextDoc();
    return d;
  }
  cost(): number {
    return this.inner.cost();
  }
  score(): number {
    return this.cur;
  }
}

// ------------------------------------------------------------------ built-in functions

export type FieldValueModifier = 'none' | 'log' | 'log1p' | 'log2p' | 'ln' | 'ln1p' | 'ln2p' | 'square' | 'sqrt' | 'reciprocal';

export function applyModifier(m: FieldValueModifier, v: number): number {
  switch (m) {
    case 'log':
      return Math.log10(v);
    case 'log1p':
      return Math.log10(v + 1);
    case 'log2p':
      return Math.log10(v + 2);
    case 'ln':
      return Math.log(v);
    case 'ln1p':
      return Math.log1p(v);
    case 'ln2p':
      return Math.log(v + 2);
    case 'square':
      return v * v;
    case 'sqrt':
      return Math.sqrt(v);
    case 'reciprocal':
      return 1 / v;
    default:
      return v;
  }
}

export function fieldValueFactorFunction(field: string, factor: number, modifier: FieldValueModifier, missing: number | undefined): ScoreFunction {
  return {
    describe: `field value function: ${modifier}(doc['${field}'].value * factor=${factor})`,
    leaf(ctx) {
      const dv = ctx.reader.numericDocValues(field);
      const rd = dv ? numericReader(dv) : null;
      return (doc) => {
        let v: number;
        if (rd && rd.advance(doc) > 0) v = rd.value(0);
        else if (missing !== undefined) v = missing;
        else throw new EsError('exception', 400, `Missing value for field [${field}]`);
        const r = applyModifier(modifier, v * factor);
        if (!Number.isFinite(r)) {
          throw Errors.illegalArgument(
            `field value function must not produce negative, infinite or NaN scores but got: [${r}] for field value: [${v}]`,
          );
        }
        return r;
      };
    },
  };
}

export type DecayType = 'gauss' | 'exp' | 'linear';
export type MultiValueMode = 'min' | 'max' | 'avg' | 'sum';

/** decay value for a distance (already reduced by offset) */
export function decayValue(type: DecayType, distance: number, scale: number, decay: number): number {
  switch (type) {
    case 'gauss': {
      const s = (0.5 * scale * scale) / Math.log(decay);
      return Math.exp((0.5 * distance * distance) / s);
    }
    case 'exp':
      return Math.exp((Math.log(decay) / scale) * distance);
    default: {
      const s = scale / (1 - decay);
      return Math.max(0, (s - distance) / s);
    }
  }
}

export function decayFunction(
  type: DecayType,
  field: string,
  origin: number,
  scale: number,
  offset: number,
  decay: number,
  mode: MultiValueMode = 'min',
): ScoreFunction {
  return {
    describe: `${type}(doc['${field}'], origin=${origin}, scale=${scale}, offset=${offset}, decay=${decay})`,
    leaf(ctx) {
      const dv = ctx.reader.numericDocValues(field);
      const rd = dv ? numericReader(dv) : null;
      return (doc) => {
        if (!rd) return 1;
        const n = rd.advance(doc);
        if (n === 0) return 1;
        let acc = mode === 'min' ? Infinity : mode === 'max' ? -Infinity : 0;
        for (let i = 0; i < n; i++) {
          const d = Math.max(0, Math.abs(rd.value(i) - origin) - offset);
          if (mode === 'min') acc = Math.min(acc, d);
          else if (mode === 'max') acc = Math.max(acc, d);
          else acc += d;
        }
        if (mode === 'avg') acc /= n;
        return decayValue(type, acc, scale, decay);
      };
    },
  };
}

/** 32-bit integer mix (murmur3 fmix32) */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * random_score: a uniform score in [0, 1) derived from the seed and, per doc, the first value of `field`
 * (numeric doc values) or the `_id` (when no field is given), so it is stable across requests and shards.
 */
export function randomScoreFunction(seed: number, field: string | undefined, salt: number): ScoreFunction {
  return {
    describe: `random score function (seed: ${seed}, field: ${field ?? '_id'})`,
    leaf(ctx) {
      const dv = field ? ctx.reader.numericDocValues(field) : null;
      const rd = dv ? numericReader(dv) : null;
      return (doc) => {
        let h: number;
        if (rd) {
          const v = rd.advance(doc) > 0 ? rd.value(0) : 0;
          h = fmix32((Math.trunc(v) ^ Math.trunc(v / 4294967296)) ^ seed ^ salt);
        } else {
          const id = ctx.reader.id(doc);
          let x = seed ^ salt;
          for (let i = 0; i < id.length; i++) x = Math.imul(x ^ id.charCodeAt(i), 0x01000193);
          h = fmix32(x);
        }
        return (h & 0xffffff) / 16777216;
      };
    },
  };
}

/** a scoring script as a score function (the script sees `_score` = the sub query score) */
export function scriptScoreFunction(
  describe: string,
  bind: (ctx: LeafReaderContext) => (doc: number, subScore: number) => number,
  invalid: (score: number, doc: number) => string | undefined,
): ScoreFunction {
  return {
    describe,
    leaf(ctx) {
      const run = bind(ctx);
      return (d, subScore) => {
        const v = run(d, subScore);
        const bad = invalid(v, d);
        if (bad !== undefined) throw Errors.illegalArgument(bad);
        return v;
      };
    },
  };
}
