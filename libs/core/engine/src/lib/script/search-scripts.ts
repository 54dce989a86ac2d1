/**
 * Search-side scripts on the shared Painless engine: the script query, script_score (query and function_score
 * function), script_fields, `_script` sort and aggregation scripts all bind a compiled script to a leaf with
 * `doc`, `params` (+ `_source`) and, for scoring, `_score` and the score functions.
 */
import { EsError, parseTimeValue, ScriptContexts, type CompiledScript, type ScriptContext, type ScriptRef, type ScriptService } from '@strata/core-common';
import { PainlessDateTime, PainlessScriptService } from '@strata/core-painless';
import type { LeafReader } from '../index/leaf-reader.js';
import type { MappedFieldType } from '../mapper/mapped-field-type.js';
import { decayValue, type DecayType } from '../search/function-score-query.js';
import { LeafScriptVars } from './doc-lookup.js';

/** the engine's script service when none is injected (unit tests, syntax-only parsing) */
export const DEFAULT_SCRIPT_SERVICE: ScriptService = new PainlessScriptService({ maxCompilationsRate: 'unlimited' });

export interface SearchScript {
  readonly ref: ScriptRef;
  readonly compiled: CompiledScript;
  readonly context: ScriptContext;
  /** a short description (`script[source]`) for toString/explain */
  readonly describe: string;
}

/** parses and compiles a request's `script` for a search context */
export function compileSearchScript(scripts: ScriptService | undefined, json: unknown, context: ScriptContext): SearchScript {
  const svc = scripts ?? DEFAULT_SCRIPT_SERVICE;
  const ref = svc.parse(json);
  const compiled = svc.compile(ref, context);
  return { ref, compiled, context, describe: `script[${ref.source ?? ref.id ?? ''}]` };
}

export type LeafRunner = (doc: number, score?: number, value?: unknown) => unknown;

/** binds a search script to one leaf: the returned function runs it for a document */
export function bindLeaf(script: SearchScript, reader: LeafReader, fieldType: (name: string) => MappedFieldType | undefined, extra: Record<string, unknown> = {}): LeafRunner {
  const vars = new LeafScriptVars(reader, fieldType, script.ref.params);
  const bag: Record<string, unknown> = { doc: vars.doc, params: vars.params, _score: 0, _value: null, ...extra };
  if (script.context.functions?.includes('saturation')) Object.assign(bag, scoreFunctions(reader, vars));
  const compiled = script.compiled;
  return (doc, score, value) => {
    vars.setDocument(doc);
    bag['_score'] = score ?? 0;
    if (value !== undefined) bag['_value'] = value;
    return compiled.run(bag);
  };
}

/** a script's result as a number (script_score, number sort, numeric aggregation scripts) */
export function toNumber(v: unknown, what: string): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v instanceof PainlessDateTime) return v.millis;
  if (v === null || v === undefined) throw new EsError('illegal_argument_exception', 400, `${what} returned null`);
  throw new EsError('class_cast_exception', 400, `Cannot cast ${typeof v === 'string' ? 'java.lang.String' : 'java.util.HashMap'} to java.lang.Number`);
}

// ------------------------------------------------------------------------------------------ score functions

const DISTANCE_UNITS: Record<string, number> = {
  mm: 0.001, cm: 0.01, m: 1, meters: 1, km: 1000, kilometers: 1000, in: 0.0254, inch: 0.0254, ft: 0.3048, feet: 0.3048,
  yd: 0.9144, yards: 0.9144, mi: 1609.344, miles: 1609.344, nmi: 1852, NM: 1852,
};

function parseDistance(s: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(s);
  if (!m) throw new EsError('illegal_argument_exception', 400, `failed to parse distance [${s}]`);
  const unit = m[2] === '' ? 'm' : m[2]!;
  const f = DISTANCE_UNITS[unit];
  if (f === undefined) throw new EsError('illegal_argument_exception', 400, `failed to parse distance [${s}]`);
  return Number(m[1]) * f;
}

function parseGeo(v: unknown): { lat: number; lon: number } {
  if (typeof v === 'string') {
    const m = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(v);
    if (m) return { lat: Number(m[1]), lon: Number(m[2]) };
  }
  if (v && typeof v === 'object' && typeof (v as { lat?: unknown }).lat === 'number') return v as { lat: number; lon: number };
  throw new EsError('illegal_argument_exception', 400, `failed to parse geo point [${String(v)}]`);
}

/** arc distance in meters (haversine) */
function arcDistance(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const R = 6371008.7714;
  const toRad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * toRad;
  const dLon = (b.lon - a.lon) * toRad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * toRad) * Math.cos(b.lat * toRad) * Math.sin(dLon / 2) ** 2;
  return 2 * R * Math.asin(Math.min(1, Math.sqrt(h)));
}

function dateMillis(v: unknown): number {
  if (v instanceof PainlessDateTime) return v.millis;
  if (typeof v === 'number') return v;
  const t = Date.parse(String(v));
  if (Number.isNaN(t)) throw new EsError('illegal_argument_exception', 400, `failed to parse date [${String(v)}]`);
  return t;
}

function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function hashString(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** saturation, sigmoid, randomScore and the decay functions of script_score scripts */
export function scoreFunctions(reader: LeafReader, vars: LeafScriptVars): Record<string, (...a: unknown[]) => unknown> {
  const n = (v: unknown) => toNumber(v, 'argument');
  const decay = (type: DecayType) => (origin: unknown, scale: unknown, offset: unknown, dec: unknown, value: unknown) =>
    decayValue(type, Math.max(0, Math.abs(n(value) - n(origin)) - n(offset)), n(scale), n(dec));
  const decayDate = (type: DecayType) => (origin: unknown, scale: unknown, offset: unknown, dec: unknown, value: unknown) =>
    decayValue(type, Math.max(0, Math.abs(dateMillis(value) - dateMillis(origin)) - parseTimeValue(String(offset), 'offset')), parseTimeValue(String(scale), 'scale'), n(dec));
  const decayGeo = (type: DecayType) => (origin: unknown, scale: unknown, offset: unknown, dec: unknown, value: unknown) =>
    decayValue(type, Math.max(0, arcDistance(parseGeo(origin), parseGeo(value)) - parseDistance(String(offset))), parseDistance(String(scale)), n(dec));
  return {
    saturation: (v, k) => n(v) / (n(k) + n(v)),
    sigmoid: (v, k, a) => Math.pow(n(v), n(a)) / (Math.pow(n(k), n(a)) + Math.pow(n(v), n(a))),
    randomScore: (seed, field) => {
      let h: number;
      if (field === undefined || field === null) h = mix32(n(seed) ^ hashString(reader.id(docOf(vars))));
      else {
        const vals = (vars.doc.get(String(field)) as { values: readonly unknown[] }).values;
        h = mix32(n(seed) ^ hashString(String(vals[0] ?? '')));
      }
      return (h & 0xffffff) / 0x1000000;
    },
    decayNumericLinear: decay('linear'),
    decayNumericExp: decay('exp'),
    decayNumericGauss: decay('gauss'),
    decayDateLinear: decayDate('linear'),
    decayDateExp: decayDate('exp'),
    decayDateGauss: decayDate('gauss'),
    decayGeoLinear: decayGeo('linear'),
    decayGeoExp: decayGeo('exp'),
    decayGeoGauss: decayGeo('gauss'),
  };
}

function docOf(vars: LeafScriptVars): number {
  return (vars.doc as unknown as { docId: number }).docId;
}

export { ScriptContexts };
