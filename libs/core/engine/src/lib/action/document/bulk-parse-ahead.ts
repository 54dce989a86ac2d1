/**
 * The documents of a large bulk parsed ahead in the node's parse threads (mapper/parse-task.ts), in chunks, while
 * the event loop applies the items in order: each index/create item that can be (its source line as sent, an
 * open index, no ingest pipeline in view) is given a chunk and a slot in it. A few chunks are in the threads at a
 * time; a chunk is sent when the items before it start being applied.
 *
 * Nothing here decides anything: the item's write (DocumentService.indexOne) uses its packed document only when
 * the request reached the shard unchanged and the index's mapping and settings are still the ones the chunk was
 * parsed with; any other item, and any document the thread left out, is parsed on the event loop as before.
 */
import type { IndexMetadata } from '../../cluster/metadata.js';
import type { ParseTask, ParseTaskIndex, ParseTaskResult } from '../../mapper/parse-task.js';
import type { BulkItemRequest } from './document-service.js';

/** a bulk with fewer index/create documents is parsed on the event loop */
export const PARSE_AHEAD_MIN_DOCS = 128;
/** documents per chunk */
const CHUNK_DOCS = 256;
/** chunks in the threads (or done, waiting to be applied) ahead of the item being applied */
const WINDOW = 4;

/** where an item's document was parsed ahead */
export interface ParsedAhead {
  index: ParseTaskIndex;
  result: Promise<ParseTaskResult | null>;
  slot: number;
}

interface Chunk {
  task: ParseTask;
  result: Promise<ParseTaskResult | null> | null;
}

export class BulkParseAhead {
  private readonly chunks: Chunk[] = [];
  private readonly chunkOf: Int32Array;
  private readonly slotOf: Int32Array;
  private sent = 0;

  private constructor(
    n: number,
    private readonly run: (task: ParseTask) => Promise<ParseTaskResult | null> | null,
  ) {
    this.chunkOf = new Int32Array(n).fill(-1);
    this.slotOf = new Int32Array(n);
  }

  /**
   * chunks for a bulk's items, the first ones sent; null when the bulk is small or the node parses on the event
   * loop. `meta`: an index, alias or data stream name's write index, if it exists (nothing is created here).
   */
  static plan(
    items: readonly BulkItemRequest[],
    meta: (name: string) => IndexMetadata | undefined,
    run: (task: ParseTask) => Promise<ParseTaskResult | null> | null,
  ): BulkParseAhead | null {
    let docs = 0;
    for (const it of items) if (it.op === 'index' || it.op === 'create') docs++;
    if (docs < PARSE_AHEAD_MIN_DOCS) return null;
    const ahead = new BulkParseAhead(items.length, run);
    const open = new Map<string, number>();
    const metas = new Map<string, IndexMetadata | null>();
    for (let i = 0; i < items.length; i++) {
      const it = items[i];
      if ((it.op !== 'index' && it.op !== 'create') || it.bodyError || (it.body === undefined && !it.sourcePending) || typeof it.rawSource !== 'string') continue;
      if (it.pipeline !== undefined && it.pipeline !== '') continue;
      const name = it.index ?? '';
      let m = metas.get(name);
      if (m === undefined) {
        m = eligible(meta(name)) ?? null;
        metas.set(name, m);
      }
      if (!m) continue;
      let c = open.get(m.uuid);
      if (c === undefined || ahead.chunks[c].task.sources.length >= CHUNK_DOCS) {
        c = ahead.chunks.length;
        open.set(m.uuid, c);
        ahead.chunks.push({ task: { kind: 'parse', index: taskIndex(m), sources: [] }, result: null });
      }
      const srcs = ahead.chunks[c].task.sources;
      ahead.chunkOf[i] = c;
      ahead.slotOf[i] = srcs.length;
      srcs.push(it.rawSource);
    }
    if (ahead.chunks.length === 0) return null;
    if (!ahead.send(WINDOW)) return null;
    return ahead;
  }

  /** sends the chunks before `upTo`; false when the node took none */
  private send(upTo: number): boolean {
    const end = Math.min(upTo, this.chunks.length);
    for (; this.sent < end; this.sent++) {
      const c = this.chunks[this.sent];
      c.result = this.run(c.task);
      if (c.result === null) return false;
    }
    return true;
  }

  /** the chunk and slot of item `i` (undefined: parsed on the event loop); sends the chunks ahead of it */
  item(i: number): ParsedAhead | undefined {
    const c = this.chunkOf[i];
    if (c < 0) return undefined;
    this.send(c + WINDOW);
    const chunk = this.chunks[c];
    if (!chunk.result) return undefined;
    return { index: chunk.task.index, result: chunk.result, slot: this.slotOf[i] };
  }
}

/** an open index without an ingest pipeline of its own (its documents may be parsed ahead) */
function eligible(m: IndexMetadata | undefined): IndexMetadata | undefined {
  if (!m || m.state === 'close') return undefined;
  const s = m.settings as Record<string, unknown>;
  for (const k of ['index.default_pipeline', 'index.final_pipeline']) {
    const v = s[k];
    if (v !== undefined && v !== null && v !== '' && v !== '_none') return undefined;
  }
  return m;
}

function taskIndex(m: IndexMetadata): ParseTaskIndex {
  return {
    name: m.name,
    uuid: m.uuid,
    mappingVersion: m.mappingVersion,
    settingsVersion: m.settingsVersion,
    mappings: m.mappings as Record<string, unknown>,
    settings: m.settings as Record<string, unknown>,
  };
}
