/**
 * The shard query phase: parse the query for this index, run it over the shard's reader, collect the top
 * from+size hits (by score or sort), count total hits, run aggregations, apply post_filter / min_score /
 * terminate_after / search_after / slice. Produces a plain ShardQueryResult.
 */
import { BreakerNames, Errors, EsError, jsonValue, reserveRequestMemory } from '@strata/core-common';

/** estimated heap of one collected hit and of one sort value of it (request circuit breaker) */
const HIT_ENTRY_BYTES = 64;
const SORT_VALUE_BYTES = 24;
import type { AggregatorFactories, ShardAggregator } from '../../aggregations/api.js';
import type { IndexMetadata } from '../../cluster/metadata.js';
import type { DirectoryReader, LeafReaderContext } from '../../index/leaf-reader.js';
import type { MappedFieldType } from '../../mapper/mapped-field-type.js';
import { BoostQuery, ConstantScoreQuery, MatchAllDocsQuery } from '../../search/basic-queries.js';
import { PointRangeQuery } from '../../search/point-range-query.js';
import { pointAccess } from '../../index/point-access.js';
import { numericReader, ordinalsReader } from '../../index/doc-values-reader.js';
import { BooleanQuery } from '../../search/boolean-query.js';
import { NonNestedDocsQuery } from '../../search/nested/block-join-query.js';
import { TopHitsHeap, compareHits, type CollectedHit } from '../../search/collector.js';
import { NO_MORE_DOCS } from '../../search/doc-id-set.js';
import { shardTermSuggest, type ShardSuggest, type TermSuggestSpec } from '../../search/term-suggester.js';
import { IndexSearcher } from '../../search/index-searcher.js';
import type { FilterCacheView } from '../../search/filter-cache.js';
import type { QueryProfiler } from '../../search/profile.js';
import { ConstantScoreWeight, type Query } from '../../search/query.js';
import { compareKeys, compileSort, sortNeedsScores, type CompiledSortField, type LeafKeyFn, type SortKey } from '../../search/sort.js';
import {
  TRACK_TOTAL_HITS_DISABLED,
  type ShardQueryResult,
  type RescoreSpec,
  type ShardSearchRequest,
  type SliceSpec,
} from '../../search/spi-search.js';
import type { QueryParseContext } from '../../query-dsl/query-parser.js';
import { ScriptContexts } from '@strata/core-common';
import { compileSearchScript, type SearchScript } from '../../script/search-scripts.js';

export interface QueryPhaseDeps {
  /** parse context for this index (the caller creates it; we read nowUsed afterwards) */
  parseContext: QueryParseContext & { readonly nowUsed?: boolean };
  indexMetadata: IndexMetadata;
  reader: DirectoryReader;
  maxResultWindow?: number;
  /** aggregations parsed once per request (undefined/empty = none) */
  aggregations?: AggregatorFactories;
  maxBuckets?: number;
  /** builds the AggregationContext's compileFilter from parsed queries */
  fieldType(name: string): MappedFieldType | undefined;
  /** `"profile": true`: the main query's weights and scorers are timed into it */
  profiler?: QueryProfiler;
  /** where filters keep the doc sets they build per segment (absent or null: none) */
  filterCache?: FilterCacheView | null;
}

export function resultWindowError(from: number, size: number, max: number): Error {
  return Errors.illegalArgument(
    `Result window is too large, from + size must be less than or equal to: [${max}] but was [${from + size}]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting.`,
  );
}

/** Java's String.hashCode */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

function floorMod(a: number, n: number): number {
  return ((a % n) + n) % n;
}

/** 64-bit mix of a numeric doc value for field slicing (murmur3 fmix64, low 32 bits) */
export function mixLong(v: number): number {
  let z = BigInt.asUintN(64, BigInt(Math.trunc(v)));
  z ^= z >> 33n;
  z = BigInt.asUintN(64, z * 0xff51afd7ed558ccdn);
  z ^= z >> 33n;
  z = BigInt.asUintN(64, z * 0xc4ceb9fe1a85ec53n);
  z ^= z >> 33n;
  return Number(BigInt.asIntN(32, z));
}

/** per-leaf slice membership, or 'all' / 'none' for the whole shard (Elasticsearch's SliceBuilder.toFilter) */
export function sliceFilter(
  slice: SliceSpec,
  shardIndex: number,
  numShards: number,
  fieldType?: (name: string) => MappedFieldType | undefined,
): 'all' | 'none' | ((leaf: LeafReaderContext) => (doc: number) => boolean) {
  const { id, max, field } = slice;
  let sliceId: number;
  let sliceMax: number;
  if (max >= numShards) {
    const targetShard = id % numShards;
    if (targetShard !== shardIndex) return 'none';
    let numSlicesInShard = Math.floor(max / numShards);
    const rest = max % numShards;
    if (rest > targetShard) numSlicesInShard++;
    if (numSlicesInShard === 1) return 'all';
    sliceId = Math.floor(id / numShards);
    sliceMax = numSlicesInShard;
  } else {
    return shardIndex % max === id ? 'all' : 'none';
  }
  if (field && field !== '_id') {
    // SliceBuilder.createSliceQuery: only a shard that divides its documents needs numeric doc values
    if (field === '_uid') throw Errors.illegalArgument('Computing slices on the [_uid] field is illegal for 7.x indices, use [_id] instead');
    if (fieldType) {
      const ft = fieldType(field);
      if (!ft) throw Errors.illegalArgument(`field ${field} not found`);
      const numeric = ft.kind === 'numeric' || ft.kind === 'date' || ft.kind === 'boolean';
      if (!ft.hasDocValues || !numeric) throw Errors.illegalArgument(`cannot load numeric doc values on ${field}`);
    }
    return (leaf) => {
      const dv = leaf.reader.numericDocValues(field);
      const rd = dv ? numericReader(dv) : null;
      return (doc) => {
        if (!rd || rd.advance(doc) === 0) return false;
        return floorMod(mixLong(rd.value(0)), sliceMax) === sliceId;
      };
    };
  }
  return (leaf) => (doc) => floorMod(javaStringHashCode(leaf.reader.id(doc)), sliceMax) === sliceId;
}

