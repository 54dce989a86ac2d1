/**
 * `*` wildcard patterns (Elasticsearch's Regex.simpleMatch): `*` matches any run of characters, every other
 * character stands for itself.
 */

/** the pattern as an anchored RegExp */
export function wildcardRegExp(pattern: string): RegExp {
  return new RegExp('^' + pattern.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$');
}

/**
 * A pattern of Elasticsearch's security layer (`Automatons.pattern`: role index names, privilege action
 * patterns, API key name filters) as an anchored RegExp: `/…/` is a regular expression, otherwise `*`
 * matches any run of characters, `?` any one character and `\` escapes the next character.
 */
export function automatonRegExp(pattern: string): RegExp {
  if (pattern.length >= 2 && pattern.startsWith('/') && pattern.endsWith('/')) {
    return new RegExp('^(?:' + pattern.slice(1, -1) + ')$');
  }
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '\\' && i + 1 < pattern.length) out += pattern[++i].replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    else out += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp('^' + out + '$');
}
