export * from './lib/join-queries.module.js';
export { Joiner } from './lib/joiner.js';
export { joinFieldMapperType } from './lib/join-field.mapper.js';
export { hasChildQueryParser, hasParentQueryParser, parentIdQueryParser } from './lib/join.query-parsers.js';
export { HasChildQuery, HasParentQuery, type ChildScoreMode } from './lib/join-queries.js';
export { childrenAggregation, parentAggregation } from './lib/join-aggregations.js';
