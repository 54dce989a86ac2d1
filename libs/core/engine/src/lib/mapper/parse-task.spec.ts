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
import { packedDocument, StringTable, StringTableMirror, unpackFields, type PackedChunk } from '../index/packed-documents.js';
import { DefaultMapperService } from './mapper-service.js';
import type { ParsedDocument, ParsedField } from './parsed-document.js';
import type { FieldMapperType } from './field-mapper-type.js';
import { runParseTask, type ParseTask, type ParseTaskOutput } from './parse-task.js';

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

/** what a parse thread with `table` gives for `task` (a structured clone each way) */
const inThread = (task: ParseTask, table: StringTable): ParseTaskOutput =>
  v8.deserialize(v8.serialize(runParseTask(v8.deserialize(v8.serialize(task)) as ParseTask, table))) as ParseTaskOutput;

const taskOf = (meta: IndexMetadata, sources: string[], resetTables?: number[]): ParseTask => ({
  kind: 'parse',
  index: { name: meta.name, uuid: meta.uuid, mappingVersion: meta.mappingVersion, settingsVersion: meta.settingsVersion, mappings: meta.mappings as Record<string, unknown>, settings: meta.settings },
  sources,
  ...(resetTables ? { resetTables } : {}),
});

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
  const table = new StringTable(1);
  const mirror = new StringTableMirror(1);
  const chunks: PackedChunk[] = [];
  for (let i = 0; i < N; i += CH) chunks.push(mirror.resolve(inThread(taskOf(meta, lines.slice(i, i + CH)), table).chunk!)!);
  /** the event loop's parse (null: it throws) */
  const mainParse = (i: number, routing?: string) => {
    try {
      return mapper.parse(JSON.parse(lines[i]), `id-${i}`, routing, lines[i]);
    } catch {
      return null;
    }
  };
  const packedOf = (i: number, routing?: string) => packedDocument(chunks[Math.floor(i / CH)], i % CH, `id-${i}`, routing);

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
    const chunk = new StringTableMirror(1).resolve(runParseTask(task, new StringTable(2)).chunk!)!;
    const p = packedDocument(chunk, 0, 'a', 'r1')!;
    const main = svc.documentMapper(m).parse({ k: 'v' }, 'a', 'r1', '{"k":"v"}');
    const a = new SegmentBuilder();
    const b = new SegmentBuilder();
    a.add(main.doc, { seqNo: 0, primaryTerm: 1, version: 1 });
    b.add(p, { seqNo: 0, primaryTerm: 1, version: 1 });
    expect(b.snapshot(true)).toEqual(a.snapshot(true));
  });
});

