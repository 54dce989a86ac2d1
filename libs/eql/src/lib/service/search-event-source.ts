/**
 * The service's EventSource: every read goes through the core SearchService (so coordinator and shard
 * interceptors — the request cache among them — see EQL's searches like any other), on readers pinned for
 * the whole EQL search (a point-in-time view), in `fetch_size` batches ordered by timestamp, tiebreaker and
 * `_shard_doc`, with the stage filters pushed down as Query DSL.
 */
import { DateFormatter, EsError, type Principal } from '@strata/core-common';
import {
  shardKey,
  type DirectoryReader,
  type SearchService,
  type ShardTarget,
  type FieldAndFormat,
} from '@strata/core-engine';
import type { Stage } from '../analysis/resolved.js';
import type { Schema } from '../analysis/schema.js';
import { checkAborted, type EventSource, type RenderedEvent, type SourceEvent, type TotalHits } from '../execution/model.js';
import { CATEGORY_PATH, stageFilter } from '../execution/sequence-matcher.js';
import type { Value } from '../expression/values.js';
import { MATCH_NONE, stageQuery, type QueryJson } from './query-translator.js';

export interface SearchEventSourceOptions {
  search: SearchService;
  targets: ShardTarget[];
  readers: Map<string, DirectoryReader>;
  schema: Schema;
  timestampField: string;
  tiebreakerField?: string;
  eventCategoryField: string;
  /** the request's Query DSL `filter` */
  filter?: unknown;
  /** the request's `fields` (rendered on result events) */
  fields?: unknown[];
  runtimeMappings?: Record<string, unknown>;
  fetchSize: number;
  /** concrete fields the plan reads */
  planFields: Iterable<string>;
  allowPartialSearchResults: boolean;
  /** who is searching (security) */
  principal?: Principal;
  /** failures of individual shards (partial results) */
  onShardFailures?(failures: unknown[]): void;
}

/**
 * Where an event lives: the walks read no stored fields (no `_id`, no `_source` — inflating a stored-fields
 * block for every hit walked made a walk cost the index's stored size once the blocks outgrew the block
 * cache), so an event is known by its shard (the position in `targets`) and its document number in that
 * shard's pinned reader, both from `_shard_doc`; `_id` is read only for the events rendered. Events a basic
 * query renders in the same search carry their rendering instead.
 */
interface HitRef {
  shard: number;
  doc: number;
  rendered?: RenderedEvent;
}

/** how much wider than the last page's time span the next window is */
const WINDOW_SLACK = 1.2;

/** `_shard_doc` = shard index × 2^32 + document number in the shard's reader */
const SHARD_DOC_SPAN = 4294967296;

type Hit = Record<string, unknown> & { _index: string; _id: string; sort?: unknown[]; fields?: Record<string, unknown[]>; _source?: unknown };

function invalidArgument(reason: string): EsError {
  return new EsError('invalid_argument_exception', 400, reason);
}

const javaList = (v: unknown[]): string => `[${v.map((x) => String(x)).join(', ')}]`;

/** how a source reads its hits' `fields` (shared by every event of a search) */
interface FieldView {
  categoryPath: string;
  dateFields: ReadonlySet<string>;
  keyFormatters: ReadonlyMap<string, DateFormatter>;
}

const NONE: readonly unknown[] = [];

/** an event over a hit's `fields` (a class, not closures: a walk makes one per event) */
class HitEvent implements SourceEvent {
  constructor(
    private readonly view: FieldView,
    private readonly f: Record<string, unknown[]>,
    readonly ts: number,
    readonly tb: Value,
    readonly ref: HitRef,
  ) {}

  values(path: string): readonly unknown[] {
    const p = path === CATEGORY_PATH ? this.view.categoryPath : path;
    const v = this.f[p];
    if (!v) return NONE;
    if (this.view.dateFields.has(p)) return v.map((x) => Number(x));
    return v;
  }

