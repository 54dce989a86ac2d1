import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EsError } from '@strata/core-common';
import { DefaultAnalysisRegistry } from '../analysis/analysis-registry.js';
import type { IndexMetadata } from '../cluster/metadata.js';
import { DefaultMapperService } from '../mapper/mapper-service.js';
import { IndexShardImpl } from '../shard/index-shard.js';
import { decodeExactLong, encodeExactLong, exactLongField, ExactLongs, exactValuesOf } from './exact-longs.js';
import type { DirectoryReader } from './leaf-reader.js';
import { numericReader } from './doc-values-reader.js';
import { exactLongRangeQuery } from '../query-dsl/parse-utils.js';
import { IndexSearcher } from '../search/index-searcher.js';
import { NO_MORE_DOCS } from '../search/doc-id-set.js';
import type { ParsedDocument } from '../mapper/parsed-document.js';
import { fakeIndexMetadata } from '../search/testing/fake-index.js';
import { compileSort, parseSort } from '../search/sort.js';

const svc = new DefaultMapperService(new DefaultAnalysisRegistry(), []);
const meta: IndexMetadata = {
  ...fakeIndexMetadata('longs'),
  mappings: svc.parseMappings({ properties: { l: { type: 'long' }, u: { type: 'unsigned_long' }, k: { type: 'keyword' } } }, {}),
};
const mapper = svc.documentMapper(meta);
const dec = new TextDecoder();
const parseBytes = (bytes: Uint8Array, id: string, routing?: string) => mapper.parse(JSON.parse(dec.decode(bytes)) as Record<string, unknown>, id, routing, bytes).doc;
const parseText = (text: string, id = '1') => mapper.parse(JSON.parse(text) as Record<string, unknown>, id, undefined, text).doc;

describe('exact long values: the mapper', () => {
  it('a document of safe values has no side field (the format of common data is unchanged)', () => {
    const d = parseText('{"l": [42, -9007199254740991, 9007199254740991], "u": 7, "k": "x"}');
    expect(d.fields.map((f) => f.name)).toEqual(['_id', 'l', 'l', 'l', 'u', 'k']);
  });

  it('a value beyond 2^53 also goes to the side field, exact from the source text, a string, or (no text) the double', () => {
    const side = (doc: ReturnType<typeof parseText>, f: string) => doc.fields.filter((x) => x.name === exactLongField(f));
    const d = parseText('{"l": [9007199254740993, 1, -9223372036854775808], "u": "18446744073709551615"}');
    expect(side(d, 'l').map((f) => [f.tokens?.[0]?.term, f.keywordValues])).toEqual([
      [encodeExactLong(9007199254740993n, false), [encodeExactLong(9007199254740993n, false)]],
      [encodeExactLong(-(2n ** 63n), false), [encodeExactLong(-(2n ** 63n), false)]],
    ]);
    expect(side(d, 'u').map((f) => decodeExactLong(f.keywordValues![0]!, true))).toEqual([18446744073709551615n]);
    // the doubles stay in the numeric doc values and points
    expect(d.fields.filter((f) => f.name === 'l').map((f) => f.numericValues![0])).toEqual([9007199254740992, 1, -(2 ** 63)]);
    // without the source text (a source rebuilt by an ingest pipeline) the double's integer, clamped to the range
    const noText = mapper.parse({ l: 2 ** 63, u: Number('9007199254740993') }, 'x').doc;
    expect(side(noText, 'l').map((f) => decodeExactLong(f.keywordValues![0]!, false))).toEqual([2n ** 63n - 1n]);
    expect(side(noText, 'u').map((f) => decodeExactLong(f.keywordValues![0]!, true))).toEqual([9007199254740992n]);
    // sortable encoding: term order is numeric order
    const vals = [-(2n ** 63n), -(2n ** 53n) - 1n, 0n, 2n ** 53n + 1n, 2n ** 63n - 1n];
    const enc = vals.map((v) => encodeExactLong(v, false));
    expect([...enc].sort()).toEqual(enc);
    expect(enc.map((t) => decodeExactLong(t, false))).toEqual(vals);
  });

  it('values out of range are refused with Elasticsearch reasons, exact digits in the preview', () => {
    const err = (text: string) => {
      try {
        parseText(text);
      } catch (e) {
        const es = e as EsError;
        return [es.type, es.reason, (es.cause as EsError | undefined)?.reason];
      }
      return 'indexed';
    };
    expect(err('{"l": 9223372036854775808}')).toEqual([
      'document_parsing_exception',
      "[1:6] failed to parse field [l] of type [long] in document with id '1'. Preview of field's value: '9223372036854775808'",
      'Value [9223372036854775808] is out of range for a long',
    ]);
    expect(err('{"l": "-9223372036854775809"}')?.[2]).toBe('Value [-9223372036854775809] is out of range for a long');
    expect(err('{"u": 18446744073709551616}')?.[2]).toBe('Value "18446744073709551616" is out of range for an unsigned long');
    expect(err('{"l": 9223372036854775807, "u": 18446744073709551615}')).toBe('indexed');
  });
});

