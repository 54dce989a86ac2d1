/**
 * Opaque ids of reader contexts. A PIT id and a scroll id carry the context id and the node id that
 * holds it; clients must treat them as opaque strings and send back the latest one they received.
 */
import { EsError, Errors } from '@strata/core-common';

const PIT_PREFIX = 'p';
const SCROLL_PREFIX = 's';

export interface DecodedContextId {
  kind: 'pit' | 'scroll';
  contextId: number;
  node: string;
}

function encode(prefix: string, contextId: number, node: string): string {
  return Buffer.from(`${prefix}:${node}:${contextId}`, 'utf8').toString('base64url');
}

function decode(id: string): DecodedContextId | undefined {
  if (typeof id !== 'string' || id.length === 0 || !/^[A-Za-z0-9_\-+/=]+$/.test(id)) return undefined;
  const text = Buffer.from(id.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''), 'base64url').toString('utf8');
  const m = /^([ps]):([^:]+):(\d+)$/.exec(text);
  if (!m) return undefined;
  return { kind: m[1] === PIT_PREFIX ? 'pit' : 'scroll', node: m[2]!, contextId: Number(m[3]) };
}

export function encodePitId(contextId: number, node: string): string {
  return encode(PIT_PREFIX, contextId, node);
}

export function encodeScrollId(contextId: number, node: string): string {
  return encode(SCROLL_PREFIX, contextId, node);
}

/** Decodes a scroll id; a malformed one is illegal_argument_exception "Cannot parse scroll id" as ES. */
export function decodeScrollId(id: string): DecodedContextId {
  const d = decode(id);
  if (!d || d.kind !== 'scroll') {
    throw Errors.illegalArgument('Cannot parse scroll id', new EsError('illegal_argument_exception', 400, 'invalid scroll id', { plain: true }));
  }
  return d;
}

/** Decodes a PIT id; a malformed one is illegal_argument_exception as ES ("invalid id"). */
export function decodePitId(id: string): DecodedContextId {
  const d = decode(id);
  if (!d || d.kind !== 'pit') {
    throw Errors.illegalArgument(`invalid id: [${id}]`);
  }
  return d;
}

/** Decodes a PIT or a scroll id, or undefined when it is neither. */
export function decodeAnyContextId(id: string): DecodedContextId | undefined {
  return decode(id);
}