describe("a parse thread's string table, kept from chunk to chunk, and its copy on the event loop", () => {
  const meta = index(MAPPINGS, 'u-tables');
  const mapper = svc.documentMapper(meta);
  /** the event loop's parse of a line (null: it fails or needs a mapping update, and no buffer gets it) */
  const loopParse = (line: string, i: number): ParsedDocument | null => {
    try {
      const main = mapper.parse(JSON.parse(line), `id-${i}`, undefined, line);
      return main.dynamicMappingUpdate ? null : main.doc;
    } catch {
      return null;
    }
  };

  it('a chunk carries only the strings new to its thread: a string has one id in every chunk of a table', () => {
    const table = new StringTable(5);
    const mirror = new StringTableMirror(1);
    const c1 = inThread(taskOf(meta, ['{"tags":"alpha","user":{"name":"beta"}}']), table).chunk!;
    const c2 = inThread(taskOf(meta, ['{"tags":["beta","gamma"]}', '{"user":{"name":"alpha"}}']), table).chunk!;
    expect(c1).toMatchObject({ thread: 5, generation: 0, base: 0 });
    expect(c1.added).toEqual(['tags', 'alpha', 'user.name', 'beta']);
    expect(c2).toMatchObject({ thread: 5, generation: 0, base: 4, added: ['gamma'] });
    const r1 = mirror.resolve(c1)!;
    const r2 = mirror.resolve(c2)!;
    // one array for the table, grown by each chunk
    expect(r2.strings).toBe(r1.strings);
    expect(r1.strings).toEqual(['tags', 'alpha', 'user.name', 'beta', 'gamma']);
    expect(unpackFields(packedDocument(r2, 0, 'a', undefined)!.packed!).root).toEqual(withoutIdRouting(mapper.parse({ tags: ['beta', 'gamma'] }, 'a', undefined).doc.fields));
    expect(unpackFields(packedDocument(r2, 1, 'b', undefined)!.packed!).root).toEqual(withoutIdRouting(mapper.parse({ user: { name: 'alpha' } }, 'b', undefined).doc.fields));
  });

  it('two threads, new generations, chunks applied out of order or not at all, a refresh in between: the buffers of the event loop parse', () => {
    const r = seededRandom(11);
    const N = 1600;
    const CH = 50;
    const lines = Array.from({ length: N }, (_, i) => JSON.stringify(randomDoc(r, i)).replace('"BIG_LONG"', '9007199254740993'));
    // small tables: a new generation every few chunks
    const tables = [new StringTable(21, 60, 4000), new StringTable(22, 60, 4000)];
    const mirror = new StringTableMirror(2);
    const nChunks = N / CH;
    // chunk k is parsed by thread k % 2; a thread's results arrive in the order it parsed them, the threads' interleaved
    const out: ParseTaskOutput[] = [];
    for (let k = 0; k < nChunks; k++) out.push(inThread(taskOf(meta, lines.slice(k * CH, (k + 1) * CH)), tables[k % 2]));
    const arrival = [...Array(nChunks).keys()].filter((k) => k % 2 === 1).concat([...Array(nChunks).keys()].filter((k) => k % 2 === 0));
    const resolved: PackedChunk[] = [];
    for (const k of arrival) resolved[k] = mirror.resolve(out[k].chunk!)!;
    expect(mirror.unresolved).toBe(0);
    expect(resolved.every((c) => c !== null)).toBe(true);
    expect(tables[0].generation).toBeGreaterThan(3);
    expect(tables[1].generation).toBeGreaterThan(3);
    // applied in another order (bulks of different requests), chunk 7 never (its items failed or the mapping changed)
    const applied = [...Array(nChunks).keys()].filter((k) => k !== 7);
    for (let i = applied.length - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1));
      [applied[i], applied[j]] = [applied[j], applied[i]];
    }
    let a = new SegmentBuilder();
    let b = new SegmentBuilder();
    let packed = 0;
    let seq = 0;
    const same = () => {
      expect(b.ramBytesUsed).toBe(a.ramBytesUsed);
      const sa = a.snapshot(true);
      const sb = b.snapshot(true);
      expect(sb.inverted.length).toBeGreaterThan(5);
      expect(Buffer.compare(v8.serialize(sb), v8.serialize(sa))).toBe(0);
      expect(Buffer.compare(v8.serialize(buildSegmentData(sb, 's0')), v8.serialize(buildSegmentData(sa, 's0')))).toBe(0);
    };
    for (const [n, k] of applied.entries()) {
      if (n === Math.floor(applied.length / 2)) {
        // a refresh: a new buffer, whose term ids are its own
        same();
        a = new SegmentBuilder();
        b = new SegmentBuilder();
      }
      for (let s = 0; s < CH; s++) {
        const i = k * CH + s;
        const doc = loopParse(lines[i], i);
        if (!doc) continue;
        const m = { seqNo: seq++, primaryTerm: 1, version: 1 };
        a.add(doc, m);
        const p = packedDocument(resolved[k], s, `id-${i}`, undefined);
        if (p) packed++;
        b.add(p ?? doc, m);
      }
    }
    same();
    expect(packed).toBeGreaterThan(N * 0.8);
  });

  it('a buffer keeps its term id arrays within its budget (dropped and filled again), and still fills as the event loop parse does', () => {
    const r = seededRandom(12);
    const N = 600;
    const CH = 40;
    const lines = Array.from({ length: N }, (_, i) => JSON.stringify(randomDoc(r, i)).replace('"BIG_LONG"', '9007199254740993'));
    const table = new StringTable(31);
    const mirror = new StringTableMirror(1);
    const chunks: PackedChunk[] = [];
    for (let k = 0; k < N / CH; k++) chunks.push(mirror.resolve(inThread(taskOf(meta, lines.slice(k * CH, (k + 1) * CH)), table).chunk!)!);
    const budget = 2048;
    const a = new SegmentBuilder();
    const b = new SegmentBuilder(budget);
    let seq = 0;
    for (let i = 0; i < N; i++) {
      const doc = loopParse(lines[i], i);
      if (!doc) continue;
      const m = { seqNo: seq++, primaryTerm: 1, version: 1 };
      a.add(doc, m);
      b.add(packedDocument(chunks[Math.floor(i / CH)], i % CH, `id-${i}`, undefined) ?? doc, m);
      expect(b.packedTermIdBytes).toBeLessThanOrEqual(budget);
    }
    expect(b.packedTermIdResets).toBeGreaterThan(3);
    expect(Buffer.compare(v8.serialize(b.snapshot(true)), v8.serialize(a.snapshot(true)))).toBe(0);
  });

  it('a chunk out of step with the copy is not read; the thread is told to start a new generation', () => {
    const table = new StringTable(31);
    const mirror = new StringTableMirror(1);
    const c1 = inThread(taskOf(meta, ['{"tags":"alpha"}']), table).chunk!;
    const c2 = inThread(taskOf(meta, ['{"tags":"beta"}']), table).chunk!;
    const c3 = inThread(taskOf(meta, ['{"tags":"gamma"}']), table).chunk!;
    expect(mirror.resolve(c1)).not.toBeNull();
    // c2 never arrived (its task failed): c3's ids cannot be read with the copy
    expect(mirror.resolve(c3)).toBeNull();
    expect(mirror.unresolved).toBe(1);
    expect(mirror.lostThreads()).toEqual([31]);
    // nor with a table of another generation of the thread, whatever its length
    expect(mirror.resolve({ ...c2, generation: c2.generation + 1 })).toBeNull();
    // nor a chunk of a thread never seen from its first one (a thread that replaced a crashed one has an id of its own)
    expect(mirror.resolve({ ...c2, thread: 32 })).toBeNull();
    expect(mirror.unresolved).toBe(3);
    expect(mirror.lostThreads()).toEqual([31, 32]);
    // a task telling the thread: a new generation, and the copy follows again
    const c4 = inThread(taskOf(meta, ['{"tags":"delta"}', '{"tags":"alpha"}'], mirror.lostThreads()), table).chunk!;
    expect(c4).toMatchObject({ thread: 31, generation: 1, base: 0 });
    const r4 = mirror.resolve(c4)!;
    expect(mirror.lostThreads()).toEqual([32]);
    const c5 = inThread(taskOf(meta, ['{"tags":"alpha"}']), table).chunk!;
    expect(c5).toMatchObject({ generation: 1, base: r4.strings.length, added: [] });
    expect(unpackFields(packedDocument(mirror.resolve(c5)!, 0, 'x', undefined)!.packed!).root).toEqual(withoutIdRouting(mapper.parse({ tags: 'alpha' }, 'x', undefined).doc.fields));
  });
});
