/**
 * Index and alias name validation with Elasticsearch's exact reasons.
 */
import { EsError, Errors } from '@strata/core-common';

const INVALID_CHARS = ['\\', '/', '*', '?', '"', '<', '>', '|', ' ', ','];

function why(name: string): string | undefined {
  if (name.includes('#')) return "must not contain '#'";
  if (name.includes(':')) return "must not contain ':'";
  if (name.startsWith('_') || name.startsWith('-') || name.startsWith('+')) return "must not start with '_', '-', or '+'";
  for (const c of INVALID_CHARS) {
    if (name.includes(c)) return `must not contain the following characters [${INVALID_CHARS.join(', ')}]`;
  }
  if (name !== name.toLowerCase()) return 'must be lowercase';
  if (name === '.' || name === '..') return "must not be '.' or '..'";
  const bytes = Buffer.byteLength(name, 'utf8');
  if (bytes > 255) return `index name is too long, (${bytes} > 255)`;
  return undefined;
}

/** Throws invalid_index_name_exception ("Invalid index name [x], must be lowercase"). */
export function validateIndexName(name: string): void {
  if (name === '') throw Errors.invalidIndexName(name, 'must not be empty');
  const w = why(name);
  if (w) throw Errors.invalidIndexName(name, w);
}

/** Throws invalid_alias_name_exception. */
export function validateAliasName(alias: string, index?: string): void {
  if (!alias) throw Errors.illegalArgument(`alias name is required`);
  const w = why(alias);
  if (w && w !== 'must be lowercase') {
    throw new EsError('invalid_alias_name_exception', 400, `Invalid alias name [${alias}]: ${w}`, {
      metadata: index ? { index_uuid: '_na_', index } : {},
    });
  }
}

export function isHiddenName(name: string): boolean {
  return name.startsWith('.');
}
