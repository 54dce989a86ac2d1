/**
 * Painless errors as Elasticsearch reports them: a `script_exception` ("compile error" / "runtime error") with
 * `script_stack` (the statement around the error and a `^---- HERE` marker), `script`, `lang`, `position`
 * and the Java exception as `caused_by`.
 */
import { EsError } from '@strata/core-common';

/** A Java exception raised while a script runs (turned into script_exception by the caller). */
export class PainlessRuntimeError extends Error {
  constructor(
    readonly javaType: string,
    message: string,
  ) {
    super(message);
  }
}

/** bounds of the statement containing offset, as Painless's script stack shows it (at most 25 chars each side) */
function statementBounds(src: string, offset: number): { start: number; end: number } {
  let start = offset;
  while (start > 0 && offset - start < 25 && !';{}'.includes(src[start - 1]!)) start--;
  while (start < offset && /\s/.test(src[start]!)) start++;
  let end = offset;
  while (end < src.length && end - offset < 25 && !';{}'.includes(src[end]!)) end++;
  if (end < src.length && src[end] === ';') end++;
  while (end > offset + 1 && /\s/.test(src[end - 1]!)) end--;
  return { start, end: Math.max(end, Math.min(src.length, offset + 1)) };
}

export function scriptMetadata(src: string, offset: number): Record<string, unknown> {
  const off = Math.max(0, Math.min(offset, src.length));
  const { start, end } = statementBounds(src, off);
  return {
    script_stack: [src.slice(start, end), ' '.repeat(off - start) + '^---- HERE'],
    script: src,
    lang: 'painless',
    position: { offset: off, start, end },
  };
}

export function compileError(src: string, offset: number, msg: string, javaType = 'illegal_argument_exception'): EsError {
  return new EsError('script_exception', 400, 'compile error', {
    metadata: scriptMetadata(src, offset),
    cause: new EsError(javaType, 400, msg, { plain: true }),
  });
}

export function runtimeError(src: string, offset: number, err: unknown): EsError {
  let cause: EsError;
  if (err instanceof PainlessRuntimeError) cause = new EsError(err.javaType, 400, err.message, { plain: true });
  else if (err instanceof EsError) cause = err.plain ? err : new EsError(err.type, err.status, err.reason, { plain: true, metadata: err.metadata });
  else if (err instanceof RangeError) cause = new EsError('circuit_breaking_exception', 429, `[script] ${err.message}`, { plain: true });
  else cause = new EsError('exception', 500, err instanceof Error ? err.message : String(err), { plain: true });
  const status = cause.type === 'circuit_breaking_exception' ? 429 : 400;
  return new EsError('script_exception', status, 'runtime error', { metadata: scriptMetadata(src, offset), cause });
}
