/**
 * Entry points of the aggregation framework (see api.ts for the flow): parsing, shard collection,
 * reduce and rendering.
 */
import type { ScriptService } from '@strata/core-common';
import { withAggregationScripts } from './support/scripts.js';
import { EsError, Errors } from '@strata/core-common';
import type { LeafReaderContext } from '../index/leaf-reader.js';
import type {
  AggregationContext,
  AggregationProfile,
  AggregationTypeParser,
  AggregatorFactories,
  InternalAggregation,
  InternalAggregations,
  LeafAggregationCollector,
  ReduceOptions,
  RenderOptions,
  ShardAggregator,
} from './api.js';
import {
  AggSpec,
  emptySubs,
  reduceSubs,
  renderAgg,
  tooManyBuckets,
  Aggregator,
  type ReduceContext,
} from './framework.js';
import { AGG_PARSERS } from './registry.js';

const MAX_NESTED_DEPTH = 20;

class Factories implements AggregatorFactories {
  constructor(readonly specs: AggSpec[]) {}
  get isEmpty(): boolean {
    return this.specs.length === 0;
  }
  needsScores(): boolean {
    return this.specs.some((s) => s.needsScores());
  }
  createShardAggregator(ctx: AggregationContext): ShardAggregator {
    const specs = this.specs.filter((s) => s.pipeline === 'none');
    const profile = ctx.profile;
    const aggs = specs.map((s) => {
      if (!profile) return s.createAggregator(ctx, true);
      const p = profile(s.name);
      const a = p.time('initialize', () => s.createAggregator(ctx, true));
      p.type = a.constructor.name;
      return new ProfilingAggregator(a, p);
    });
    return new TopLevelAggregator(specs, aggs);
  }
}

class TopLevelAggregator implements ShardAggregator {
  constructor(private readonly specs: AggSpec[], private readonly aggs: Aggregator[]) {}
  getLeafCollector(leaf: LeafReaderContext): LeafAggregationCollector {
    const aggs = this.aggs;
    for (const a of aggs) a.setLeaf(leaf);
    const collectAll = (live: Uint32Array | null): boolean => {
      if (!aggs.every((a) => a.canCollectAll?.() === true)) return false;
      for (const a of aggs) a.collectAll!(live);
      return true;
    };
    if (aggs.length === 1) {
      const a = aggs[0]!;
      return { collect: (doc: number, score: number) => a.collect(doc, 0, score), collectAll };
    }
    return {
      collect: (doc: number, score: number) => {
        for (let i = 0; i < aggs.length; i++) aggs[i]!.collect(doc, 0, score);
      },
      collectAll,
    };
  }
  buildShardResult(): InternalAggregations {
    const out: InternalAggregations = {};
    for (let i = 0; i < this.aggs.length; i++) out[this.specs[i]!.name] = this.aggs[i]!.build(0);
    return out;
  }
}

/** a top-level aggregator timed for `"profile": true` (Elasticsearch's ProfilingAggregator) */
class ProfilingAggregator extends Aggregator {
  constructor(
    private readonly inner: Aggregator,
    private readonly p: AggregationProfile,
  ) {
    super();
    if (inner.canCollectAll) this.canCollectAll = () => inner.canCollectAll!();
    if (inner.collectAll) this.collectAll = (live) => p.time('collect', () => inner.collectAll!(live));
  }
  setLeaf(leaf: LeafReaderContext): void {
    this.p.time('build_leaf_collector', () => this.inner.setLeaf(leaf));
  }
  collect(doc: number, owningOrd: number, score: number): void {
    this.p.time('collect', () => this.inner.collect(doc, owningOrd, score));
  }
  build(owningOrd: number): InternalAggregation {
    return this.p.time('build_aggregation', () => this.inner.build(owningOrd));
  }
}