/** a query as a per-leaf doc matcher (docs asked in increasing order per leaf) */
export function leafMatcher(searcher: IndexSearcher, q: Query): (leaf: LeafReaderContext) => (doc: number) => boolean {
  const w = searcher.createWeight(q, false, 1);
  return (leaf) => {
    const sc = w.scorer(leaf);
    return (doc) => {
      if (!sc) return false;
      let d = sc.docID();
      if (d < doc) d = sc.advance(doc);
      return d === doc;
    };
  };
}

export interface PreparedShardQuery {
  query: Query;
  postFilter: Query | null;
  rescore?: Array<{ spec: RescoreSpec; query: Query }>;
  /** script_fields compiled for this index */
  scriptFields?: Array<{ name: string; script: SearchScript; ignoreFailure: boolean }>;
}

/** parses the query, post_filter and alias filter for this shard's index (sets the context's nowUsed) */
export function prepareShardQuery(req: ShardSearchRequest, ctx: QueryParseContext): PreparedShardQuery {
  const s = req.source;
  let query: Query = s.query === undefined ? new MatchAllDocsQuery() : ctx.parseInnerQuery(s.query);
  if (req.aliasFilter !== undefined) {
    query = new BooleanQuery([
      { occur: 'must', query },
      { occur: 'filter', query: ctx.parseInnerQuery(req.aliasFilter) },
    ]);
  }
  // hidden nested documents are never hits (Elasticsearch's non-nested filter when the mapping has nested fields)
  if (ctx.nestedLookup.hasNested) query = new NonNestedDocsQuery(query);
  const postFilter = s.postFilter === undefined ? null : ctx.parseInnerQuery(s.postFilter);
  const out: PreparedShardQuery = { query, postFilter };
  if (s.rescore && s.rescore.length > 0) out.rescore = s.rescore.map((spec) => ({ spec, query: ctx.parseInnerQuery(spec.query) }));
  if (s.scriptFields) {
    out.scriptFields = Object.entries(s.scriptFields).map(([name, f]) => ({ name, script: compileSearchScript(ctx.scripts, f.script, ScriptContexts.FIELD), ignoreFailure: f.ignoreFailure }));
  }
  return out;
}

/** the result window checks of DefaultSearchContext.preProcess */
export function checkResultWindow(req: ShardSearchRequest, maxResultWindow: number): void {
  const s = req.source;
  const from = s.from < 0 ? 0 : s.from;
  if (!req.scroll && from + s.size > maxResultWindow) throw resultWindowError(from, s.size, maxResultWindow);
  if (req.scroll && s.size > maxResultWindow) {
    throw Errors.illegalArgument(
      `Batch size is too large, size must be less than or equal to: [${maxResultWindow}] but was [${s.size}]. Scroll batch sizes cost as much memory as result windows so they are controlled by the [index.max_result_window] index level setting.`,
    );
  }
}

/** the shard query phase, run to the end at once (tests, tools; the search service runs it in slices) */
export function executeQueryPhase(req: ShardSearchRequest, deps: QueryPhaseDeps, prepared: PreparedShardQuery): ShardQueryResult {
  const it = queryPhaseSteps(req, deps, prepared);
  for (;;) {
    const r = it.next();
    if (r.done) return r.value;
  }
}

export interface QueryPhaseControl {
  /** why the search was cancelled (its task's reason), undefined while it may go on */
  cancelled(): string | undefined;
  /** run this long (ms) before letting the event loop serve other work (default 5) */
  sliceMs?: number;
}

/**
 * The shard query phase in slices: between segments and every 256 collected documents it may pause — once
 * it has run `sliceMs` since the last pause it yields to the event loop (setImmediate), so other requests,
 * a `_tasks` cancel and the close of the client's connection are served during a long one-shard search —
 * and it stops with ES's task_cancelled_exception once `control.cancelled()` gives a reason.
 */
export async function executeQueryPhaseSliced(req: ShardSearchRequest, deps: QueryPhaseDeps, prepared: PreparedShardQuery, control: QueryPhaseControl): Promise<ShardQueryResult> {
  const sliceMs = control.sliceMs ?? 5;
  const it = queryPhaseSteps(req, deps, prepared);
  let since = performance.now();
  for (;;) {
    const r = it.next();
    if (r.done) return r.value;
    if (performance.now() - since >= sliceMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      since = performance.now();
    }
    const reason = control.cancelled();
    if (reason !== undefined) {
      it.return(undefined as never);
      throw new EsError('task_cancelled_exception', 400, `task cancelled [${reason}]`);
    }
  }
}

