import type { QueryParser } from './query-parser.js';
import { boolParser, boostingParser, constantScoreParser, disMaxParser, wrapperParser } from './parsers/compound.js';
import { nestedParser } from './parsers/nested.js';
import { functionScoreParser, scriptQueryParser, scriptScoreParser } from './parsers/function-score.js';
import { distanceFeatureParser, termsSetParser } from './parsers/feature.js';
import { moreLikeThisParser } from './parsers/more-like-this.js';
import { pinnedParser } from './parsers/pinned.js';
import {
  combinedFieldsParser,
  matchBoolPrefixParser,
  matchParser,
  matchPhraseParser,
  matchPhrasePrefixParser,
  multiMatchParser,
} from './parsers/match.js';
import { queryStringParser, simpleQueryStringParser } from './parsers/query-string.js';
import { rangeParser } from './parsers/range.js';
import {
  existsParser,
  fuzzyParser,
  idsParser,
  matchAllParser,
  matchNoneParser,
  prefixParser,
  regexpParser,
  termParser,
  termsParser,
  wildcardParser,
} from './parsers/term-level.js';

/** the clauses core registers through ExtensionPoints.QueryParser */
export const BUILTIN_QUERY_PARSERS: readonly QueryParser[] = [
  matchAllParser,
  matchNoneParser,
  termParser,
  termsParser,
  idsParser,
  existsParser,
  prefixParser,
  wildcardParser,
  regexpParser,
  fuzzyParser,
  rangeParser,
  boolParser,
  constantScoreParser,
  boostingParser,
  disMaxParser,
  nestedParser,
  functionScoreParser,
  scriptQueryParser,
  matchParser,
  matchPhraseParser,
  matchPhrasePrefixParser,
  matchBoolPrefixParser,
  multiMatchParser,
  queryStringParser,
  simpleQueryStringParser,
  combinedFieldsParser,
  wrapperParser,
  distanceFeatureParser,
  termsSetParser,
  moreLikeThisParser,
  scriptScoreParser,
  pinnedParser,
];
