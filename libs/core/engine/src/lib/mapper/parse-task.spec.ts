/**
 * Bulk documents parsed in a thread (parse-task.ts) and packed (index/packed-documents.ts) give the indexing
 * buffer exactly what the event loop's parse gives it: the same fields and sources document by document, the
 * same buffer contents and the same built segment; what the thread cannot do alone (dynamic mapping updates,
 * failing documents) is left to the event loop.
 */
import { seededRandom } from '@strata/core-common';
import * as v8 from 'node:v8';
import { DefaultAnalysisRegistry } from '../analysis/analysis-registry.js';
import type { IndexMetadata } from '../cluster/metadata.js';
import { buildSegmentData, SegmentBuilder } from '../index/segment-builder.js';
import { packedDocument, unpackFields } from '../index/packed-documents.js';
import { DefaultMapperService } from './mapper-service.js';
import type { ParsedDocument, ParsedField } from './parsed-document.js';
import type { FieldMapperType } from './field-mapper-type.js';
import { runParseTask, type ParseTask } from './parse-task.js';

const svc = new DefaultMapperService(new DefaultAnalysisRegistry(), []);

function index(mappings: Record<string, unknown>, uuid: string, settings: Record<string, unknown> = {}): IndexMetadata {
  return {
    name: 'docs', uuid, settings, mappings: svc.parseMappings(mappings, settings), mappingVersion: 3, settingsVersion: 2, aliasesVersion: 1,
    aliases: {}, state: 'open', numberOfShards: 1, numberOfReplicas: 0, creationDate: 0, primaryTerms: [1],
  };
}

const MAPPINGS = {
  dynamic: true,
  properties: {
    '@timestamp': { type: 'date' },
    day: { type: 'date', format: 'yyyy/MM/dd||epoch_millis' },
    title: { type: 'text', fields: { raw: { type: 'keyword', ignore_above: 12 } }, copy_to: 'all' },
    all: { type: 'text' },
    tags: { type: 'keyword' },
    tag_text: { type: 'text', index_options: 'freqs', norms: false },
    count: { type: 'integer', ignore_malformed: true },
    big: { type: 'long' },
    price: { type: 'scaled_float', scaling_factor: 100 },
    ratio: { type: 'double' },
    ok: { type: 'boolean' },
    ip: { type: 'ip' },
    loc: { type: 'geo_point' },
    user: { properties: { name: { type: 'keyword' }, age: { type: 'short' } } },
    comments: {
      type: 'nested',
      include_in_parent: true,
      properties: { who: { type: 'keyword' }, stars: { type: 'integer' }, replies: { type: 'nested', properties: { text: { type: 'text' } } } },
    },
    nodv: { type: 'keyword', doc_values: false },
    noidx: { type: 'long', index: false },
  },
};

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'Timeout', 'checkout', 'refund', 'ÉCOLE', 'naïve', 'x', 'the', 'quick-brown', '42', 'fox_jumps'];

