import { EsError, Errors, parseTimeValue } from '@strata/core-common';
import { MatchAllDocsQuery } from '../../search/basic-queries.js';
import {
  FunctionScoreQuery,
  decayFunction,
  fieldValueFactorFunction,
  randomScoreFunction,
  scriptScoreFunction,
  type BoostMode,
  type DecayType,
  type FieldValueModifier,
  type FilterFunction,
  type MultiValueMode,
  type ScoreFunction,
  type ScoreMode,
} from '../../search/function-score-query.js';
import { boostOf, isObject, numberValue, pointValue, requireObject, withBoost, type Json } from '../parse-utils.js';
import type { QueryParseContext, QueryParser } from '../query-parser.js';
import { ScriptContexts } from '@strata/core-common';
import { bindLeaf, compileSearchScript, toNumber } from '../../script/search-scripts.js';
import { DocIdSetBuilder } from '../../search/doc-id-set.js';
import type { IndexSearcher } from '../../search/index-searcher.js';
import { ConstantScoreWeight, Query, type Weight } from '../../search/query.js';
import type { MappedFieldType } from '../../mapper/mapped-field-type.js';

const FUNCTION_KEYS = new Set(['weight', 'field_value_factor', 'gauss', 'exp', 'linear', 'random_score', 'script_score']);
const SCORE_MODES = ['multiply', 'sum', 'avg', 'first', 'max', 'min'];
const BOOST_MODES = ['multiply', 'replace', 'sum', 'avg', 'max', 'min'];

function parseFunction(o: Json, ctx: QueryParseContext): ScoreFunction | null {
  let fn: ScoreFunction | null = null;
  for (const [k, v] of Object.entries(o)) {
    if (k === 'weight' || k === 'filter') continue;
    if (!FUNCTION_KEYS.has(k)) throw Errors.parsing(`failed to parse [function_score] query. unknown function [${k}]`);
    if (fn) throw Errors.parsing(`failed to parse function_score functions. already found [${fn.describe}], now encountering [${k}].`);
    if (k === 'field_value_factor') fn = parseFieldValueFactor(v, ctx);
    else if (k === 'gauss' || k === 'exp' || k === 'linear') fn = parseDecay(k, v, ctx);
    else if (k === 'script_score') {
      const o = requireObject('script_score', v);
      fn = scriptScore(o['script'], ctx, (v) => (v < 0 ? `script score function must not produce negative scores, but got: [${javaFloat(v)}]` : undefined));
    } else if (k === 'random_score') {
      const o = requireObject('random_score', v);
      const seed = o['seed'] === undefined ? Math.floor(ctx.nowMillis() % 2147483647) : typeof o['seed'] === 'string' ? hashSeed(o['seed']) : Math.trunc(numberValue('random_score', 'seed', o['seed']));
      if (o['seed'] === undefined) ctx.markNowUsed();
      const field = o['field'] === undefined ? undefined : String(o['field']);
      fn = randomScoreFunction(seed, field === '_seq_no' ? undefined : field, hashSeed(ctx.indexName));
    } else throw Errors.parsing(`[function_score] function [${k}] is not supported`);
  }
  return fn;
}

function parseFieldValueFactor(v: unknown, ctx: QueryParseContext): ScoreFunction {
  const o = requireObject('field_value_factor', v);
  const field = o['field'];
  if (typeof field !== 'string') throw Errors.parsing('[field_value_factor] required field \'field\' missing');
  const factor = o['factor'] === undefined ? 1 : numberValue('field_value_factor', 'factor', o['factor']);
  const modifier = (o['modifier'] === undefined ? 'none' : String(o['modifier']).toLowerCase()) as FieldValueModifier;
  if (!['none', 'log', 'log1p', 'log2p', 'ln', 'ln1p', 'ln2p', 'square', 'sqrt', 'reciprocal'].includes(modifier)) {
    throw Errors.illegalArgument(`Illegal modifier: ${String(o['modifier'])}`);
  }
  const missing = o['missing'] === undefined ? undefined : numberValue('field_value_factor', 'missing', o['missing']);
  const ft = ctx.fieldType(field);
  if (ft && ft.kind !== 'numeric' && ft.kind !== 'date' && ft.kind !== 'boolean') {
    throw Errors.illegalArgument(`Field [${field}] of type [${ft.type}] is not supported for aggregation [field_value_factor]`);
  }
  return fieldValueFactorFunction(field, factor, modifier, missing);
}