/** the query phase as steps: it yields where it may pause (between segments, every 256 collected docs) */
function* queryPhaseSteps(req: ShardSearchRequest, deps: QueryPhaseDeps, prepared: PreparedShardQuery): Generator<void, ShardQueryResult, void> {
  const { query, postFilter } = prepared;
  const ctx = deps.parseContext;
  const s = req.source;
  const from = s.from < 0 ? 0 : s.from;
  const size = s.size;
  const searcher = deps.profiler ? deps.profiler.searcher(deps.reader, req.dfs, query) : new IndexSearcher(deps.reader, req.dfs, deps.filterCache ?? null);
  const sort: CompiledSortField[] = compileSort(s.sort, (n) => deps.fieldType(n), req.index, ctx.scripts, {
    lookup: ctx.nestedLookup,
    compileFilter: (json, path) => leafMatcher(searcher, ctx.withNestedScope(path, () => ctx.parseInnerQuery(json))),
  });
  // an explicit sort (even `_score`) yields field docs with sort values, as in Elasticsearch
  const byField = sort.length > 0;

  const aggFactories = deps.aggregations && !deps.aggregations.isEmpty ? deps.aggregations : undefined;
  let aggregator: ShardAggregator | undefined;
  if (aggFactories) {
    aggregator = aggFactories.createShardAggregator({
      fieldType: (n) => deps.fieldType(n),
      compileFilter: (json) => leafMatcher(searcher, ctx.parseInnerQuery(json)),
      nowMillis: req.nowMillis,
      index: req.index,
      shardId: req.shardId,
      leaves: deps.reader.leaves,
      maxBuckets: deps.maxBuckets ?? 65536,
      nestedLookup: ctx.nestedLookup,
      matchingFieldNames: (p) => ctx.matchingFieldNames(p),
      ...(deps.profiler ? { profile: (name: string) => deps.profiler!.aggregation(name) } : {}),
    });
  }
  const needsScores =
    (!byField && sortNeedsScores(s.sort)) ||
    (byField && (s.trackScores || sort.some((f) => f.kind === 'score'))) ||
    s.minScore !== undefined ||
    (aggFactories?.needsScores() ?? false);
  const weight = searcher.createWeight(query, needsScores, 1);
  const postWeight = postFilter ? searcher.createWeight(postFilter, false, 1) : null;

  // search_after
  let afterKeys: SortKey[] | null = null;
  if (s.searchAfter !== undefined) {
    if (sort.length === 0) throw Errors.illegalArgument('Sort must contain at least one field.');
    if (s.searchAfter.length !== sort.length) {
      throw Errors.illegalArgument(`search_after has ${s.searchAfter.length} value(s) but sort has ${sort.length}.`);
    }
    // a RawJson (an integer beyond 2^53, or a sort value handed back by a scroll) is read exactly by numeric sorts
    afterKeys = sort.map((f, i) => {
      const v = s.searchAfter![i];
      return f.afterKey(f.kind === 'number' ? v : jsonValue(v));
    });
  }
  const slice = s.slice ? sliceFilter(s.slice, req.shardIndex, req.numShards, deps.fieldType) : 'all';

  const rescoreWindow = prepared.rescore ? Math.max(0, ...prepared.rescore.map((r) => r.spec.windowSize)) : 0;
  const k = Math.max(from + size, byField ? 0 : rescoreWindow);
  // the sort structure of the top k hits (doc, score and one value per sort field) is charged to the request breaker
  reserveRequestMemory(BreakerNames.REQUEST, k * (HIT_ENTRY_BYTES + SORT_VALUE_BYTES * (byField ? sort.length : 0)), 'top_docs');
  const heap = new TopHitsHeap(k, byField ? sort : null);
  const collapse = s.collapse ? compileCollapse(s.collapse.field, deps.fieldType, req.index) : null;
  const groups = collapse ? new Map<string | number | null, CollectedHit & { cv: unknown }>() : null;
  const trackUpTo = s.trackTotalHitsUpTo;
  const terminateAfter = s.terminateAfter;
  const docOrder = !collapse && byField && (sort[0]!.kind === 'doc' || sort[0]!.kind === 'shard_doc') && sort[0]!.reverse === 1;
  const earlyTerminable = docOrder && (afterKeys === null || (s.trackTotalHitsUpTo === TRACK_TOTAL_HITS_DISABLED && !aggFactories));
  // index-order paging (scroll / search_after on _doc or _shard_doc without total hits): start right after the last doc
  let startDoc = 0;
  if (docOrder && afterKeys !== null && s.trackTotalHitsUpTo === TRACK_TOTAL_HITS_DISABLED && !aggFactories) {
    const after = Number(afterKeys[0]);
    if (sort[0]!.kind === 'doc') startDoc = after + 1;
    else {
      const afterShard = Math.floor(after / 4294967296);
      startDoc = afterShard < req.shardIndex ? 0 : afterShard > req.shardIndex ? Infinity : after - afterShard * 4294967296 + 1;
    }
  }
  let totalHits = 0;
  let maxScore = -Infinity;
  let terminatedEarly = false;
  let countIncomplete = false;
  let timedOut = false;
  const deadline = s.timeoutMs !== undefined && s.timeoutMs >= 0 ? performance.now() + s.timeoutMs : Infinity;
  let sinceCheck = 0;
  // (asked at every pause point: the clock is read every 4,096 docs)
  const pastDeadline = (): boolean => {
    if (sinceCheck !== 4096) return false;
    sinceCheck = 0;
    return performance.now() > deadline;
  };
  const shardDocBase = req.shardIndex * 4294967296;

  const shortcut =
    slice === 'all' && !collapse && byField && !needsScores && !postWeight && !aggregator && s.minScore === undefined && terminateAfter === 0 && k > 0
      ? pointSortShortcut(query, sort, deps.reader, heap, k, shardDocBase, afterKeys)
      : null;
  const matchAllShortcut =
    shortcut === null && !collapse && !byField && slice === 'all' && !postWeight && !aggregator && s.minScore === undefined && terminateAfter === 0 &&
    unwrapConstant(query) instanceof MatchAllDocsQuery;
  if (shortcut !== null) {
    totalHits = shortcut.total;
  } else if (matchAllShortcut) {
    // every live doc matches with the same score: the first k live docs win, the count is numDocs
    const sc = searcher.createWeight(query, true, 1);
    for (const leaf of deps.reader.leaves) {
      if (heap.full) break;
      const scorer = sc.scorer(leaf);
      if (!scorer) continue;
      const live = leaf.reader.liveDocs;
      for (let doc = scorer.nextDoc(); doc !== NO_MORE_DOCS && !heap.full; doc = scorer.nextDoc()) {
        if (live !== null && (live[doc >>> 5]! & (1 << (doc & 31))) === 0) continue;
        const score = scorer.score();
        if (score > maxScore) maxScore = score;
        heap.offer({ doc: leaf.docBase + doc, score, keys: null });
      }
    }
    totalHits = deps.reader.numDocs;
    if (totalHits > 0 && maxScore === -Infinity) {
      const first = deps.reader.leaves.map((l) => sc.scorer(l)).find((x) => x !== null);
      if (first && first.nextDoc() !== NO_MORE_DOCS) maxScore = first.score();
    }
  } else if (slice !== 'none') {
    const bulkAggs =
      aggregator !== undefined && k === 0 && slice === 'all' && !collapse && !postWeight && !(aggFactories?.needsScores() ?? false) && s.minScore === undefined &&
      terminateAfter === 0 && startDoc === 0 && deadline === Infinity && unwrapConstant(query) instanceof MatchAllDocsQuery;
    // a constant-score query ranked by score: once the top k are full, a later doc (same score, higher doc id)
    // never enters them, so counting stops at track_total_hits (the total is then a lower bound, as in ES)
    const constantScoreTopK =
      !byField && !collapse && afterKeys === null && !postWeight && !aggregator && s.minScore === undefined && slice === 'all' &&
      rescoreWindow === 0 && weight instanceof ConstantScoreWeight;
    // ranked by score: once the top k are full and more than track_total_hits docs are counted, the scorer
    // is told the k-th score and may skip docs that cannot beat it (the total is then a lower bound)
    const skipNonCompetitive =
      !byField && !collapse && afterKeys === null && !postWeight && !aggregator && s.minScore === undefined && slice === 'all' &&
      rescoreWindow === 0 && needsScores && terminateAfter === 0 && k > 0 && trackUpTo !== undefined;
    const countable =
      constantScoreTopK && k > 0 && terminateAfter === 0 && trackUpTo !== undefined && trackUpTo >= 0 && typeof weight.count === 'function';
    // ranked by score, where a score serves only the top hits and max_score: once the top k are full, a doc
    // whose score bound does not beat the k-th score (a later doc of equal score never enters) is counted
    // without computing its score — it changes neither the top hits nor max_score
    const boundSkip =
      needsScores && !byField && !collapse && afterKeys === null && !aggregator && s.minScore === undefined && k > 0 && !deps.profiler;
    // ranked by score with nothing but the top hits, max_score and the count to gather: a scorer that can
    // hands out docs with their scores in batches (the same docs and scores, in tight loops). A batch stops
    // short of track_total_hits while non-competitive docs may later be skipped (that count stays the same)
    const batchTopK =
      needsScores && !byField && !collapse && afterKeys === null && !aggregator && !postWeight && s.minScore === undefined && slice === 'all' &&
      k > 0 && terminateAfter === 0 && startDoc === 0 && !deps.profiler && !countable && !constantScoreTopK;
    const batchDocs = batchTopK ? new Int32Array(BATCH) : null;
    const batchScores = batchTopK ? new Float64Array(BATCH) : null;
    // the k-th score once the top k are full (boundSkip), else -Infinity
    let kth = -Infinity;
    let minCompetitive = -Infinity;
    let leafNo = 0;
    leaves: for (const leaf of deps.reader.leaves) {
      if (leafNo++ > 0) yield;
      if (leaf.docBase + leaf.reader.maxDoc <= startDoc) continue;
      // constant score, top k filling up in doc order: a leaf without deletes whose matches the weight can
      // count (a numeric term) is counted once the top k are full, not visited doc by doc
      const leafCount = countable && leaf.reader.liveDocs === null ? weight.count!(leaf) : -1;
      const leafStart = totalHits;
      if (leafCount >= 0 && heap.full) {
        totalHits += leafCount;
        if (totalHits > trackUpTo!) {
          totalHits = trackUpTo! + 1; // what counting doc by doc up to the threshold reports
          countIncomplete = true;
          break;
        }
        continue;
      }
      const scorer = weight.scorer(leaf);
      if (!scorer) continue;
      if (minCompetitive !== -Infinity) scorer.setMinCompetitiveScore(minCompetitive);
      const post = postWeight ? postWeight.scorer(leaf) : undefined;
      if (post === null && !aggregator) continue;
      const live = leaf.reader.liveDocs;
      const docBase = leaf.docBase;
      const inSlice = slice === 'all' ? null : slice(leaf);
      const plainLc = aggregator ? aggregator.getLeafCollector(leaf) : null;
      const lc = plainLc && deps.profiler ? deps.profiler.timeAggregations(plainLc) : plainLc;
      // size-0 aggregations over every document: column-wise, without visiting docs one by one
      if (lc?.collectAll && bulkAggs && lc.collectAll(live)) {
        totalHits += leaf.reader.numDocs;
        if (needsScores && leaf.reader.numDocs > 0) {
          // a match-all query scores every doc alike: the first live doc's score is the max
          for (let d = scorer.nextDoc(); d !== NO_MORE_DOCS; d = scorer.nextDoc()) {
            if (live !== null && (live[d >>> 5]! & (1 << (d & 31))) === 0) continue;
            maxScore = Math.max(maxScore, scorer.score());
            break;
          }
        }
        continue;
      }
      // (no doc of the leaf has a bound below boundFloor: the bounds are asked for once the k-th score reaches it)
      const boundFloor = boundSkip ? scorer.minScoreBound() : Infinity;
      const keyFns = byField ? sort.map((f) => (f.kind === 'number' || f.kind === 'string' ? f.leaf(leaf) : null)) : null;
      const groupOf = collapse ? collapse.leaf(leaf) : null;
      if (batchDocs !== null && batchScores !== null && scorer.canBatch()) {
        // whether the top hits are full, and the score a doc must beat to enter them then
        let full = heap.full;
        let floor = full ? heap.top()!.score : 0;
        for (;;) {
          const room = skipNonCompetitive ? trackUpTo! - totalHits : BATCH;
          if (room <= 0 || !scorer.canBatch()) break;
          const n = scorer.nextBatch(batchDocs, batchScores, Math.min(BATCH, room));
          if (n === 0) continue leaves;
          for (let i = 0; i < n; i++) {
            const doc = batchDocs[i]!;
            if (live !== null && (live[doc >>> 5]! & (1 << (doc & 31))) === 0) continue;
            if ((++sinceCheck & 255) === 0) {
              yield;
              if (pastDeadline()) {
                timedOut = true;
                break leaves;
              }
            }
            const score = batchScores[i]!;
            totalHits++;
            if (score > maxScore) maxScore = score;
            if (!full || score > floor) {
              heap.offer({ doc: docBase + doc, score, keys: null });
              if (heap.full) {
                full = true;
                floor = heap.top()!.score;
                if (boundSkip) kth = floor;
              }
            }
          }
        }
      }
      const first = startDoc > leaf.docBase ? scorer.advance(startDoc - leaf.docBase) : scorer.nextDoc();
      for (let doc = first; doc !== NO_MORE_DOCS; doc = scorer.nextDoc()) {
        if (live !== null && (live[doc >>> 5]! & (1 << (doc & 31))) === 0) continue;
        if ((++sinceCheck & 255) === 0) {
          // a pause point every 256 docs (a doc may cost milliseconds: scripts)
          yield;
          if (pastDeadline()) {
            timedOut = true;
            break leaves;
          }
        }
        if (inSlice !== null && !inSlice(doc)) continue;
        // (a doc that cannot enter the full top hits is counted, not scored: see boundSkip)
        const score = needsScores ? (boundFloor <= kth && scorer.scoreBound() <= kth ? -Infinity : scorer.score()) : NaN;
        if (s.minScore !== undefined && !(score >= s.minScore)) continue;
        if (lc) lc.collect(doc, needsScores ? score : 0);
        if (post !== undefined) {
          if (post === null) continue;
          let pd = post.docID();
          if (pd < doc) pd = post.advance(doc);
          if (pd !== doc) continue;
        }
        totalHits++;
        if (needsScores && score > maxScore) maxScore = score;
        const gdoc = docBase + doc;
        if (groupOf !== null && k > 0) {
          if (byField && afterKeys !== null) {
            const keys = sortKeysOf(sort, keyFns!, doc, gdoc, shardDocBase, score);
            if (sortsAfter(sort, keys, afterKeys)) {
              const [gk, gv] = groupOf(doc);
              const hit = { doc: gdoc, score, keys, cv: gv };
              const prev = groups!.get(gk);
              if (!prev || compareHits(sort, hit, prev) < 0) groups!.set(gk, hit);
            }
          } else {
            const [gk, gv] = groupOf(doc);
            const prev = groups!.get(gk);
            // (a doc that does not rank before its group's best so far gets no sort values and no hit)
            const before =
              prev === undefined ||
              (byField ? ranksBefore(sort, keyFns!, doc, gdoc, shardDocBase, score, prev) : score !== prev.score ? score > prev.score : gdoc < prev.doc);
            if (before) groups!.set(gk, { doc: gdoc, score, keys: byField ? sortKeysOf(sort, keyFns!, doc, gdoc, shardDocBase, score) : null, cv: gv });
          }
        } else if (k > 0) {
          if (!byField) {
            if (afterKeys === null) {
              const top = heap.full ? heap.top()! : null;
              if (top === null || score > top.score) {
                heap.offer({ doc: gdoc, score, keys: null });
                if (boundSkip && heap.full) kth = heap.top()!.score;
              }
            }
          } else if (afterKeys !== null) {
            const keys = sortKeysOf(sort, keyFns!, doc, gdoc, shardDocBase, score);
            if (sortsAfter(sort, keys, afterKeys)) heap.offer({ doc: gdoc, score, keys });
          } else if (!heap.full || ranksBefore(sort, keyFns!, doc, gdoc, shardDocBase, score, heap.top()!)) {
            // (a doc that cannot enter the full top hits gets no sort values array and no hit: most docs of a
            // large sorted match)
            heap.offer({ doc: gdoc, score, keys: sortKeysOf(sort, keyFns!, doc, gdoc, shardDocBase, score) });
          }
        }
        if (terminateAfter > 0 && totalHits >= terminateAfter) {
          terminatedEarly = true;
          break leaves;
        }
        if (earlyTerminable && heap.full && trackUpTo !== undefined && totalHits >= Math.max(trackUpTo, 0) && !aggregator) {
          countIncomplete = true;
          break leaves;
        }
        if (constantScoreTopK && heap.full && trackUpTo !== undefined && totalHits > trackUpTo) {
          countIncomplete = true;
          break leaves;
        }
        if (leafCount >= 0 && heap.full) {
          // the rest of this leaf's matches are counted, not visited
          totalHits = leafStart + leafCount;
          if (totalHits > trackUpTo!) {
            totalHits = trackUpTo! + 1;
            countIncomplete = true;
            break leaves;
          }
          continue leaves;
        }
        if (skipNonCompetitive && heap.full && totalHits > trackUpTo!) {
          const t = heap.top()!.score;
          if (t > minCompetitive) {
            minCompetitive = t;
            countIncomplete = true;
            scorer.setMinCompetitiveScore(t);
          }
        }
      }
    }
  }
  // search_after on score sort (sort by _score only, desc)
  let hits: Array<CollectedHit & { cv?: unknown; ck?: string | number | null }>;
  if (groups) {
    hits = [...groups.entries()].map(([ck, h]) => ({ ...h, ck }));
    hits.sort((a, b) => compareHits(byField ? sort : null, a, b));
    hits = hits.slice(0, k);
  } else hits = heap.sorted();
  if (prepared.rescore && !byField && hits.length > 0) {
    for (const { spec, query: rq } of prepared.rescore) {
      hits = applyRescore(hits, spec, searcher, rq, deps.reader);
    }
    maxScore = hits.reduce((m, h) => (h.score > m ? h.score : m), -Infinity);
  }
  let total: ShardQueryResult['totalHits'];
  if (trackUpTo === TRACK_TOTAL_HITS_DISABLED) total = undefined;
  else if (countIncomplete) total = { value: totalHits, relation: 'gte' };
  else total = { value: totalHits, relation: 'eq' };
  const showScores = !byField || s.trackScores || sort.some((f) => f.kind === 'score');
  return {
    index: req.index,
    shardId: req.shardId,
    shardIndex: req.shardIndex,
    hits: hits.slice(0, k).map((h) => {
      const out: ShardQueryResult['hits'][number] = { doc: h.doc, score: showScores ? h.score : NaN };
      if (byField) {
        out.keys = h.keys!;
        out.sortValues = h.keys!.map((key, i) => sort[i]!.display(key));
      }
      if (collapse) {
        out.collapseKey = h.ck ?? null;
        out.collapseValue = h.cv;
      }
      return out;
    }),
    totalHits: total,
    maxScore: showScores && maxScore !== -Infinity && needsScores ? maxScore : null,
    sortMeta: byField ? sort.map((f) => ({ kind: f.kind, reverse: f.reverse, missingFirst: f.missingFirst })) : null,
    terminatedEarly: s.terminateAfter > 0 ? terminatedEarly : undefined,
    timedOut,
    aggregations: aggregator ? aggregator.buildShardResult() : undefined,
    suggest: s.suggest && s.suggest.length > 0 ? suggestOnShard(s.suggest, deps) : undefined,
  };
}

