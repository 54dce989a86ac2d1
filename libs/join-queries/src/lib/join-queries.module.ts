import { ContainerModule } from 'inversify';
import { ExtensionPoints, type FeatureModule } from '@strata/core-common';
import { childrenAggregation, parentAggregation } from './join-aggregations.js';
import { joinFieldMapperType } from './join-field.mapper.js';
import { hasChildQueryParser, hasParentQueryParser, parentIdQueryParser } from './join.query-parsers.js';

/**
 * The join-queries feature: the `join` field type, the has_child / has_parent / parent_id clauses (with
 * inner_hits) and the children / parent aggregations, all through core extension points.
 */
export const joinQueriesModule = new ContainerModule(({ bind }) => {
  bind(ExtensionPoints.FieldMapperType).toConstantValue(joinFieldMapperType);
  bind(ExtensionPoints.QueryParser).toConstantValue(hasChildQueryParser);
  bind(ExtensionPoints.QueryParser).toConstantValue(hasParentQueryParser);
  bind(ExtensionPoints.QueryParser).toConstantValue(parentIdQueryParser);
  bind(ExtensionPoints.AggregationType).toConstantValue(childrenAggregation);
  bind(ExtensionPoints.AggregationType).toConstantValue(parentAggregation);
});

export const joinQueriesFeature: FeatureModule = { name: 'join-queries', module: joinQueriesModule };
