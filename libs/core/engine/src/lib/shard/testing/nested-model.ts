/**
 * Test support for nested documents at the shard level: the real mapper with a nested mapping (comments `c`
 * with replies `c.r`), document generation, and a checker of the block structure of a shard's reader.
 */
import { DefaultAnalysisRegistry } from '../../analysis/analysis-registry.js';
import type { IndexMetadata } from '../../cluster/metadata.js';
import type { DirectoryReader } from '../../index/leaf-reader.js';
import { NESTED_PATH_FIELD } from '../../index/nested-blocks.js';
import type { SegmentReader } from '../../index/segment.js';
import { DefaultMapperService } from '../../mapper/mapper-service.js';
import type { ParsedDocument } from '../../mapper/parsed-document.js';

const svc = new DefaultMapperService(new DefaultAnalysisRegistry(), []);
const mappings = svc.parseMappings(
  {
    properties: {
      n: { type: 'keyword' },
      c: { type: 'nested', properties: { k: { type: 'keyword' }, r: { type: 'nested', properties: { v: { type: 'long' } } } } },
    },
  },
  {},
);
const meta: IndexMetadata = {
  name: 'nested',
  uuid: 'nested-uuid',
  settings: {},
  mappings,
  mappingVersion: 1,
  settingsVersion: 1,
  aliasesVersion: 1,
  aliases: {},
  state: 'open',
  numberOfShards: 1,
  numberOfReplicas: 0,
  creationDate: 0,
  primaryTerms: [1],
} as IndexMetadata;
const mapper = svc.documentMapper(meta);
const dec = new TextDecoder();

export interface NestedSource {
  n: string;
  c?: Array<{ k: string; r?: Array<{ v: number }> }>;
}

/** a document with `comments` comments of `replies` replies each */
export function nestedSource(tag: string, comments: number, replies: number): NestedSource {
  const src: NestedSource = { n: tag };
  if (comments > 0) {
    src.c = [];
    for (let i = 0; i < comments; i++) {
      const c: { k: string; r?: Array<{ v: number }> } = { k: `${tag}-${i}` };
      if (replies > 0) c.r = Array.from({ length: replies }, (_, j) => ({ v: i * 10 + j }));
      src.c.push(c);
    }
  }
  return src;
}

export function parseNested(source: unknown, id: string, routing?: string): ParsedDocument {
  return mapper.parse(source as Record<string, unknown>, id, routing).doc;
}

export function parseNestedBytes(bytes: Uint8Array, id: string, routing?: string): ParsedDocument {
  return parseNested(JSON.parse(dec.decode(bytes)), id, routing);
}

/** the `_nested_path` of each hidden doc of a block, in block order, as the model expects it (post-order) */
export function expectedPaths(src: NestedSource): string[] {
  const out: string[] = [];
  for (const c of src.c ?? []) {
    for (let i = 0; i < (c.r?.length ?? 0); i++) out.push('c.r');
    out.push('c');
  }
  return out;
}

/**
 * Checks every segment of the reader: blocks end with a root document, every doc of a block carries the root's
 * `_id`, a block is live or deleted as a whole, and the live roots are exactly the model's documents with their
 * `_source` and nested structure. Returns a list of violations (empty when fine).
 */
export function checkBlocks(reader: DirectoryReader, model: ReadonlyMap<string, NestedSource>): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const leaf of reader.leaves) {
    const r = leaf.reader as SegmentReader;
    const pathOf = new Array<string | null>(r.maxDoc).fill(null);
    const dict = r.terms(NESTED_PATH_FIELD);
    if (dict) for (let o = 0; o < dict.size; o++) for (const d of dict.postings(o).docs) pathOf[d] = dict.term(o);
    let start = 0;
    for (let d = 0; d < r.maxDoc; d++) {
      if (pathOf[d] !== null) continue;
      const id = r.id(d);
      const live = r.isLive(d);
      const paths: string[] = [];
      for (let x = start; x < d; x++) {
        paths.push(pathOf[x]!);
        if (r.id(x) !== id) problems.push(`${r.segmentName}: doc ${x} in the block of [${id}] has id [${r.id(x)}]`);
        if (r.isLive(x) !== live) problems.push(`${r.segmentName}: block of [${id}] split (doc ${x} live=${r.isLive(x)}, root live=${live})`);
        if (r.source(x) !== null) problems.push(`${r.segmentName}: hidden doc ${x} of [${id}] has a _source`);
      }
      if (live) {
        if (seen.has(id)) problems.push(`[${id}] is live twice`);
        seen.add(id);
        const want = model.get(id);
        if (!want) problems.push(`[${id}] is live but deleted in the model`);
        else {
          const got = dec.decode(r.source(d)!);
          if (got !== JSON.stringify(want)) problems.push(`[${id}] source ${got} != ${JSON.stringify(want)}`);
          const wp = expectedPaths(want);
          if (JSON.stringify(wp) !== JSON.stringify(paths)) problems.push(`[${id}] nested paths ${JSON.stringify(paths)} != ${JSON.stringify(wp)}`);
        }
      }
      start = d + 1;
    }
    if (start !== r.maxDoc) problems.push(`${r.segmentName}: ${r.maxDoc - start} hidden docs after the last root`);
  }
  for (const id of model.keys()) if (!seen.has(id)) problems.push(`[${id}] missing`);
  return problems;
}

/** op `n` of the crash test's deterministic sequence: an index/update with nested objects, or a delete */
export function nestedCrashOp(n: number): { id: string; source: NestedSource | null } {
  if (n % 7 === 6) return { id: String((n * 13) % 250), source: null };
  return { id: String(n % 250), source: nestedSource(`v${n}`, n % 4, (n >> 2) % 3) };
}

/** the model after the first `ops` operations of the crash sequence */
export function nestedCrashModel(ops: number): Map<string, NestedSource> {
  const m = new Map<string, NestedSource>();
  for (let n = 0; n < ops; n++) {
    const op = nestedCrashOp(n);
    if (op.source) m.set(op.id, op.source);
    else m.delete(op.id);
  }
  return m;
}