/** docs per batch of a scorer that scores in batches */
const BATCH = 256;

const singleValuedCache = new WeakMap<object, boolean>();

/** a hit's sort values: its score, `_doc`, `_shard_doc` or the field value of the leaf's key function */
function sortKeysOf(
  sort: readonly CompiledSortField[],
  keyFns: readonly (LeafKeyFn | null)[],
  doc: number,
  gdoc: number,
  shardDocBase: number,
  score: number,
): SortKey[] {
  const keys: SortKey[] = new Array(sort.length);
  for (let i = 0; i < sort.length; i++) keys[i] = sortKeyOf(sort[i]!, keyFns[i]!, doc, gdoc, shardDocBase, score);
  return keys;
}

/** one sort value of a doc: its score, `_doc`, `_shard_doc` or the field value of the leaf's key function */
function sortKeyOf(f: CompiledSortField, keyFn: LeafKeyFn | null, doc: number, gdoc: number, shardDocBase: number, score: number): SortKey {
  return f.kind === 'score' ? score : f.kind === 'doc' ? gdoc : f.kind === 'shard_doc' ? shardDocBase + gdoc : keyFn!(doc);
}

/**
 * whether a doc ranks before a collected hit (the worst of a full heap, the best of a collapse group), key by key
 * as compareHits compares them, computing only the keys needed to tell
 */