function parseDecay(type: DecayType, v: unknown, ctx: QueryParseContext): ScoreFunction {
  const o = requireObject(type, v);
  let field: string | undefined;
  let params: Json | undefined;
  let mode: MultiValueMode = 'min';
  for (const [k, val] of Object.entries(o)) {
    if (k === 'multi_value_mode') {
      const m = String(val).toLowerCase();
      if (!['min', 'max', 'avg', 'sum'].includes(m)) throw Errors.illegalArgument(`Unknown MultiValueMode [${m}]`);
      mode = m as MultiValueMode;
    } else {
      field = k;
      params = requireObject(type, val);
    }
  }
  if (!field || !params) throw Errors.parsing(`[${type}] malformed score function score, missing field`);
  const ft = ctx.fieldType(field);
  if (!ft) throw Errors.illegalArgument(`unknown field [${field}]`);
  if (params['scale'] === undefined) throw Errors.parsing(`[${type}] must be set for numeric fields.`);
  const decay = params['decay'] === undefined ? 0.5 : numberValue(type, 'decay', params['decay']);
  if (decay <= 0 || decay >= 1) throw Errors.illegalArgument(`decay must be in the range [0..1].`);
  if (ft.kind === 'date') {
    const origin = params['origin'] === undefined ? ctx.nowMillis() : pointValue(ctx, ft, params['origin'], false);
    if (params['origin'] === undefined) ctx.markNowUsed();
    const unit = ft.type === 'date_nanos' ? 1e6 : 1;
    const scale = parseTimeValue(params['scale'], 'scale') * unit;
    const offset = params['offset'] === undefined ? 0 : parseTimeValue(params['offset'], 'offset') * unit;
    return decayFunction(type, field, origin, scale, offset, decay, mode);
  }
  if (ft.kind !== 'numeric') throw Errors.illegalArgument(`field [${field}] is of type [${ft.type}], but only numeric types are supported.`);
  if (params['origin'] === undefined) throw Errors.illegalArgument(`[${type}] must be set for numeric fields.`);
  const origin = numberValue(type, 'origin', params['origin']);
  const scale = numberValue(type, 'scale', params['scale']);
  const offset = params['offset'] === undefined ? 0 : numberValue(type, 'offset', params['offset']);
  return decayFunction(type, field, origin, scale, offset, decay, mode);
}

export const functionScoreParser: QueryParser = {
  name: 'function_score',
  parse(json, ctx) {
    const o = requireObject('function_score', json);
    let query = undefined as ReturnType<QueryParseContext['parseInnerQuery']> | undefined;
    const functions: FilterFunction[] = [];
    let scoreMode: ScoreMode = 'multiply';
    let boostMode: BoostMode = 'multiply';
    let maxBoost = Number.MAX_VALUE;
    let minScore: number | null = null;
    let inline: Json | null = null;
    for (const [k, v] of Object.entries(o)) {
      switch (k) {
        case 'query':
          query = ctx.parseInnerQuery(v);
          break;
        case 'functions':
          if (!Array.isArray(v)) throw Errors.parsing('[function_score] query does not support [functions] of this type');
          for (const f of v) {
            if (!isObject(f)) throw Errors.parsing('failed to parse [function_score] query. malformed function');
            const filter = f['filter'] === undefined ? undefined : ctx.parseInnerQuery(f['filter']);
            const weight = f['weight'] === undefined ? undefined : numberValue('function_score', 'weight', f['weight']);
            const fn = parseFunction(f, ctx);
            if (!fn && weight === undefined) throw Errors.parsing('failed to parse [function_score] query. function must have a score function or weight');
            functions.push({ filter, weight, fn });
          }
          break;
        case 'score_mode':
          if (!SCORE_MODES.includes(String(v))) throw Errors.illegalArgument(`failed to parse [function_score] query. illegal score_mode [${String(v)}]`);
          scoreMode = v as ScoreMode;
          break;
        case 'boost_mode':
          if (!BOOST_MODES.includes(String(v))) throw Errors.illegalArgument(`failed to parse [function_score] query. illegal boost_mode [${String(v)}]`);
          boostMode = v as BoostMode;
          break;
        case 'max_boost':
          maxBoost = numberValue('function_score', k, v);
          break;
        case 'min_score':
          minScore = numberValue('function_score', k, v);
          break;
        case 'boost':
        case '_name':
          break;
        default:
          if (FUNCTION_KEYS.has(k)) {
            inline = inline ?? {};
            inline[k] = v;
          } else throw Errors.parsing(`function_score query does not support [${k}]`);
      }
    }
    if (inline) {
      if (functions.length > 0) {
        throw Errors.parsing('failed to parse [function_score] query. already found [functions] array, now encountering [' + Object.keys(inline)[0] + '].');
      }
      const weight = inline['weight'] === undefined ? undefined : numberValue('function_score', 'weight', inline['weight']);
      functions.push({ weight, fn: parseFunction(inline, ctx) });
    }
    const q = new FunctionScoreQuery(query ?? new MatchAllDocsQuery(), functions, scoreMode, boostMode, maxBoost, minScore);
    return withBoost(q, boostOf('function_score', o));
  },
};

