/**
 * Keeps data streams consistent with index deletions made anywhere (DELETE /<index>, ILM, alias
 * remove_index): a backing index leaves its stream in the same atomic update, and a stream's write index
 * cannot be deleted on its own.
 */
import { injectable } from 'inversify';
import { Errors } from '@strata/core-common';
import type { ClusterMetadata, MetadataParticipant } from '@strata/core-engine';
import { draftDataStreams, writeIndexOf } from './data-stream-metadata.js';

@injectable()
export class DataStreamMetadataParticipant implements MetadataParticipant {
  readonly name = 'data-streams';

  onDeleteIndices(names: readonly string[], draft: ClusterMetadata): void {
    const gone = new Set(names);
    const streams = draftDataStreams(draft);
    for (const ds of Object.values(streams)) {
      if (!ds.indices.some((b) => gone.has(b.index_name))) continue;
      const write = writeIndexOf(ds);
      if (gone.has(write)) {
        throw Errors.illegalArgument(`index [${write}] is the write index for data stream [${ds.name}] and cannot be deleted`);
      }
      ds.indices = ds.indices.filter((b) => !gone.has(b.index_name));
    }
  }
}
