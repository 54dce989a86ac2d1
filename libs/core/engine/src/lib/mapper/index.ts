export * from './field-mapper-type.js';
export * from './field-types.js';
export * from './ip.js';
export * from './geo-format.js';
export {
  normalizeRootMapping,
  mergeRootMappings,
  compileMapping,
  buildFieldType,
  simpleMatch,
  checkTotalFields,
  NestedLookup,
  type NestedMapperInfo,
  DEFAULT_DYNAMIC_DATE_FORMATS,
  type CompiledMapping,
  type MappingContext,
  type LeafMapper,
  type ObjectMapper,
  type AliasMapper,
  type Mapper,
  type Dynamic,
} from './mapping.js';
export { DefaultDocumentMapper, locateColumn, filterSourceByMapping } from './document-parser.js';
export * from './mapper-service.js';