function ranksBefore(
  sort: readonly CompiledSortField[],
  keyFns: readonly (LeafKeyFn | null)[],
  doc: number,
  gdoc: number,
  shardDocBase: number,
  score: number,
  other: CollectedHit,
): boolean {
  const otherKeys = other.keys!;
  for (let i = 0; i < sort.length; i++) {
    const f = sort[i]!;
    const c = compareKeys(f, otherKeys[i]!, sortKeyOf(f, keyFns[i]!, doc, gdoc, shardDocBase, score));
    if (c !== 0) return c > 0;
  }
  return other.doc > gdoc;
}

/** search_after: whether sort values come strictly after the `after` ones */
function sortsAfter(sort: readonly CompiledSortField[], keys: readonly SortKey[], after: readonly SortKey[]): boolean {
  for (let i = 0; i < sort.length; i++) {
    const c = compareKeys(sort[i]!, keys[i]!, after[i]!);
    if (c !== 0) return c > 0;
  }
  return false;
}

/** true when every doc has at most one value (cached per doc-values instance) */
function isSingleValued(offsets: Uint32Array): boolean {
  let r = singleValuedCache.get(offsets);
  if (r === undefined) {
    r = true;
    for (let d = 0; d + 1 < offsets.length; d++) {
      if (offsets[d + 1]! - offsets[d]! > 1) {
        r = false;
        break;
      }
    }
    singleValuedCache.set(offsets, r);
  }
  return r;
}