  keyValues(path: string): readonly unknown[] {
    const v = this.f[path];
    if (!v) return NONE;
    const fmt = this.view.keyFormatters.get(path);
    if (fmt) return v.map((x) => fmt.format(Number(x)));
    return v;
  }
}

export class SearchEventSource implements EventSource {
  /** the values an event needs: from doc values where the fields have them, else through the fields API */
  private readonly valueFields: { docvalue_fields?: FieldAndFormat[]; fields?: FieldAndFormat[] };
  private readonly dateFields = new Set<string>();
  private readonly keyFormatters = new Map<string, DateFormatter>();
  private readonly categoryPath: string;
  private readonly view: FieldView;

  constructor(private readonly o: SearchEventSourceOptions) {
    const paths = new Set<string>(o.planFields);
    // a text category field (dynamic mappings) is matched through its keyword sub-field
    const cat = o.schema.field(o.eventCategoryField);
    this.categoryPath = cat ? (cat.type === 'text' ? (cat.exactField ?? cat.path) : cat.path) : o.eventCategoryField;
    paths.add(this.categoryPath);
    paths.add(o.timestampField);
    if (o.tiebreakerField) paths.add(o.tiebreakerField);
    const dv: FieldAndFormat[] = [];
    const src: FieldAndFormat[] = [];
    for (const p of paths) {
      const info = o.schema.field(p);
      const isDate = info !== undefined && (info.type === 'date' || info.type === 'date_nanos');
      if (isDate) {
        this.dateFields.add(p);
        this.keyFormatters.set(p, DateFormatter.of(info.format ?? 'strict_date_optional_time||epoch_millis'));
      }
      const spec: FieldAndFormat = isDate ? { field: p, format: 'epoch_millis' } : { field: p };
      (info?.docValues ? dv : src).push(spec);
    }
    this.valueFields = { ...(dv.length ? { docvalue_fields: dv } : {}), ...(src.length ? { fields: src } : {}) };
    this.view = { categoryPath: this.categoryPath, dateFields: this.dateFields, keyFormatters: this.keyFormatters };
  }

  // ------------------------------------------------------------------ searches

  private async page(body: Record<string, unknown>, signal?: AbortSignal): Promise<{ hits: Hit[]; total?: TotalHits }> {
    checkAborted(signal);
    const o = this.o;
    const full: Record<string, unknown> = { ...body };
    if (o.runtimeMappings) full['runtime_mappings'] = o.runtimeMappings;
    const source = o.search.parseSource(full);
    const res = await o.search.search(
      {
        indicesOptions: { ignoreUnavailable: true, allowNoIndices: true, expandWildcards: { open: true, closed: false, hidden: false } },
        source,
        rawBody: JSON.stringify(full),
        searchType: 'query_then_fetch',
        typedKeys: false,
        restTotalHitsAsInt: false,
        allowPartialSearchResults: o.allowPartialSearchResults,
        attributes: { eql: true },
        ...(o.principal ? { principal: o.principal } : {}),
      },
      { targets: o.targets, readers: o.readers },
    );
    const shards = res.body['_shards'] as { failures?: unknown[] } | undefined;
    if (shards?.failures?.length) o.onShardFailures?.(shards.failures);
    const hits = res.body['hits'] as { hits: Hit[]; total?: TotalHits };
    return { hits: hits.hits, total: hits.total };
  }

  /** every hit of a search sorted on `_shard_doc`, `fetch_size` at a time (search_after starts right after the last doc) */
  private async *pages(body: Record<string, unknown>, signal?: AbortSignal): AsyncIterable<Hit[]> {
    let after: unknown[] | undefined;
    for (;;) {
      const { hits } = await this.page({ ...body, size: this.o.fetchSize, track_total_hits: false, ...(after ? { search_after: after } : {}) }, signal);
      if (hits.length > 0) yield hits;
      if (hits.length < this.o.fetchSize) return;
      after = hits[hits.length - 1]!.sort;
    }
  }

