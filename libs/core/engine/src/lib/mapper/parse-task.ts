/**
 * A chunk of a bulk's documents parsed in a worker thread: each source line is parsed (JSON) and run through
 * the index's document mapper — field values, analysis into tokens — and the results are packed
 * (index/packed-documents.ts) for the event loop, which keeps everything that orders writes (ids, routing,
 * versions, seq_nos, the translog, the buffer add, the response).
 *
 * The thread's mapper is built from the index's mappings and settings alone, with the built-in analysis and
 * field types: a mapping that needs more (a field type of a plugin) is not parsed here (`chunk: null`). A document
 * is left to the event loop (its `docAt` -1) when its JSON is not an object the bulk parser takes (duplicate keys,
 * nesting too deep), when parsing it fails, adds dynamic mappings or holds an immense term:
 * the event loop parses it as it parses any document, with the same result or error as without threads.
 */
import { checkParsedJson } from '@strata/core-common';
import { DefaultAnalysisRegistry } from '../analysis/analysis-registry.js';
import { checkImmenseTerms } from '../index/immense-terms.js';
import { threadId } from 'node:worker_threads';
import { ChunkPacker, StringTable, type PackedChunk, type PackedChunkData } from '../index/packed-documents.js';
import { DefaultDocumentMapper } from './document-parser.js';
import { compileMapping, type Json, type MappingContext } from './mapping.js';

/** what identifies the mapping a chunk is parsed with */
export interface ParseTaskIndex {
  name: string;
  uuid: string;
  mappingVersion: number;
  settingsVersion: number;
  mappings: Record<string, unknown>;
  settings: Record<string, unknown>;
}

export interface ParseTask {
  kind: 'parse';
  index: ParseTaskIndex;
  /** the source lines as sent, each a JSON object */
  sources: string[];
  /** threads (`StringTable.thread`) whose string table the event loop lost track of: they start a new generation */
  resetTables?: number[];
}

/** what the thread hands back */
export interface ParseTaskOutput {
  /** null: this index's documents cannot be parsed in a thread */
  chunk: PackedChunkData | null;
}

/** the same as the event loop reads it (its chunk's strings resolved with the thread's table: `StringTableMirror`) */
export interface ParseTaskResult {
  /** null: this index's documents cannot be parsed in a thread (or the chunk could not be read) */
  chunk: PackedChunk | null;
}

interface CachedMapper {
  mappingVersion: number;
  settingsVersion: number;
  mapper: DefaultDocumentMapper | null;
}

/** per thread: the mappers of the last indices seen */
const mappers = new Map<string, CachedMapper>();
const MAX_CACHED_MAPPERS = 16;
let registry: DefaultAnalysisRegistry | null = null;
/** per thread: the string table of its chunks (thread ids are not reused in a process) */
const threadStrings = new StringTable(threadId);

function mapperFor(ix: ParseTaskIndex): DefaultDocumentMapper | null {
  const hit = mappers.get(ix.uuid);
  if (hit && hit.mappingVersion === ix.mappingVersion && hit.settingsVersion === ix.settingsVersion) return hit.mapper;
  registry ??= new DefaultAnalysisRegistry();
  const analysis = registry;
  const settings = ix.settings;
  const ctx: MappingContext = {
    analysis,
    extensions: new Map(),
    indexSettings: settings,
    analyzer: (name: string) => analysis.analyzer(name, settings),
  };
  let mapper: DefaultDocumentMapper | null;
  try {
    mapper = new DefaultDocumentMapper(ix.name, compileMapping(ix.mappings as Json, ctx), ctx);
  } catch {
    mapper = null;
  }
  if (mappers.size >= MAX_CACHED_MAPPERS && !mappers.has(ix.uuid)) mappers.delete(mappers.keys().next().value as string);
  mappers.set(ix.uuid, { mappingVersion: ix.mappingVersion, settingsVersion: ix.settingsVersion, mapper });
  return mapper;
}

/** `table`: the thread's own unless given (tests) */
export function runParseTask(task: ParseTask, table = threadStrings): ParseTaskOutput {
  const mapper = mapperFor(task.index);
  if (!mapper) return { chunk: null };
  table.startChunk(task.resetTables?.includes(table.thread));
  const packer = new ChunkPacker(table);
  for (const raw of task.sources) {
    try {
      const body = JSON.parse(raw) as unknown;
      // what the bulk parser refuses (its error is the event loop's): not an object, duplicate keys, too deep
      if (body === null || typeof body !== 'object' || Array.isArray(body) || checkParsedJson(raw, body)) {
        packer.skip();
        continue;
      }
      // the id and routing are the event loop's: `_id` and `_routing` are not packed (a mapping that requires a
      // routing gets a stand-in; the event loop refuses a document without one before it looks at the chunk)
      const r = mapper.parse(body as Record<string, unknown>, '', mapper.mapping.routingRequired ? '' : undefined, raw);
      if (r.dynamicMappingUpdate) {
        packer.skip();
        continue;
      }
      checkImmenseTerms(r.doc);
      packer.add(r.doc);
    } catch {
      packer.skip();
    }
  }
  return { chunk: packer.finish() };
}
