/**
 * Indices options (`ignore_unavailable`, `allow_no_indices`, `expand_wildcards`, `ignore_throttled`): the one
 * parser every REST handler and body reader uses, with Elasticsearch's IndicesOptions semantics.
 */
import { EsError, Errors } from './errors.js';
import { addDeprecationWarning } from './request-context.js';

export interface ExpandWildcards {
  open: boolean;
  closed: boolean;
  hidden: boolean;
}

export interface IndicesOptions {
  ignoreUnavailable: boolean;
  allowNoIndices: boolean;
  expandWildcards: ExpandWildcards;
}

/** strictExpandOpen: Elasticsearch's default */
export const DEFAULT_INDICES_OPTIONS: IndicesOptions = {
  ignoreUnavailable: false,
  allowNoIndices: true,
  expandWildcards: { open: true, closed: false, hidden: false },
};

/** the REST parameters of the indices options (`ignore_throttled` only where an API lists it) */
export const INDICES_OPTIONS_PARAMS = ['ignore_unavailable', 'allow_no_indices', 'expand_wildcards'];

const NONE_WITH_OTHERS =
  "Combining the value 'none' with other options is deprecated because it is order sensitive. Please revise the expression to work without the 'none' option or only use 'none'.";

/**
 * Parses `expand_wildcards` (a comma list, or an array from a request body) as Elasticsearch does: the states
 * start empty, `open`/`closed`/`hidden` add one, `all` adds every state, `none` clears what came before it (a
 * deprecation warning when combined). Undefined keeps `base`.
 */
export function parseExpandWildcards(value: string | readonly string[] | undefined, base: ExpandWildcards = DEFAULT_INDICES_OPTIONS.expandWildcards): ExpandWildcards {
  if (value === undefined) return { ...base };
  const parts = (typeof value === 'string' ? value.split(',') : value).map((s) => String(s).trim()).filter((s) => s.length > 0);
  const out: ExpandWildcards = { open: false, closed: false, hidden: false };
  for (const p of parts) {
    switch (p) {
      case 'open':
        out.open = true;
        break;
      case 'closed':
        out.closed = true;
        break;
      case 'hidden':
        out.hidden = true;
        break;
      case 'all':
        out.open = out.closed = out.hidden = true;
        break;
      case 'none':
        out.open = out.closed = out.hidden = false;
        if (parts.length > 1) addDeprecationWarning(NONE_WITH_OTHERS);
        break;
      default:
        throw Errors.illegalArgument(`No valid expand wildcard value [${p}]`);
    }
  }
  return out;
}

/**
 * An indices-options boolean (XContentMapValues.nodeBooleanValue): blank keeps the default, otherwise only
 * `true`/`false`; anything else is `Could not convert [name] to boolean`.
 */
export function indicesOptionBoolean(name: string, value: unknown, defaultValue: boolean): boolean {
  if (value === undefined || value === null) return defaultValue;
  if (typeof value === 'boolean') return value;
  const s = String(value);
  if (s.trim() === '') return defaultValue;
  if (s === 'true') return true;
  if (s === 'false') return false;
  // both are plain Java IllegalArgumentExceptions: the root cause is the outer one, as Elasticsearch renders it
  const cause = new EsError('illegal_argument_exception', 400, `Failed to parse value [${s}] as only [true] or [false] are allowed.`, { plain: true });
  throw Errors.illegalArgument(`Could not convert [${name}] to boolean`, cause);
}

/**
 * Builds the indices options from request parameters (or body fields: `get` may return strings, booleans or
 * string arrays) over `defaults`, as IndicesOptions.fromRequest / fromMap. `ignore_throttled` is validated only
 * (there are no frozen indices to skip; the HTTP pipeline sends its deprecation warning).
 */
export function indicesOptionsFromParams(get: (name: string) => unknown, defaults: IndicesOptions = DEFAULT_INDICES_OPTIONS): IndicesOptions {
  const ew = get('expand_wildcards');
  const throttled = get('ignore_throttled');
  if (throttled !== undefined) indicesOptionBoolean('ignore_throttled', throttled, false);
  return {
    ignoreUnavailable: indicesOptionBoolean('ignore_unavailable', get('ignore_unavailable'), defaults.ignoreUnavailable),
    allowNoIndices: indicesOptionBoolean('allow_no_indices', get('allow_no_indices'), defaults.allowNoIndices),
    expandWildcards: ew === undefined || ew === null ? { ...defaults.expandWildcards } : parseExpandWildcards(Array.isArray(ew) ? ew.map(String) : String(ew), defaults.expandWildcards),
  };
}

/** the indices options of a REST request's parameters over `defaults` */
export function indicesOptionsOf(req: { param(name: string): string | undefined }, defaults: Partial<IndicesOptions> = {}): IndicesOptions {
  return indicesOptionsFromParams((n) => req.param(n), { ...DEFAULT_INDICES_OPTIONS, ...defaults });
}
