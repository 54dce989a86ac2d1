/** distance_feature and terms_set */
import { Errors, parseTimeValue } from '@strata/core-common';
import { DistanceFeatureQuery, TermsSetQuery } from '../../search/distance-feature-query.js';
import { boostOf, checkKeys, isObject, noMatch, numberValue, pointValue, requireObject, singleField, termQueryFor, withBoost } from '../parse-utils.js';
import type { QueryParser } from '../query-parser.js';

export const distanceFeatureParser: QueryParser = {
  name: 'distance_feature',
  parse(json, ctx) {
    const o = requireObject('distance_feature', json);
    checkKeys('distance_feature', o, ['field', 'origin', 'pivot']);
    if (typeof o['field'] !== 'string') throw Errors.parsing('[distance_feature] required field [field]');
    if (o['origin'] === undefined) throw Errors.parsing('[distance_feature] required field [origin]');
    if (o['pivot'] === undefined) throw Errors.parsing('[distance_feature] required field [pivot]');
    const ft = ctx.fieldType(o['field']);
    if (!ft) return noMatch('unmapped');
    if (ft.kind !== 'date' && ft.kind !== 'numeric') {
      throw Errors.illegalArgument(`Illegal data type of [${ft.type}]! [distance_feature] query can only be run on a date, date_nanos or geo_point field type!`);
    }
    const origin = pointValue(ctx, ft, o['origin'], false);
    let pivot: number;
    if (ft.kind === 'date') {
      pivot = parseTimeValue(o['pivot'], 'pivot') * (ft.type === 'date_nanos' ? 1e6 : 1);
    } else pivot = numberValue('distance_feature', 'pivot', o['pivot']);
    if (!(pivot > 0)) throw Errors.illegalArgument('[pivot] must be greater than 0');
    return withBoost(new DistanceFeatureQuery(ft.name, origin, pivot), boostOf('distance_feature', o));
  },
};

export const termsSetParser: QueryParser = {
  name: 'terms_set',
  parse(json, ctx) {
    const [field, v] = singleField('terms_set', json);
    if (!isObject(v)) throw Errors.parsing('[terms_set] query malformed, expected an object');
    checkKeys('terms_set', v, ['terms', 'minimum_should_match_field', 'minimum_should_match_script', 'minimum_should_match']);
    if (!Array.isArray(v['terms'])) throw Errors.parsing('[terms_set] requires [terms]');
    if (v['minimum_should_match_script'] !== undefined) throw Errors.parsing('[terms_set] minimum_should_match_script is not supported');
    const ft = ctx.fieldType(field);
    if (!ft) return noMatch('unmapped');
    const msmField = v['minimum_should_match_field'] === undefined ? null : String(v['minimum_should_match_field']);
    const msmConst = v['minimum_should_match'] === undefined ? 1 : numberValue('terms_set', 'minimum_should_match', v['minimum_should_match']);
    if (msmField === null && v['minimum_should_match'] === undefined) {
      throw Errors.illegalArgument('Either minimum_should_match_field or minimum_should_match_script must be set');
    }
    const terms = [...new Set(v['terms'].map(String))].map((t) => termQueryFor(ctx, ft, t));
    return withBoost(new TermsSetQuery(field, terms, msmField, msmConst), boostOf('terms_set', v));
  },
};
