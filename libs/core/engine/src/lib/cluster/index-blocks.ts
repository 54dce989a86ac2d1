/**
 * Index blocks (`index.blocks.*` settings) as Elasticsearch applies them: cluster_block_exception.
 */
import { EsError } from '@strata/core-common';
import type { IndexMetadata } from './metadata.js';

export type BlockLevel = 'read' | 'write' | 'metadata_read' | 'metadata_write';

interface BlockDef {
  setting: string;
  levels: BlockLevel[];
  description: string;
  status: number;
}

const BLOCKS: BlockDef[] = [
  { setting: 'index.blocks.read_only', levels: ['write', 'metadata_write'], description: 'FORBIDDEN/5/index read-only (api)', status: 403 },
  { setting: 'index.blocks.read', levels: ['read'], description: 'FORBIDDEN/7/index read (api)', status: 403 },
  { setting: 'index.blocks.write', levels: ['write'], description: 'FORBIDDEN/8/index write (api)', status: 403 },
  { setting: 'index.blocks.metadata', levels: ['metadata_read', 'metadata_write'], description: 'FORBIDDEN/9/index metadata (api)', status: 403 },
  {
    setting: 'index.blocks.read_only_allow_delete',
    levels: ['write', 'metadata_write'],
    description: 'TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage watermark, index has read-only-allow-delete block',
    status: 429,
  },
];

function on(v: unknown): boolean {
  return v === true || v === 'true';
}

/** The block error for an operation of `level` on the index, or undefined when not blocked. */
export function indexBlockError(im: IndexMetadata, level: BlockLevel): EsError | undefined {
  const hits = BLOCKS.filter((b) => b.levels.includes(level) && on(im.settings[b.setting]));
  if (hits.length === 0) return undefined;
  const status = hits.some((b) => b.status === 403) ? 403 : hits[0].status;
  return new EsError('cluster_block_exception', status, `index [${im.name}] blocked by: [${hits.map((b) => b.description).join(', ')}];`);
}

/** Throws cluster_block_exception when the operation is blocked. */
export function checkIndexBlock(im: IndexMetadata, level: BlockLevel): void {
  const e = indexBlockError(im, level);
  if (e) throw e;
}