function unwrapConstant(q: Query): Query {
  for (;;) {
    if (q instanceof BoostQuery) q = q.inner;
    else if (q instanceof ConstantScoreQuery) q = q.inner;
    else return q;
  }
}

/**
 * Sorted top-k without visiting every match (the idea of Lucene's points-based sort optimisation): when the
 * query is a range on (or match_all over) the numeric field of the primary sort, the point index already holds
 * the matches in sort order, so each segment contributes its first k docs (plus ties) from the right end.
 * Only for single-valued fields; returns null when it does not apply.
 */
function pointSortShortcut(
  rawQuery: Query,
  sort: CompiledSortField[],
  reader: DirectoryReader,
  heap: TopHitsHeap,
  k: number,
  shardDocBase: number,
  afterKeys: readonly SortKey[] | null,
): { total: number } | null {
  const primary = sort[0]!;
  if (primary.kind !== 'number') return null;
  // search_after (PIT / scroll deep paging): start at the after value in the sorted points, not at the first doc
  const afterV = afterKeys === null ? null : afterKeys[0];
  if (afterV !== null && (typeof afterV !== 'number' || !Number.isFinite(afterV))) return null;
  const spec = primary.spec;
  if (spec.script || spec.nested) return null;
  if (spec.numericType !== undefined || (spec.mode !== undefined && spec.mode !== (primary.reverse === 1 ? 'min' : 'max'))) return null;
  if (spec.missing !== undefined && spec.missing !== '_last') return null;
  const q = unwrapConstant(rawQuery);
  const field = spec.field;
  let range: PointRangeQuery | null = null;
  if (q instanceof PointRangeQuery) {
    if (q.field !== field) return null;
    range = q;
  } else if (!(q instanceof MatchAllDocsQuery)) return null;
  // check applicability on every leaf first
  for (const leaf of reader.leaves) {
    const pi = leaf.reader.pointIndex(field);
    const dv = leaf.reader.numericDocValues(field);
    if (!pi || !dv) {
      if (range) continue; // nothing matches in this leaf
      if (leaf.reader.numDocs > 0) return null; // match_all with docs missing the field
      continue;
    }
    if (!(dv.singleValued ?? isSingleValued(dv.offsets))) return null;
    if (!range && pointAccess(pi).size !== leaf.reader.maxDoc) return null;
  }
  let total = 0;
  for (const leaf of reader.leaves) {
    const pi = leaf.reader.pointIndex(field);
    if (!pi) continue;
    // block by block on disk: only the blocks holding the slice's ends and the docs taken are decoded
    const pa = pointAccess(pi);
    const live = leaf.reader.liveDocs;
    const from = range ? pa.lowerBound(range.lower, !range.includeLower) : 0;
    const to = range ? pa.lowerBound(range.upper, range.includeUpper) : pa.size;
    if (to <= from) continue;
    if (live === null) total += to - from;
    else for (const docs of pa.docChunks(from, to)) {
      for (let i = 0; i < docs.length; i++) {
        const d = docs[i]!;
        if ((live[d >>> 5]! & (1 << (d & 31))) !== 0) total++;
      }
    }
    const keyFns = sort.map((f) => (f.kind === 'number' || f.kind === 'string' ? f.leaf(leaf) : null));
    const docBase = leaf.docBase;
    /** offers entry i; false when it does not sort after the search_after keys (ties on the after value) */
    const take = (i: number): boolean => {
      const d = pa.doc(i);
      const gdoc = docBase + d;
      const keys = sortKeysOf(sort, keyFns, d, gdoc, shardDocBase, NaN);
      if (afterKeys !== null && pa.value(i) === afterV && !sortsAfter(sort, keys, afterKeys)) return false;
      heap.offer({ doc: gdoc, score: NaN, keys });
      return true;
    };
    let taken = 0;
    let boundary = NaN;
    if (primary.reverse === -1) {
      // values after afterV in descending order are the ones <= afterV (ties checked one by one)
      const top = afterV === null ? to : Math.min(to, pa.lowerBound(afterV, true));
      for (let i = top - 1; i >= from; i--) {
        const v = pa.value(i);
        if (taken >= k && v !== boundary) break;
        const d = pa.doc(i);
        if (live !== null && (live[d >>> 5]! & (1 << (d & 31))) === 0) continue;
        if (!take(i)) continue;
        if (++taken === k) boundary = v;
      }
    } else {
      const start = afterV === null ? from : Math.max(from, pa.lowerBound(afterV, false));
      for (let i = start; i < to; i++) {
        const v = pa.value(i);
        if (taken >= k && v !== boundary) break;
        const d = pa.doc(i);
        if (live !== null && (live[d >>> 5]! & (1 << (d & 31))) === 0) continue;
        if (!take(i)) continue;
        if (++taken === k) boundary = v;
      }
    }
  }
  return { total };
}