  /**
   * The earliest and latest timestamp in the targets and how many documents they hold, or null when no
   * document has a timestamp. Each end is one search sorted on the timestamp over a range that is only
   * its field, which the engine answers from the point index without visiting the documents.
   */
  private async timeBounds(signal?: AbortSignal): Promise<{ min: number; max: number; docs: number } | null> {
    const field = this.o.timestampField;
    const end = async (order: 'asc' | 'desc'): Promise<number | undefined> => {
      const body = { query: { range: { [field]: { gte: null } } }, sort: [{ [field]: { order } }], size: 1, track_total_hits: false, stored_fields: '_none_' };
      const hit = (await this.page(body, signal)).hits[0];
      const v = hit?.sort?.[0];
      return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
    };
    const min = await end('asc');
    const max = min === undefined ? undefined : await end('desc');
    if (min === undefined || max === undefined) return null;
    let docs = 0;
    for (const r of this.o.readers.values()) docs += r.numDocs;
    return { min, max, docs };
  }

  /**
   * Every hit of `query` in timestamp order (then tiebreaker, `_shard_doc`), `fetch_size` at a time. Each page
   * is searched in a time window just ahead of the previous one — the first sized from the targets' event
   * density, the next ones from how dense the last page was (widened when a window runs short) — so a walk
   * costs the events it passes over once, linear in the data, instead of sorting every remaining match for
   * every page. Events without a timestamp are left out by the windows' range (ES drops them too).
   */
  private async *ordered(query: QueryJson, order: 'asc' | 'desc', extra: Record<string, unknown>, signal?: AbortSignal): AsyncIterable<Hit[]> {
    const size = this.o.fetchSize;
    const sort = this.sort(order);
    const bounds = await this.timeBounds(signal);
    if (!bounds) return;
    const dir = order === 'asc' ? 1 : -1;
    const endTs = order === 'asc' ? bounds.max : bounds.min;
    let edge = order === 'asc' ? bounds.min : bounds.max;
    // as wide as `size` events would be if every document matched: the narrowest window worth a search
    let width = Math.max(1, Math.ceil(((bounds.max - bounds.min) * size) / Math.max(1, bounds.docs)));
    let after: unknown[] | undefined;
    const tsOf = (h: Hit): number => Number(h.sort![0]);
    const field = this.o.timestampField;
    for (;;) {
      const bound = edge + dir * width;
      const range = order === 'asc' ? { gte: edge, lte: bound } : { gte: bound, lte: edge };
      const windowed = { bool: { filter: [query, { range: { [field]: { ...range, format: 'epoch_millis' } } }] } };
      const hits = (await this.page({ query: windowed, sort, size, track_total_hits: false, ...(after ? { search_after: after } : {}), ...extra }, signal)).hits;
      if (hits.length > 0) {
        yield hits;
        after = hits[hits.length - 1]!.sort!;
      }
      if (hits.length === size) {
        // more in this window: the next one starts at the last hit, a little wider than this page's span, so
        // the engine passes over few more events than the page takes (a window that falls short just makes
        // a shorter page)
        const last = tsOf(hits[hits.length - 1]!);
        width = Math.ceil(WINDOW_SLACK * Math.max(1, Math.abs(last - tsOf(hits[0]!))));
        edge = last;
        continue;
      }
      if (dir * (bound - endTs) >= 0) return;
      edge = bound;
      // a window that ran short: the next one wider by how short it fell
      width = hits.length === 0 ? width * 4 : width * Math.min(16, Math.max(2, size / hits.length));
    }
  }

  private baseFilters(query: QueryJson | undefined, requireTimestamp: boolean): QueryJson {
    const filters: QueryJson[] = [];
    if (query) filters.push(query);
    if (requireTimestamp) filters.push({ exists: { field: this.o.timestampField } });
    if (this.o.filter !== undefined) filters.push(this.o.filter as QueryJson);
    return { bool: { filter: filters } };
  }