function randomDoc(r: () => number, i: number): Record<string, unknown> {
  const pick = <T>(a: readonly T[]): T => a[Math.floor(r() * a.length)];
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ');
  const d: Record<string, unknown> = {};
  const maybe = (p: number, k: string, v: () => unknown) => {
    if (r() < p) d[k] = v();
  };
  maybe(0.9, '@timestamp', () => (r() < 0.5 ? new Date(1_700_000_000_000 + i * 1000).toISOString() : 1_700_000_000_000 + i));
  maybe(0.3, 'day', () => (r() < 0.5 ? `2024/0${1 + (i % 9)}/1${i % 10}` : String(1_600_000_000_000 + i)));
  maybe(0.8, 'title', () => (r() < 0.2 ? [words(2), words(3)] : words(1 + Math.floor(r() * 6))));
  maybe(0.5, 'tags', () => (r() < 0.5 ? pick(WORDS) : [pick(WORDS), pick(WORDS), pick(WORDS)]));
  maybe(0.3, 'tag_text', () => [words(2), words(2)]);
  maybe(0.6, 'count', () => (r() < 0.1 ? 'not-a-number' : r() < 0.5 ? Math.floor(r() * 1000) : String(Math.floor(r() * 50))));
  maybe(0.2, 'big', () => (r() < 0.5 ? 'BIG_LONG' : -Math.floor(r() * 1e12)));
  maybe(0.3, 'price', () => Math.round(r() * 10000) / 100);
  maybe(0.3, 'ratio', () => (r() < 0.5 ? [r(), -r()] : r() * 1e6));
  maybe(0.3, 'ok', () => (r() < 0.5 ? r() < 0.5 : 'true'));
  maybe(0.3, 'ip', () => (r() < 0.7 ? `10.0.${i % 256}.${Math.floor(r() * 256)}` : `2001:db8::${(i % 65535).toString(16)}`));
  maybe(0.2, 'loc', () => (r() < 0.5 ? { lat: r() * 90, lon: r() * 180 } : `${(r() * 90).toFixed(4)},${(r() * 180).toFixed(4)}`));
  maybe(0.3, 'user', () => ({ name: pick(WORDS), age: Math.floor(r() * 99) }));
  maybe(0.25, 'comments', () =>
    Array.from({ length: 1 + Math.floor(r() * 3) }, () => ({
      who: pick(WORDS),
      stars: Math.floor(r() * 5),
      ...(r() < 0.4 ? { replies: [{ text: words(3) }, { text: words(2) }] } : {}),
    })),
  );
  maybe(0.1, 'nodv', () => pick(WORDS));
  maybe(0.1, 'noidx', () => i);
  // a field no mapping knows yet: a dynamic mapping update (the event loop's)
  maybe(0.03, `dyn_${i % 7}`, () => pick(WORDS));
  // a failing document (the event loop's error)
  maybe(0.02, 'ratio', () => 'not a double');
  return d;
}

/** what the indexing buffer reads of the event loop's fields (a token's term and position; norms or not) */
const withoutIdRouting = (fs: readonly ParsedField[]) =>
  fs
    .filter((f) => f.name !== '_id' && f.name !== '_routing')
    .map((f) => ({ ...f, norms: f.norms ? true : undefined, tokens: f.tokens?.map((t) => ({ term: t.term, position: t.position })) }));

