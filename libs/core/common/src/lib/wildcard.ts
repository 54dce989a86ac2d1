/**
 * `*` wildcard patterns (Elasticsearch's Regex.simpleMatch): `*` matches any run of characters, every other
 * character stands for itself.
 */

/** the pattern as an anchored RegExp */
export function wildcardRegExp(pattern: string): RegExp {
  return new RegExp('^' + pattern.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$');
}