function hashSeed(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** script_score query: the script's value replaces the query score */
export const scriptScoreParser: QueryParser = {
  name: 'script_score',
  parse(json, ctx) {
    const o = requireObject('script_score', json);
    for (const k of Object.keys(o)) {
      if (!['query', 'script', 'min_score', 'boost', '_name'].includes(k)) throw Errors.parsing(`[script_score] query does not support [${k}]`);
    }
    if (o['query'] === undefined) throw Errors.parsing('[script_score] requires \'query\' field');
    if (o['script'] === undefined) throw Errors.parsing('[script_score] requires \'script\' field');
    const query = ctx.parseInnerQuery(o['query']);
    const fn = scriptScore(o['script'], ctx, (v, doc) => (v < 0 || Number.isNaN(v) ? `script_score script returned an invalid score [${javaFloat(v)}] for doc [${doc}]. Must be a non-negative score!` : undefined));
    const minScore = o['min_score'] === undefined ? null : numberValue('script_score', 'min_score', o['min_score']);
    const q = new FunctionScoreQuery(query, [{ fn }], 'multiply', 'replace', Number.MAX_VALUE, minScore);
    return withBoost(q, boostOf('script_score', o));
  },
};

/** Java's Float.toString of a score (`-1.0`, `0.5`, `NaN`) */
function javaFloat(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  const f = Math.fround(v);
  return Number.isInteger(f) ? `${f}.0` : String(f);
}

function scriptScore(json: unknown, ctx: QueryParseContext, invalid: (score: number, doc: number) => string | undefined): ScoreFunction {
  const script = compileSearchScript(ctx.scripts, json, ScriptContexts.SCORE);
  const fieldType = (n: string) => ctx.fieldType(n);
  return scriptScoreFunction(
    script.describe,
    (leaf) => {
      const run = bindLeaf(script, leaf.reader, fieldType);
      return (doc, score) => toNumber(run(doc, score), 'script_score script');
    },
    invalid,
  );
}

/** `script` query: documents for which the filter script returns true (a scan of the segment, like ES) */
export class ScriptQuery extends Query {
  constructor(
    readonly script: ReturnType<typeof compileSearchScript>,
    private readonly fieldType: (name: string) => MappedFieldType | undefined,
  ) {
    super();
  }
  createWeight(_s: IndexSearcher, _needsScores: boolean, boost: number): Weight {
    return new ConstantScoreWeight(this, boost, (ctx) => {
      const run = bindLeaf(this.script, ctx.reader, this.fieldType);
      const b = new DocIdSetBuilder(ctx.reader.maxDoc);
      const max = ctx.reader.maxDoc;
      for (let d = 0; d < max; d++) {
        if (!ctx.reader.isLive(d)) continue;
        const r = run(d);
        if (r === true) b.add(d);
        else if (r !== false) {
          throw new EsError('class_cast_exception', 400, `Cannot cast ${r === null ? 'null' : typeof r === 'number' ? 'java.lang.Integer' : 'java.lang.Object'} to boolean`, { plain: true });
        }
      }
      return b.build();
    });
  }
  toString(): string {
    return `ScriptQuery(${this.script.describe})`;
  }
}

export const scriptQueryParser: QueryParser = {
  name: 'script',
  parse(json, ctx) {
    const o = requireObject('script', json);
    for (const k of Object.keys(o)) {
      if (!['script', 'boost', '_name'].includes(k)) throw Errors.parsing(`[script] query does not support [${k}]`);
    }
    if (o['script'] === undefined) throw Errors.parsing('script must be provided with a [script] filter');
    const script = compileSearchScript(ctx.scripts, o['script'], ScriptContexts.FILTER);
    return withBoost(new ScriptQuery(script, (n) => ctx.fieldType(n)), boostOf('script', o));
  },
};