/** collapse field: per leaf, (comparable key, display value) of a doc; single-valued only */
function compileCollapse(
  field: string,
  fieldType: (name: string) => MappedFieldType | undefined,
  index: string,
): { leaf(leaf: LeafReaderContext): (doc: number) => [string | number | null, unknown] } {
  const ft = fieldType(field);
  if (!ft) throw Errors.queryShard(`no mapping found for \`${field}\` in order to collapse on`, index);
  if (!ft.hasDocValues || ft.kind === 'text') {
    throw Errors.illegalArgument(`cannot collapse on field \`${field}\` without \`doc_values\``);
  }
  const single = () => Errors.illegalState(`failed to collapse, the collapse field must be single valued`);
  return {
    leaf(leaf) {
      if (ft.kind === 'keyword' || ft.kind === 'ip') {
        const dv = leaf.reader.sortedSetDocValues(field);
        const rd = dv ? ordinalsReader(dv) : null;
        return (doc) => {
          if (!rd) return [null, null];
          const n = rd.advance(doc);
          if (n === 0) return [null, null];
          if (n > 1) throw single();
          const t = dv!.terms[rd.value(0)]!;
          return [t, ft.kind === 'ip' ? ft.valueForDisplay(t) : t];
        };
      }
      const dv = leaf.reader.numericDocValues(field);
      const rd = dv ? numericReader(dv) : null;
      return (doc) => {
        if (!rd) return [null, null];
        const n = rd.advance(doc);
        if (n === 0) return [null, null];
        if (n > 1) throw single();
        const v = rd.value(0);
        return [v, ft.valueForDisplay(v)];
      };
    },
  };
}

