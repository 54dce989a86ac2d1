/** Elasticsearch's version / sequence-number conflict rules for index and delete operations. */
import { Errors, type EsError } from '@strata/core-common';

export type VersionType = 'internal' | 'external' | 'external_gte';

/** current state of a document as the engine sees it */
export interface CurrentDoc {
  version: number;
  seqNo: number;
  primaryTerm: number;
  deleted: boolean;
}

export interface WriteConditions {
  version?: number;
  versionType?: VersionType;
  ifSeqNo?: number;
  ifPrimaryTerm?: number;
}

export interface ConflictContext {
  index: string;
  id: string;
  shard: number;
  uuid: string;
}

function conflict(ctx: ConflictContext, reason: string): EsError {
  return Errors.versionConflict(ctx.index, ctx.id, reason, ctx.shard, ctx.uuid);
}

/** request-level validation, as ES's IndexRequest/DeleteRequest.validate() */
const NO_ERRORS: string[] = Object.freeze([]) as unknown as string[];

export function validateWriteConditions(c: WriteConditions, opType: 'index' | 'create' | 'delete'): string[] {
  // the common case: no versioning parameters at all
  if (c.version === undefined && c.versionType === undefined && c.ifSeqNo === undefined && c.ifPrimaryTerm === undefined) {
    return NO_ERRORS;
  }
  const errors: string[] = [];
  const vt = c.versionType ?? 'internal';
  if (opType === 'create') {
    if (vt !== 'internal') {
      errors.push('create operations only support internal versioning. use index instead');
      return errors;
    }
    if (c.version !== undefined) errors.push('create operations do not support explicit versions. use index instead');
    if (c.ifSeqNo !== undefined || c.ifPrimaryTerm !== undefined) {
      errors.push('create operations do not support compare and set. use index instead');
    }
  }
  const version = c.version ?? -3;
  if (vt !== 'internal' && (c.version === undefined || c.version < 0)) {
    errors.push(`illegal version value [${version}] for version type [${vt.toUpperCase()}]`);
  }
  if (vt === 'internal' && c.version !== undefined && opType !== 'create') {
    errors.push(
      'internal versioning can not be used for optimistic concurrency control. Please use `if_seq_no` and `if_primary_term` instead',
    );
  }
  if (c.ifSeqNo !== undefined && (vt !== 'internal' || c.version !== undefined)) {
    errors.push('compare and write operations can not use versioning');
  }
  if (c.ifSeqNo !== undefined && c.ifPrimaryTerm === undefined) errors.push('ifSeqNo is set, but primary term is [0]');
  if (c.ifSeqNo === undefined && c.ifPrimaryTerm !== undefined) {
    errors.push(`ifSeqNo is unassigned, but primary term is [${c.ifPrimaryTerm}]`);
  }
  return errors;
}

/**
 * Checks the conditions against the current doc and returns the version the op will get.
 * Throws version_conflict_engine_exception with ES's reasons.
 */
export function resolveVersion(
  cur: CurrentDoc | null,
  c: WriteConditions,
  opType: 'index' | 'create' | 'delete',
  ctx: ConflictContext,
): number {
  const live = cur !== null && !cur.deleted;
  if (c.ifSeqNo !== undefined) {
    const term = c.ifPrimaryTerm ?? 0;
    if (!live) {
      throw conflict(ctx, `version conflict, required seqNo [${c.ifSeqNo}], primary term [${term}] but no document was found`);
    }
    if (cur.seqNo !== c.ifSeqNo || cur.primaryTerm !== term) {
      throw conflict(
        ctx,
        `version conflict, required seqNo [${c.ifSeqNo}], primary term [${term}]. current document has seqNo [${cur.seqNo}] and primary term [${cur.primaryTerm}]`,
      );
    }
  }
  if (opType === 'create' && live) {
    throw conflict(ctx, `version conflict, document already exists (current version [${cur.version}])`);
  }
  const vt = c.versionType ?? 'internal';
  if (vt === 'internal') {
    return cur === null ? 1 : cur.version + 1;
  }
  const v = c.version as number;
  if (cur !== null) {
    if (vt === 'external' && cur.version >= v) {
      throw conflict(ctx, `version conflict, current version [${cur.version}] is higher or equal to the one provided [${v}]`);
    }
    if (vt === 'external_gte' && cur.version > v) {
      throw conflict(ctx, `version conflict, current version [${cur.version}] is higher than the one provided [${v}]`);
    }
  }
  return v;
}