function levenshtein(a: string, b: string): number {
  const dp: number[] = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = dp[0]!;
    dp[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = dp[j]!;
      dp[j] = Math.min(dp[j]! + 1, dp[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return dp[b.length]!;
}

function unknownType(type: string, extra: Iterable<string> = []): EsError {
  const candidates = [...Object.keys(AGG_PARSERS), ...extra]
    .map((k) => ({ k, sim: 1 - levenshtein(type, k) / Math.max(type.length, k.length) }))
    .filter((c) => c.sim > 0.7)
    .sort((a, b) => b.sim - a.sim || a.k.localeCompare(b.k))
    .map((c) => c.k);
  let reason = `Unknown aggregation type [${type}]`;
  if (candidates.length === 1) reason += ` did you mean [${candidates[0]}]?`;
  else if (candidates.length > 1) reason += ` did you mean any of [${candidates.join(', ')}]?`;
  // the cause is an x-content exception, not an ElasticsearchException: ES reports the parsing_exception as root cause
  const metadata = { line: 1, col: 1 };
  return new EsError('parsing_exception', 400, reason, {
    metadata,
    cause: new EsError('named_object_not_found_exception', 400, `[1:1] unknown field [${type}]`),
    rootCauses: [new EsError('parsing_exception', 400, reason, { metadata })],
  });
}

const NAME_RE = /[[\]>]/;

/** keys from the aggregations object down to the aggregation type whose parser threw (to place the error in the raw body) */
const ERROR_PATHS = new WeakMap<EsError, string[]>();

export function aggParseErrorPath(e: unknown): string[] | undefined {
  return e instanceof EsError ? ERROR_PATHS.get(e) : undefined;
}

function parseSpecs(json: unknown, depth: number, extra: ReadonlyMap<string, AggregationTypeParser>): AggSpec[] {
  if (json === undefined || json === null) return [];
  if (typeof json !== 'object' || Array.isArray(json)) {
    throw Errors.parsing(`Unexpected token ${Array.isArray(json) ? 'START_ARRAY' : 'VALUE'} in [aggs].`);
  }
  if (depth > MAX_NESTED_DEPTH) {
    throw Errors.parsing(
      `The nested depth of the aggregations exceeds the maximum nested depth for aggregations [${MAX_NESTED_DEPTH}]`,
    );
  }
  const specs: AggSpec[] = [];
  for (const [name, def] of Object.entries(json as Record<string, unknown>)) {
    if (NAME_RE.test(name)) {
      throw Errors.parsing(
        `Invalid aggregation name [${name}]. Aggregation names can contain any character except '[', ']', and '>'`,
      );
    }
    if (def === null || typeof def !== 'object' || Array.isArray(def)) {
      throw Errors.parsing(`Aggregation definition for [${name} starts with a [${Array.isArray(def) ? 'START_ARRAY' : 'VALUE_STRING'}], expected a [START_OBJECT].`);
    }
    let type: string | undefined;
    let body: unknown;
    let subsJson: unknown;
    let subsKey: string | undefined;
    let meta: Record<string, unknown> | undefined;
    for (const [k, v] of Object.entries(def as Record<string, unknown>)) {
      if (k === 'aggs' || k === 'aggregations') {
        if (subsKey !== undefined) throw Errors.parsing(`Found two sub aggregation definitions under [${name}]`);
        subsKey = k;
        subsJson = v;
        if (v === null || typeof v !== 'object' || Array.isArray(v)) {
          throw Errors.parsing(`Expected [START_OBJECT] under [${k}], but got a [${Array.isArray(v) ? 'START_ARRAY' : 'VALUE'}] in [${name}]`);
        }
      } else if (k === 'meta') {
        if (v === null || typeof v !== 'object' || Array.isArray(v)) {
          throw Errors.parsing(`Expected [START_OBJECT] under [meta], but got a [VALUE] in [${name}]`);
        }
        meta = v as Record<string, unknown>;
      } else {
        if (type !== undefined) {
          throw Errors.parsing(`Found two aggregation type definitions in [${name}]: [${type}] and [${k}]`);
        }
        if (!AGG_PARSERS[k] && !extra.has(k)) throw unknownType(k, extra.keys());
        if (v === null || typeof v !== 'object' || Array.isArray(v)) {
          throw Errors.parsing(`Expected [START_OBJECT] under [${k}], but got a [${Array.isArray(v) ? 'START_ARRAY' : 'VALUE'}] in [${name}]`);
        }
        type = k;
        body = v;
      }
    }
    if (type === undefined) throw Errors.parsing(`Missing definition for aggregation [${name}]`);
    let spec: AggSpec;
    try {
      const parser = AGG_PARSERS[type];
      spec = parser ? parser(name, body as Record<string, unknown>) : extra.get(type)!.parse(name, body as Record<string, unknown>);
    } catch (e) {
      if (e instanceof EsError && !ERROR_PATHS.has(e)) ERROR_PATHS.set(e, [name, type]);
      throw e;
    }
    spec.meta = meta;
    let subs: AggSpec[];
    try {
      subs = parseSpecs(subsJson, depth + 1, extra);
    } catch (e) {
      const inner = aggParseErrorPath(e);
      if (inner) ERROR_PATHS.set(e as EsError, [name, subsKey!, ...inner]);
      throw e;
    }
    if (subs.length > 0 && (spec.isMetric || spec.pipeline !== 'none')) {
      throw new EsError(
        'aggregation_initialization_exception',
        400,
        `Aggregator [${name}] of type [${type}] cannot accept sub-aggregations`,
      );
    }
    spec.subs = subs;
    for (const sub of subs) sub.validateParent(spec);
    specs.push(spec);
  }
  if (depth === 1) for (const s of specs) s.validateParent(undefined);
  return specs;
}

/** Parses the `aggs` / `aggregations` object of a search body. undefined/null → empty factories. */
export function parseAggregations(
  json: unknown,
  opts: { scripts?: ScriptService; types?: ReadonlyMap<string, AggregationTypeParser> } = {},
): AggregatorFactories {
  return withAggregationScripts(opts.scripts, () => new Factories(parseSpecs(json, 1, opts.types ?? new Map())));
}

function specsOf(f: AggregatorFactories): AggSpec[] {
  if (!(f instanceof Factories)) throw Errors.illegalState('foreign AggregatorFactories');
  return f.specs;
}

export function reduceAggregations(
  factories: AggregatorFactories,
  shardResults: readonly InternalAggregations[],
  opts: ReduceOptions = {},
): InternalAggregations {
  const specs = specsOf(factories);
  const maxBuckets = opts.maxBuckets ?? 65536;
  let count = 0;
  const rc: ReduceContext = {
    maxBuckets,
    consumeBuckets(n: number) {
      count += n;
      if (count > maxBuckets) throw tooManyBuckets(maxBuckets, count);
    },
  };
  if (shardResults.length === 0) return emptySubs(specs);
  return reduceSubs(specs, shardResults as InternalAggregations[], rc);
}

export function renderAggregations(
  factories: AggregatorFactories,
  reduced: InternalAggregations,
  opts: RenderOptions,
): Record<string, unknown> {
  const specs = specsOf(factories);
  const out: Record<string, unknown> = {};
  for (const s of specs) {
    const a = reduced[s.name] ?? s.empty();
    out[opts.typedKeys ? `${s.typedName(a)}#${s.name}` : s.name] = renderAgg(s, a, { typedKeys: opts.typedKeys });
  }
  return out;
}

export function aggregationsNeedScores(factories: AggregatorFactories): boolean {
  return factories.needsScores();
}