  private sort(order: 'asc' | 'desc'): unknown[] {
    const s: unknown[] = [{ [this.o.timestampField]: { order } }];
    if (this.o.tiebreakerField) s.push({ [this.o.tiebreakerField]: { order } });
    s.push({ _shard_doc: order });
    return s;
  }

  private toEvent(h: Hit, checkOrdinal: boolean): SourceEvent {
    const f = h.fields ?? {};
    const o = this.o;
    let ts = 0;
    if (checkOrdinal) {
      const tv = f[o.timestampField];
      if (!tv || tv.length !== 1 || !this.dateFields.has(o.timestampField)) {
        const raw = tv === undefined ? 'null' : tv.length === 1 ? String(tv[0]) : javaList(tv);
        throw invalidArgument(`Expected timestamp field [${o.timestampField}] to be mapped as [date] or [date_nanos] and to hold a single value but got [${raw}]`);
      }
      ts = Number(tv[0]);
    }
    let tb: Value = null;
    if (o.tiebreakerField) {
      const t = f[o.tiebreakerField];
      if (t && t.length > 1) throw invalidArgument(`Expected tiebreaker field [${o.tiebreakerField}] to hold a single comparable value but got [${javaList(t)}]`);
      if (t && t.length === 1) tb = t[0] as Value;
    }
    const sd = Number(h.sort![h.sort!.length - 1]);
    const shard = Math.floor(sd / SHARD_DOC_SPAN);
    const ref: HitRef = { shard, doc: sd - shard * SHARD_DOC_SPAN };
    return new HitEvent(this.view, f, ts, tb, ref);
  }

  private renderHit(h: Hit): RenderedEvent {
    const out: RenderedEvent = { _index: h._index, _id: h._id };
    if (h._source !== undefined) out['_source'] = h._source;
    if (h.fields && Object.keys(h.fields).length > 0) out['fields'] = h.fields;
    return out;
  }

  /** what a walk's hits carry: the values the plan reads, no stored fields (see HitRef) */
  private walkFields(): Record<string, unknown> {
    return { stored_fields: '_none_', ...this.valueFields };
  }

  // ------------------------------------------------------------------ EventSource

  async events(stage: Stage, count: number, fromTail: boolean, signal?: AbortSignal): Promise<{ events: SourceEvent[]; total: TotalHits }> {
    const t = stageQuery(stage, this.categoryPath);
    const query = this.baseFilters(t.query, true);
    const order = fromTail ? 'desc' : 'asc';
    if (t.exact) {
      const { hits, total } = await this.page(
        { query, sort: this.sort(order), size: count, track_total_hits: true, ...(this.o.fields ? { fields: this.o.fields } : {}) },
        signal,
      );
      const events = hits.map((h) => {
        const ev = this.toEvent(h, false);
        (ev.ref as HitRef).rendered = this.renderHit(h);
        return ev;
      });
      if (fromTail) events.reverse();
      return { events, total: total ?? { value: events.length, relation: 'eq' } };
    }
    // a residual condition: scan in batches, check each event in memory, count them all
    const filter = stageFilter(stage);
    const kept: SourceEvent[] = [];
    let matched = 0;
    for await (const hits of this.ordered(this.baseFilters(t.query, false), order, this.walkFields(), signal)) {
      for (const h of hits) {
        const ev = this.toEvent(h, false);
        if (!filter(ev)) continue;
        matched++;
        if (kept.length < count) kept.push(ev);
      }
    }
    if (fromTail) kept.reverse();
    return { events: kept, total: { value: matched, relation: 'eq' } };
  }

  private streamQuery(filters: Stage[]): QueryJson {
    const qs: QueryJson[] = [];
    for (const s of filters) {
      const t = stageQuery(s, this.categoryPath);
      if (!t.query) return { match_all: {} };
      if (t.query !== MATCH_NONE) qs.push(t.query);
    }
    if (qs.length === 0) return MATCH_NONE;
    return qs.length === 1 ? qs[0]! : { bool: { should: qs, minimum_should_match: 1 } };
  }

