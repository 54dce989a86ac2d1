export * from './query-parser.js';
export * from './parse-context.js';
export { termQueryFor, pointValue, withBoost, singleField, requireObject, checkKeys, requestLevel, isRequestLevel } from './parse-utils.js';
export * from './builtin-parsers.js';
export { buildMatchQuery, defaultMatchOptions, resolveFields, fieldWithBoost, type MatchOptions, type MatchType } from './parsers/match.js';