describe('bulk documents parsed in a thread', () => {
  const meta = index(MAPPINGS, 'u-docs');
  const mapper = svc.documentMapper(meta);
  const r = seededRandom(7);
  const N = 1500;
  // a long beyond 2^53 as sent (the exact digits are read from the source text)
  const lines = Array.from({ length: N }, (_, i) => JSON.stringify(randomDoc(r, i)).replace('"BIG_LONG"', '9007199254740993'));
  const CH = 128;
  const chunks = [] as Array<ReturnType<typeof runParseTask>>;
  for (let i = 0; i < N; i += CH) {
    const task: ParseTask = {
      kind: 'parse',
      index: { name: meta.name, uuid: meta.uuid, mappingVersion: meta.mappingVersion, settingsVersion: meta.settingsVersion, mappings: meta.mappings as Record<string, unknown>, settings: meta.settings },
      sources: lines.slice(i, i + CH),
    };
    // what the thread gets and gives: a structured clone each way
    chunks.push(v8.deserialize(v8.serialize(runParseTask(v8.deserialize(v8.serialize(task))))));
  }
  /** the event loop's parse (null: it throws) */
  const mainParse = (i: number, routing?: string) => {
    try {
      return mapper.parse(JSON.parse(lines[i]), `id-${i}`, routing, lines[i]);
    } catch {
      return null;
    }
  };
  const packedOf = (i: number, routing?: string) => packedDocument(chunks[Math.floor(i / CH)].chunk!, i % CH, `id-${i}`, routing);

  it('packs each document into the fields and source of the event loop parse, and leaves out what needs the event loop', () => {
    let packed = 0;
    let left = 0;
    for (let i = 0; i < N; i++) {
      const main = mainParse(i);
      const p = packedOf(i);
      if (!p) {
        left++;
        // left out: the event loop's parse adds mappings or fails
        expect(main === null || main.dynamicMappingUpdate !== undefined).toBe(true);
        continue;
      }
      packed++;
      expect(main).not.toBeNull();
      expect(main!.dynamicMappingUpdate).toBeUndefined();
      const un = unpackFields(p.packed!);
      expect(un.root).toEqual(withoutIdRouting(main!.doc.fields));
      expect(un.nested).toEqual((main!.doc.nested ?? []).map((n) => withoutIdRouting(n.fields)));
      expect(Buffer.from(p.source!).equals(Buffer.from(main!.doc.source!))).toBe(true);
    }
    expect(packed).toBeGreaterThan(N * 0.8);
    expect(left).toBeGreaterThan(10);
  });

  it('fills the indexing buffer exactly as the parsed documents do (same snapshot, same segment)', () => {
    const a = new SegmentBuilder();
    const b = new SegmentBuilder();
    for (let i = 0; i < N; i++) {
      const routing = i % 5 === 0 ? `r${i % 3}` : undefined;
      const main = mainParse(i, routing);
      if (!main || main.dynamicMappingUpdate) continue;
      const meta = { seqNo: i, primaryTerm: 1, version: 1 + (i % 3) };
      a.add(main.doc, meta);
      const p: ParsedDocument = packedOf(i, routing) ?? main.doc;
      b.add(p, meta);
      if (i % 97 === 0) {
        a.delete(i % a.numDocs);
        b.delete(i % b.numDocs);
      }
      expect(b.ramBytesUsed).toBe(a.ramBytesUsed);
    }
    const sa = a.snapshot(true);
    const sb = b.snapshot(true);
    expect(Buffer.compare(v8.serialize(sb), v8.serialize(sa))).toBe(0);
    expect(Buffer.compare(v8.serialize(buildSegmentData(sb, 's0')), v8.serialize(buildSegmentData(sa, 's0')))).toBe(0);
    expect(b.liveDocs()).toEqual(a.liveDocs());
    for (let d = 0; d < a.numDocs; d++) {
      expect(b.storedIgnored(d)).toEqual(a.storedIgnored(d));
      expect(b.storedRouting(d)).toEqual(a.storedRouting(d));
    }
  });

  it('a mapping with a field of a plugin type is not parsed in a thread', () => {
    const ext = { type: 'join', fieldTypes: () => [] } as unknown as FieldMapperType;
    const withExt = new DefaultMapperService(new DefaultAnalysisRegistry(), [ext]);
    const base: Omit<IndexMetadata, 'uuid' | 'mappings'> = { name: 'p', settings: {}, mappingVersion: 1, settingsVersion: 1, aliasesVersion: 1, aliases: {}, state: 'open', numberOfShards: 1, numberOfReplicas: 0, creationDate: 0, primaryTerms: [1] };
    const mk = (uuid: string, mappings: Record<string, unknown>): IndexMetadata => ({ ...base, uuid, mappings });
    expect(withExt.parsableInThread(mk('p1', { properties: { a: { type: 'keyword' }, o: { properties: { j: { type: 'join' } } } } }))).toBe(false);
    expect(withExt.parsableInThread(mk('p2', { properties: { a: { type: 'text', fields: { j: { type: 'join' } } } } }))).toBe(false);
    expect(withExt.parsableInThread(mk('p3', { properties: { a: { type: 'keyword' }, o: { properties: { n: { type: 'long' } } } } }))).toBe(true);
    expect(svc.parsableInThread(mk('p4', { properties: { a: { type: 'keyword' } } }))).toBe(true);
  });

  it('routing required: the thread parses with a stand-in, the event loop adds the routing', () => {
    const m = index({ _routing: { required: true }, properties: { k: { type: 'keyword' } } }, 'u-routing');
    const task: ParseTask = {
      kind: 'parse',
      index: { name: m.name, uuid: 'u-r', mappingVersion: 1, settingsVersion: 1, mappings: m.mappings as Record<string, unknown>, settings: {} },
      sources: ['{"k":"v"}'],
    };
    const chunk = runParseTask(task).chunk!;
    const p = packedDocument(chunk, 0, 'a', 'r1')!;
    const main = svc.documentMapper(m).parse({ k: 'v' }, 'a', 'r1', '{"k":"v"}');
    const a = new SegmentBuilder();
    const b = new SegmentBuilder();
    a.add(main.doc, { seqNo: 0, primaryTerm: 1, version: 1 });
    b.add(p, { seqNo: 0, primaryTerm: 1, version: 1 });
    expect(b.snapshot(true)).toEqual(a.snapshot(true));
  });
});