/** Elasticsearch's QueryRescorer on the top `windowSize` hits of a shard (score order) */
function applyRescore<H extends CollectedHit>(hits: H[], spec: RescoreSpec, searcher: IndexSearcher, rq: Query, reader: DirectoryReader): H[] {
  const n = Math.min(spec.windowSize, hits.length);
  if (n === 0) return hits;
  const window = hits.slice(0, n);
  const w = searcher.createWeight(rq, true, 1);
  const byDoc = [...window].sort((a, b) => a.doc - b.doc);
  let li = -1;
  let scorer: ReturnType<typeof w.scorer> = null;
  const f = Math.fround;
  for (const h of byDoc) {
    while (li + 1 < reader.leaves.length && reader.leaves[li + 1]!.docBase <= h.doc) {
      li++;
      scorer = w.scorer(reader.leaves[li]!);
    }
    const leaf = reader.leaves[li]!;
    const d = h.doc - leaf.docBase;
    let matched = false;
    let rs = 0;
    if (scorer) {
      let cur = scorer.docID();
      if (cur < d) cur = scorer.advance(d);
      if (cur === d) {
        matched = true;
        rs = scorer.score();
      }
    }
    const primary = f(h.score * spec.queryWeight);
    if (!matched) {
      h.score = primary;
      continue;
    }
    const secondary = f(rs * spec.rescoreQueryWeight);
    switch (spec.scoreMode) {
      case 'multiply':
        h.score = f(primary * secondary);
        break;
      case 'avg':
        h.score = f((primary + secondary) / 2);
        break;
      case 'max':
        h.score = Math.max(primary, secondary);
        break;
      case 'min':
        h.score = Math.min(primary, secondary);
        break;
      default:
        h.score = f(primary + secondary);
    }
  }
  window.sort((a, b) => (a.score !== b.score ? (a.score > b.score ? -1 : 1) : a.doc - b.doc));
  return [...window, ...hits.slice(n)];
}

function suggestOnShard(specs: TermSuggestSpec[], deps: QueryPhaseDeps): ShardSuggest {
  const out: ShardSuggest = {};
  for (const spec of specs) {
    const ft = deps.fieldType(spec.field);
    const analyzer = spec.analyzer ? deps.parseContext.analyzer(spec.analyzer) : (ft?.searchAnalyzer ?? ft?.indexAnalyzer);
    out[spec.name] = shardTermSuggest(spec, deps.reader, analyzer);
  }
  return out;
}
