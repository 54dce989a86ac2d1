/**
 * `*` wildcard patterns (Elasticsearch's Regex.simpleMatch) and the security layer's patterns
 * (`Automatons.pattern`), matched without backtracking (see regex/).
 */
import { simpleMatcher, wildcardMatcher, type StringMatcher } from './regex/glob.js';
import { LuceneRegexp } from './regex/lucene-regexp.js';

/** the pattern as a whole-string matcher: `*` matches any run of characters, every other character stands for itself */
export function wildcardRegExp(pattern: string): StringMatcher {
  return simpleMatcher(pattern);
}

/**
 * A pattern of Elasticsearch's security layer (role index names, privilege action patterns, API key name
 * filters): `/…/` is a Lucene regular expression, otherwise `*` matches any run of characters, `?` any
 * one character and `\` escapes the next character.
 */
export function automatonRegExp(pattern: string): StringMatcher {
  if (pattern.length >= 2 && pattern.startsWith('/') && pattern.endsWith('/')) {
    const re = LuceneRegexp.compile(pattern.slice(1, -1));
    return { test: (s) => re.matches(s) };
  }
  return wildcardMatcher(pattern);
}

/** the union of several security patterns */
export function automatonMatcher(patterns: readonly string[]): StringMatcher {
  const ms = patterns.map(automatonRegExp);
  return { test: (s) => ms.some((m) => m.test(s)) };
}