describe('exact long values: segments, merges and restarts', () => {
  let dir: string;
  let shard: IndexShardImpl;
  const open = () => new IndexShardImpl({ index: 'longs', indexUuid: 'longs-uuid', shardId: 0, dir, parse: parseBytes, manualScheduling: true });
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'exact-longs-'));
    shard = open();
  });
  afterEach(() => {
    if (!shard.isClosed) shard.close(false);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  // a deterministic mix: safe values, values around 2^53 and the ends of both ranges, multi-valued docs
  let seed = 7;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed;
  };
  const L_EDGES = [9007199254740993n, 9007199254740992n, 9007199254740994n, -9007199254740993n, 2n ** 63n - 1n, 2n ** 63n - 2n, -(2n ** 63n), -(2n ** 63n) + 1n, 42n];
  const U_EDGES = [2n ** 64n - 1n, 2n ** 64n - 2n, 2n ** 63n, 9007199254740993n, 0n, 5n];
  const pick = (a: bigint[]) => a[rnd() % a.length]!;
  const randomLong = (): bigint => {
    const r = rnd() % 3;
    if (r === 0) return pick(L_EDGES);
    if (r === 1) return BigInt(rnd() % 1000);
    return BigInt.asIntN(64, (BigInt(rnd()) << 33n) ^ (BigInt(rnd()) << 2n) ^ BigInt(rnd() % 4));
  };
  const randomUnsigned = (): bigint => (rnd() % 2 ? pick(U_EDGES) : BigInt.asUintN(64, (BigInt(rnd()) << 33n) ^ (BigInt(rnd()) << 2n)));

  const model = new Map<string, { l: bigint[]; u: bigint[] }>();
  const index = (id: string) => {
    const n = 1 + (rnd() % 3);
    const l = Array.from({ length: n }, randomLong);
    const u = [randomUnsigned()];
    // numbers as JSON numbers (the exact digits only in the text), one doc in three as strings
    const asText = (v: bigint) => (rnd() % 3 === 0 ? `"${v}"` : String(v));
    const text = `{"l":[${l.map(asText).join(',')}],"u":${asText(u[0]!)}}`;
    const bytes = Buffer.from(text);
    shard.indexDoc({ id, opType: 'index', doc: parseBytes(bytes, id) });
    model.set(id, { l: [...l].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), u });
  };

  /** every live doc's values read through ExactLongs (+ doubles) equal the model */
  const check = () => {
    shard.refreshInternal('check');
    const reader: DirectoryReader = shard.acquireReader();
    try {
      const seen = new Map<string, { l: bigint[]; u: bigint[] }>();
      for (const leaf of reader.leaves) {
        const r = leaf.reader;
        const lx = ExactLongs.of(r, 'l', 'long');
        const ux = ExactLongs.of(r, 'u', 'unsigned_long');
        const lrd = numericReader(r.numericDocValues('l')!);
        const urd = numericReader(r.numericDocValues('u')!);
        for (let d = 0; d < r.maxDoc; d++) {
          if (!r.isLive(d)) continue;
          const big = (vs: Array<number | bigint>) => vs.map((v) => BigInt(v));
          lrd.advance(d);
          urd.advance(d);
          seen.set(r.id(d), { l: big(exactValuesOf(lx, d, lrd)), u: big(exactValuesOf(ux, d, urd)) });
        }
      }
      expect(new Map([...seen].sort())).toEqual(new Map([...model].sort()));
    } finally {
      reader.decRef();
    }
  };

  it('reads back every value exactly after refreshes, a flush and restart, a restart without flush (translog), and a merge', () => {
    for (let i = 0; i < 60; i++) {
      index(`d${i}`);
      if (i % 20 === 19) shard.refreshInternal('test');
    }
    // updates replace values (the old doc is deleted in its segment)
    for (let i = 0; i < 10; i++) index(`d${i * 3}`);
    check();
    shard.flush();
    shard.close(true);
    shard = open();
    check();
    for (let i = 60; i < 80; i++) index(`d${i}`);
    // closed without a flush: the last documents come back from the translog
    shard.close(false);
    shard = open();
    check();
    shard.forceMerge(1);
    check();
    shard.close(true);
    shard = open();
    check();
    const reader = shard.acquireReader();
    try {
      expect(reader.leaves).toHaveLength(1);
    } finally {
      reader.decRef();
    }
  });

  it('unsigned_long sort keys: 0 and 2^64-1 tie with the missing values (Elasticsearch sorts shifted longs), others are exact', () => {
    const docs: Record<string, string> = { zero: '{"u":0}', max: '{"u":18446744073709551615}', below: '{"u":18446744073709551614}', five: '{"u":5}', none: '{}' };
    for (const [id, text] of Object.entries(docs)) shard.indexDoc({ id, opType: 'index', doc: parseBytes(Buffer.from(text), id) });
    shard.refreshInternal('test');
    const reader = shard.acquireReader();
    try {
      for (const [order, missing] of [['asc', '_last'], ['desc', '_first'], ['asc', '_first'], ['desc', '_last']] as const) {
        const [f] = compileSort(parseSort([{ u: { order, missing } }]), (n) => svc.fieldType(meta, n), 'longs');
        const keys: Record<string, unknown> = {};
        for (const leaf of reader.leaves) {
          const keyOf = f!.leaf(leaf);
          for (let d = 0; d < leaf.reader.maxDoc; d++) keys[leaf.reader.id(d)] = keyOf(d);
        }
        const missingKey = (order === 'asc') === (missing === '_last') ? Infinity : -Infinity;
        expect(keys).toEqual({ zero: -Infinity, max: Infinity, below: 18446744073709551614n, five: 5, none: missingKey });
      }
    } finally {
      reader.decRef();
    }
  });

  it('a segment of safe values only has no side field', () => {
    shard.indexDoc({ id: 'a', opType: 'index', doc: parseBytes(Buffer.from('{"l": 1, "u": 2}'), 'a') });
    shard.refreshInternal('test');
    const reader = shard.acquireReader();
    try {
      const r = reader.leaves[0]!.reader;
      expect(r.sortedSetDocValues(exactLongField('l'))).toBeNull();
      expect(ExactLongs.of(r, 'l', 'long')).toBeNull();
    } finally {
      reader.decRef();
    }
  });

  /** ids matched by the exact range [lo, hi] (strings of digits, as a query gives them) over every segment */
  const rangeIds = (lo: string | null, hi: string | null): string[] => {
    shard.refreshInternal('q');
    const reader = shard.acquireReader();
    try {
      const ft = svc.fieldType(meta, 'l')!;
      const q = exactLongRangeQuery(ft, lo, hi)!;
      const searcher = new IndexSearcher(reader);
      const w = searcher.createWeight(q, false);
      const out: string[] = [];
      for (const leaf of reader.leaves) {
        const sc = w.scorer(leaf);
        if (!sc) continue;
        for (let d = sc.nextDoc(); d !== NO_MORE_DOCS; d = sc.nextDoc()) if (leaf.reader.isLive(d)) out.push(leaf.reader.id(d));
      }
      return out.sort();
    } finally {
      reader.decRef();
    }
  };

  it('exact ranges: ...992 and ...993 are told apart; a segment of the older format (doubles only) matches as its doubles did', () => {
    const put = (id: string, text: string) => shard.indexDoc({ id, opType: 'index', doc: parseBytes(Buffer.from(text), id) });
    put('a', '{"l": 9007199254740992}');
    put('b', '{"l": 9007199254740993}');
    put('c', '{"l": [5, 9223372036854775807]}');
    put('d', '{"l": -9223372036854775808}');
    put('e', '{"l": 42}');
    shard.refreshInternal('test');
    // a document as segments were written before exact longs: the double only, no side field
    const legacy: ParsedDocument = { id: 'old', source: Buffer.from('{"l": 9007199254740993}'), fields: [{ name: '_id', tokens: [{ term: 'old', position: 0 }], indexOptions: 'docs' }, { name: 'l', numericValues: [2 ** 53], pointValues: [2 ** 53] }] };
    shard.indexDoc({ id: 'old', opType: 'index', doc: legacy });
    expect(rangeIds('9007199254740993', null)).toEqual(['b', 'c', 'old']);
    expect(rangeIds(null, '9007199254740992')).toEqual(['a', 'c', 'd', 'e', 'old']);
    expect(rangeIds('9007199254740993', '9007199254740993')).toEqual(['b', 'old']);
    expect(rangeIds('9223372036854775807', null)).toEqual(['c']);
    expect(rangeIds(null, '-9223372036854775808')).toEqual(['d']);
    expect(rangeIds('-9007199254740993', '9007199254740991')).toEqual(['c', 'e']);
    // safe bounds need no exact query
    expect(exactLongRangeQuery(svc.fieldType(meta, 'l')!, 1, '9007199254740991')).toBeNull();
  });
});
