/**
 * The documents and mapper of the parse-thread crash test (parse-crash-child.ts and parse-crash.spec.ts): a real
 * mapping (text, keyword, numbers, dates, nested), the documents of ids 0…, and the parse the shard replays its
 * translog with (the same document mapper the event loop runs).
 */
import { DefaultAnalysisRegistry } from '../../analysis/analysis-registry.js';
import type { IndexMetadata } from '../../cluster/metadata.js';
import { DefaultMapperService } from '../../mapper/mapper-service.js';
import type { ParsedDocument } from '../../mapper/parsed-document.js';
import type { ParseTaskIndex } from '../../mapper/parse-task.js';

const svc = new DefaultMapperService(new DefaultAnalysisRegistry(), []);
const settings = {};
const mappings = svc.parseMappings(
  {
    properties: {
      msg: { type: 'text', fields: { raw: { type: 'keyword' } } },
      n: { type: 'long' },
      at: { type: 'date' },
      tags: { type: 'keyword' },
      parts: { type: 'nested', properties: { k: { type: 'keyword' }, v: { type: 'integer' } } },
    },
  },
  settings,
);

export const PARSE_CRASH_META: IndexMetadata = {
  name: 'pcrash', uuid: 'pcrash-uuid', settings, mappings, mappingVersion: 1, settingsVersion: 1, aliasesVersion: 1,
  aliases: {}, state: 'open', numberOfShards: 1, numberOfReplicas: 0, creationDate: 0, primaryTerms: [1],
};

export const PARSE_CRASH_TASK_INDEX: ParseTaskIndex = {
  name: PARSE_CRASH_META.name,
  uuid: PARSE_CRASH_META.uuid,
  mappingVersion: 1,
  settingsVersion: 1,
  mappings: mappings as Record<string, unknown>,
  settings,
};

/** the source line of doc `n` */
export function parseCrashSource(n: number): string {
  const doc: Record<string, unknown> = { msg: `message ${n} of the crash test`, n, at: 1_700_000_000_000 + n * 1000, tags: [`t${n % 5}`, `u${n % 3}`] };
  if (n % 4 === 0) doc['parts'] = [{ k: `k${n % 7}`, v: n % 11 }, { k: 'x', v: 1 }];
  return JSON.stringify(doc);
}

/** the shard's parse of a translog source (what the node's shards run on recovery) */
export function parseCrashBytes(bytes: Uint8Array, id: string, routing?: string): ParsedDocument {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return svc.documentMapper(PARSE_CRASH_META).parse(JSON.parse(text) as Record<string, unknown>, id, routing, bytes).doc;
}