  async *stream(filters: Stage[], signal?: AbortSignal): AsyncIterable<SourceEvent[]> {
    const query = this.baseFilters(this.streamQuery(filters), false);
    for await (const hits of this.ordered(query, 'asc', this.walkFields(), signal)) {
      yield hits.map((h) => this.toEvent(h, true));
    }
  }

  async *scan(filters: Stage[], signal?: AbortSignal): AsyncIterable<SourceEvent[]> {
    const query = this.baseFilters(this.streamQuery(filters), false);
    for await (const hits of this.pages({ query, sort: [{ _shard_doc: 'asc' }], ...this.walkFields() }, signal)) {
      yield hits.map((h) => this.toEvent(h, false));
    }
  }

  /**
   * The events as the response shows them (`_index`, `_id`, `_source`, the request's `fields`): their `_id`s
   * are read from the search's pinned readers (only for the events shown), then fetched by one `ids` search
   * per shard and 1,000 events on the same readers, so rendering costs the events shown, not the index.
   */
  async render(events: SourceEvent[], signal?: AbortSignal): Promise<RenderedEvent[]> {
    const out: RenderedEvent[] = new Array(events.length);
    const byShard = new Map<number, Array<{ i: number; id: string }>>();
    for (let i = 0; i < events.length; i++) {
      const ref = events[i]!.ref as HitRef;
      if (ref.rendered) {
        out[i] = ref.rendered;
        continue;
      }
      let l = byShard.get(ref.shard);
      if (!l) byShard.set(ref.shard, (l = []));
      l.push({ i, id: this.idOf(ref) });
    }
    for (const [shard, list] of byShard) {
      const target = this.o.targets[shard]!;
      const ids = [...new Set(list.map((x) => x.id))];
      const found = new Map<string, RenderedEvent>();
      for (let k = 0; k < ids.length; k += 1000) {
        const chunk = ids.slice(k, k + 1000);
        checkAborted(signal);
        const body: Record<string, unknown> = { query: { ids: { values: chunk } }, size: chunk.length, track_total_hits: false };
        if (this.o.fields) body['fields'] = this.o.fields;
        if (this.o.runtimeMappings) body['runtime_mappings'] = this.o.runtimeMappings;
        const res = await this.o.search.search(
          {
            indicesOptions: { ignoreUnavailable: true, allowNoIndices: true, expandWildcards: { open: true, closed: false, hidden: false } },
            source: this.o.search.parseSource(body),
            searchType: 'query_then_fetch',
            typedKeys: false,
            restTotalHitsAsInt: false,
            allowPartialSearchResults: true,
            attributes: { eql: true },
            ...(this.o.principal ? { principal: this.o.principal } : {}),
          },
          { targets: [target], readers: this.o.readers },
        );
        for (const h of (res.body['hits'] as { hits: Hit[] }).hits) found.set(h._id, this.renderHit(h));
      }
      for (const { i, id } of list) out[i] = found.get(id) ?? { _index: target.index, _id: id };
    }
    return out;
  }

  /** an event's `_id`, read from its shard's pinned reader */
  private idOf(ref: HitRef): string {
    const t = this.o.targets[ref.shard]!;
    const reader = this.o.readers.get(shardKey(t.index, t.shardId));
    if (!reader) throw new EsError('illegal_state_exception', 500, `no reader held for shard [${t.index}][${t.shardId}]`);
    const leaves = reader.leaves;
    let lo = 0;
    let hi = leaves.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (leaves[mid]!.docBase <= ref.doc) lo = mid;
      else hi = mid - 1;
    }
    const leaf = leaves[lo]!;
    return leaf.reader.id(ref.doc - leaf.docBase);
  }
}
