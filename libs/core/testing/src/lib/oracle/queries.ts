/**
 * Query kinds: generators and naive evaluators of term-level, full-text and compound queries, from the
 * Elasticsearch Query DSL reference.
 */
import fc from 'fast-check';
import type { EvalContext, GenContext, QueryKind } from './kinds.js';
import {
  IP_CIDRS,
  compareKey,
  compareUtf8,
  dateMillis,
  fieldOf,
  ipHex,
  isNumeric,
  keyOf,
  minShouldMatch,
  storedNumber,
  tokens,
  valuesOf,
  type Json,
  type ModelDoc,
  type OracleField,
} from './model.js';
import { DAYS, KEYWORDS, WORDS, scalarValue } from './values.js';

/** a field name that is never mapped: queries on it match nothing (exists included) */
export const UNMAPPED_FIELD = 'unmapped_f';

const one = <T>(x: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...x);

function fieldArb(fields: OracleField[]): fc.Arbitrary<OracleField> | null {
  return fields.length === 0 ? null : one(fields);
}

/** does a document value equal a query value, for the field's type */
function sameValue(f: OracleField, docValue: unknown, queryValue: unknown): boolean {
  switch (f.type) {
    case 'keyword':
      return String(docValue) === String(queryValue);
    case 'ip':
      return ipHex(String(docValue)) === ipHex(String(queryValue));
    case 'date':
      return dateMillis(docValue) === dateMillis(queryValue);
    case 'boolean':
      return keyOf('boolean', docValue) === keyOf('boolean', queryValue);
    default:
      return storedNumber(f.type, docValue) === storedNumber(f.type, queryValue);
  }
}

function termMatches(f: OracleField, doc: ModelDoc, value: unknown): boolean {
  if (f.type === 'text') return valuesOf(doc, f.name).some((v) => tokens(String(v)).includes(String(value)));
  if (f.type === 'ip' && String(value).includes('/')) {
    const c = IP_CIDRS.find((x) => x.text === value)!;
    return valuesOf(doc, f.name).some((v) => {
      const h = ipHex(String(v));
      return h >= c.lo && h <= c.hi;
    });
  }
  return valuesOf(doc, f.name).some((v) => sameValue(f, v, value));
}

/** a value to look for: mostly from the field's pool; for ip sometimes a CIDR block */
function queryValue(f: OracleField): fc.Arbitrary<unknown> {
  if (f.type === 'text') return one(WORDS);
  if (f.type === 'ip') return fc.oneof({ weight: 3, arbitrary: scalarValue('ip') }, { weight: 1, arbitrary: one(IP_CIDRS.map((c) => c.text)) });
  if (f.type === 'date') return scalarValue('date').map((d) => (typeof d === 'number' ? new Date(d).toISOString() : d));
  if (f.type === 'boolean') return fc.boolean();
  return scalarValue(f.type);
}

const TERM_TYPES = ['keyword', 'text', 'long', 'integer', 'double', 'float', 'date', 'ip', 'boolean'] as const;

const term: QueryKind = {
  names: ['term'],
  weight: 3,
  arbitrary(ctx) {
    const fa = fieldArb(ctx.fields(...TERM_TYPES));
    if (!fa) return null;
    return fc.oneof(
      { weight: 10, arbitrary: fa.chain((f) => queryValue(f).map((v) => ({ term: { [f.name]: v } }))) },
      { weight: 1, arbitrary: fc.constant({ term: { [UNMAPPED_FIELD]: 'a' } }) },
    );
  },
  matches(_n, body, doc, ctx) {
    const [[field, spec]] = Object.entries(body as Json);
    const f = fieldOf(ctx.mapping, field);
    if (!f) return false;
    const value = spec !== null && typeof spec === 'object' ? (spec as Json)['value'] : spec;
    return termMatches(f, doc, value);
  },
};

const terms: QueryKind = {
  names: ['terms'],
  weight: 2,
  arbitrary(ctx) {
    const fa = fieldArb(ctx.fields('keyword', 'long', 'integer', 'ip', 'boolean'));
    if (!fa) return null;
    return fa.chain((f) => fc.array(queryValue(f), { minLength: 1, maxLength: 4 }).map((vs) => ({ terms: { [f.name]: vs } })));
  },
  matches(_n, body, doc, ctx) {
    const [[field, values]] = Object.entries(body as Json).filter(([k]) => k !== 'boost');
    const f = fieldOf(ctx.mapping, field);
    if (!f) return false;
    return (values as unknown[]).some((v) => termMatches(f, doc, v));
  },
};

type Bound = 'gt' | 'gte' | 'lt' | 'lte';

/** a range bound value for a field: pool values, fractional numbers, date-only days */
function boundValue(f: OracleField): fc.Arbitrary<unknown> {
  if (f.type === 'date') return fc.oneof(queryValue(f), one(DAYS));
  if (f.type === 'long' || f.type === 'integer') return fc.oneof(scalarValue(f.type), fc.integer({ min: -6, max: 26 }).map((k) => k / 2));
  if (f.type === 'ip') return scalarValue('ip');
  return queryValue(f);
}

/**
 * Date bounds parse with rounding (DateMathParser): a date-only `gt`/`lte` means the end of that day,
 * `gte`/`lt` its start; full timestamps are exact (the pool has whole seconds).
 */
function dateBound(op: Bound, v: unknown): number {
  const s = String(v);
  if (/^\d{4}-\d{2}-\d{2}$/.test(s)) {
    const start = Date.parse(s + 'T00:00:00Z');
    return op === 'gt' || op === 'lte' ? start + 86_400_000 - 1 : start;
  }
  return dateMillis(v);
}

const range: QueryKind = {
  names: ['range'],
  weight: 3,
  arbitrary(ctx) {
    const fa = fieldArb(ctx.fields('keyword', 'long', 'integer', 'double', 'float', 'date', 'ip'));
    if (!fa) return null;
    return fa.chain((f) =>
      fc
        .record(
          {
            lower: fc.option(fc.tuple(one(['gt', 'gte'] as const), boundValue(f)), { nil: undefined }),
            upper: fc.option(fc.tuple(one(['lt', 'lte'] as const), boundValue(f)), { nil: undefined }),
          },
          { requiredKeys: [] },
        )
        .map(({ lower, upper }) => {
          const spec: Json = {};
          if (lower) spec[lower[0]] = lower[1];
          if (upper) spec[upper[0]] = upper[1];
          return { range: { [f.name]: spec } };
        }),
    );
  },
  matches(_n, body, doc, ctx) {
    const [[field, spec]] = Object.entries(body as Json);
    const f = fieldOf(ctx.mapping, field);
    if (!f) return false;
    const bounds = Object.entries(spec as Json) as [Bound, unknown][];
    return valuesOf(doc, f.name).some((v) =>
      bounds.every(([op, b]) => {
        let c: number;
        if (f.type === 'date') {
          const dv = dateMillis(v);
          const bv = dateBound(op, b);
          c = dv < bv ? -1 : dv > bv ? 1 : 0;
        } else if (isNumeric(f.type)) {
          // the bound is a double; float fields compare their float32 value with the (float-rounded) bound
          const dv = storedNumber(f.type, v);
          const bv = f.type === 'float' ? Math.fround(Number(b)) : Number(b);
          c = dv < bv ? -1 : dv > bv ? 1 : 0;
        } else {
          c = compareKey(f.type, keyOf(f.type, v), keyOf(f.type, b));
        }
        return op === 'gt' ? c > 0 : op === 'gte' ? c >= 0 : op === 'lt' ? c < 0 : c <= 0;
      }),
    );
  },
};

const exists: QueryKind = {
  names: ['exists'],
  arbitrary(ctx) {
    const names = [...ctx.mapping.fields.map((f) => f.name), UNMAPPED_FIELD];
    return one(names).map((field) => ({ exists: { field } }));
  },
  matches(_n, body, doc, ctx) {
    const field = String((body as Json)['field']);
    return fieldOf(ctx.mapping, field) !== undefined && valuesOf(doc, field).length > 0;
  },
};

const prefix: QueryKind = {
  names: ['prefix'],
  arbitrary(ctx) {
    const fa = fieldArb(ctx.fields('keyword'));
    if (!fa) return null;
    return fa.chain((f) => one(['a', 'ab', 'x', 'B', 'é', '😀', 'abcd']).map((p) => ({ prefix: { [f.name]: p } })));
  },
  matches(_n, body, doc, ctx) {
    const [[field, p]] = Object.entries(body as Json);
    if (!fieldOf(ctx.mapping, field)) return false;
    return valuesOf(doc, field).some((v) => String(v).startsWith(String(p)));
  },
};

/** Lucene wildcard: `*` any sequence, `?` one code point */
function wildcardRegExp(pattern: string): RegExp {
  let re = '';
  for (const ch of pattern) {
    if (ch === '*') re += '[\\s\\S]*';
    else if (ch === '?') re += '[\\s\\S]';
    else re += ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 'u');
}

const wildcard: QueryKind = {
  names: ['wildcard'],
  arbitrary(ctx) {
    const fa = fieldArb(ctx.fields('keyword'));
    if (!fa) return null;
    return fa.chain((f) => one(['a*', '?', '??', '*b*', 'a?c', '*', '?y', 'x*', '*😀']).map((p) => ({ wildcard: { [f.name]: { value: p } } })));
  },
  matches(_n, body, doc, ctx) {
    const [[field, spec]] = Object.entries(body as Json);
    if (!fieldOf(ctx.mapping, field)) return false;
    const re = wildcardRegExp(String((spec as Json)['value']));
    return valuesOf(doc, field).some((v) => re.test(String(v)));
  },
};

/** optimal string alignment distance over code points (Lucene's Levenshtein automata with transpositions) */
function osaDistance(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  const d: number[][] = Array.from({ length: x.length + 1 }, (_, i) => Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[x.length]![y.length]!;
}

const fuzzy: QueryKind = {
  names: ['fuzzy'],
  arbitrary(ctx) {
    const fa = fieldArb(ctx.fields('keyword'));
    if (!fa) return null;
    return fa.chain((f) =>
      fc
        .record({ value: one(['abd', 'bac', 'x yz', 'a😀c', 'ab😀', 'bb', 'ab', 'zzz', 'é']), fuzziness: one(['AUTO', 0, 1, 2, '1']) })
        .map(({ value, fuzziness }) => ({ fuzzy: { [f.name]: { value, fuzziness } } })),
    );
  },
  matches(_n, body, doc, ctx) {
    const [[field, spec]] = Object.entries(body as Json);
    if (!fieldOf(ctx.mapping, field)) return false;
    const s = spec as Json;
    const value = String(s['value']);
    // Fuzziness.AUTO: 0 edits up to 2 code points, 1 up to 5, then 2
    const len = [...value].length;
    const edits = s['fuzziness'] === 'AUTO' ? (len <= 2 ? 0 : len <= 5 ? 1 : 2) : Number(s['fuzziness']);
    return valuesOf(doc, field).some((v) => osaDistance(String(v), value) <= edits);
  },
};

const regexp: QueryKind = {
  names: ['regexp'],
  arbitrary(ctx) {
    const fa = fieldArb(ctx.fields('keyword'));
    if (!fa) return null;
    return fa.chain((f) => one(['a.*', '[ab]+', 'ab?c?', 'x .', '.', '..', 'a|b', '😀', '.😀|ｚ', '[^a]', 'a{1,2}b?']).map((p) => ({ regexp: { [f.name]: p } })));
  },
  matches(_n, body, doc, ctx) {
    const [[field, pattern]] = Object.entries(body as Json);
    if (!fieldOf(ctx.mapping, field)) return false;
    // Lucene regular expressions match the whole term, `.` is one code point
    const re = new RegExp(`^(?:${String(pattern)})$`, 'u');
    return valuesOf(doc, field).some((v) => re.test(String(v)));
  },
};

const ids: QueryKind = {
  names: ['ids'],
  arbitrary() {
    return fc.uniqueArray(fc.integer({ min: 0, max: 30 }), { minLength: 1, maxLength: 5 }).map((xs) => ({ ids: { values: xs.map(String) } }));
  },
  matches(_n, body, doc) {
    return ((body as Json)['values'] as string[]).includes(doc.id);
  },
};

const MSM_SPECS = [1, 2, 3, '1', '2', '-1', '50%', '75%', '100%', '-25%', '150%'] as const;

const match: QueryKind = {
  names: ['match'],
  weight: 2,
  arbitrary(ctx) {
    const fa = fieldArb(ctx.fields('text'));
    if (!fa) return null;
    return fa.chain((f) =>
      fc
        .record({
          words: fc.array(one(WORDS), { minLength: 1, maxLength: 4 }),
          mode: fc.oneof(
            fc.constant({}),
            fc.constant({ operator: 'and' }),
            one(MSM_SPECS).map((m) => ({ minimum_should_match: m })),
          ),
        })
        .map(({ words, mode }) => ({ match: { [f.name]: { query: words.join(' '), ...mode } } })),
    );
  },
  matches(_n, body, doc, ctx) {
    const [[field, spec]] = Object.entries(body as Json);
    if (!fieldOf(ctx.mapping, field)) return false;
    const s = spec as Json;
    const q = tokens(String(s['query']));
    const docTokens = new Set(valuesOf(doc, field).flatMap((v) => tokens(String(v))));
    const hits = q.filter((t) => docTokens.has(t)).length;
    if (q.length === 1) return hits === 1; // a single term is a term query: no minimum_should_match
    if (s['operator'] === 'and') return hits === q.length;
    const msm = s['minimum_should_match'] === undefined ? 1 : Math.max(1, minShouldMatch(q.length, s['minimum_should_match'] as string));
    return hits >= msm;
  },
};

const matchPhrase: QueryKind = {
  names: ['match_phrase'],
  arbitrary(ctx) {
    const fa = fieldArb(ctx.fields('text'));
    if (!fa) return null;
    return fa.chain((f) => fc.array(one(WORDS), { minLength: 1, maxLength: 3 }).map((w) => ({ match_phrase: { [f.name]: w.join(' ') } })));
  },
  matches(_n, body, doc, ctx) {
    const [[field, phrase]] = Object.entries(body as Json);
    if (!fieldOf(ctx.mapping, field)) return false;
    const q = tokens(String(phrase));
    // each value is its own run of positions (position_increment_gap 100): a phrase never spans values
    return valuesOf(doc, field).some((v) => {
      const t = tokens(String(v));
      for (let i = 0; i + q.length <= t.length; i++) if (q.every((w, j) => t[i + j] === w)) return true;
      return false;
    });
  },
};

type Occur = 'must' | 'should' | 'filter' | 'must_not';

const bool: QueryKind = {
  names: ['bool'],
  weight: 3,
  arbitrary(ctx, depth) {
    if (depth <= 0) return null;
    const sub = fc.array(ctx.query(depth - 1), { minLength: 0, maxLength: 3 });
    return fc
      .record({ must: sub, should: sub, filter: sub, must_not: sub, msm: fc.option(one(MSM_SPECS), { nil: undefined }) })
      .map(({ must, should, filter, must_not, msm }) => {
        const b: Json = {};
        if (must.length) b['must'] = must;
        if (should.length) b['should'] = should;
        if (filter.length) b['filter'] = filter;
        if (must_not.length) b['must_not'] = must_not;
        // with no should clause minimum_should_match is left out (its ES semantics there are disputed)
        if (msm !== undefined && should.length) b['minimum_should_match'] = msm;
        return { bool: b };
      });
  },
  matches(_n, body, doc, ctx) {
    const b = body as Partial<Record<Occur, Json[]>> & { minimum_should_match?: string | number };
    const must = b.must ?? [];
    const filter = b.filter ?? [];
    const should = b.should ?? [];
    const mustNot = b.must_not ?? [];
    if (!must.every((q) => ctx.matches(q, doc))) return false;
    if (!filter.every((q) => ctx.matches(q, doc))) return false;
    if (mustNot.some((q) => ctx.matches(q, doc))) return false;
    // without must/filter clauses the should clauses are the query: one must match even when
    // minimum_should_match computes to 0 (a Lucene disjunction; ES #52735)
    const onlyShould = should.length > 0 && must.length === 0 && filter.length === 0;
    let msm = b.minimum_should_match !== undefined ? minShouldMatch(should.length, b.minimum_should_match) : 0;
    if (onlyShould) msm = Math.max(msm, 1);
    if (msm === 0) return true;
    return should.filter((q) => ctx.matches(q, doc)).length >= msm;
  },
  score(_n, body, doc, ctx) {
    // Lucene: the sum of the must clauses' and the matching should clauses' scores (filter / must_not score 0);
    // a bool without must or should clauses (ES rewrites some of them) is not modelled
    const b = body as Partial<Record<Occur, Json[]>>;
    const scored = [...(b.must ?? []), ...(b.should ?? []).filter((q) => ctx.matches(q, doc))];
    if ((b.must ?? []).length + (b.should ?? []).length === 0) return undefined;
    let sum = 0;
    for (const q of scored) {
      const s = ctx.score(q, doc);
      if (s === undefined) return undefined;
      sum += s;
    }
    return sum;
  },
};

const constantScore: QueryKind = {
  names: ['constant_score'],
  arbitrary(ctx, depth) {
    if (depth <= 0) return null;
    return ctx.query(depth - 1).map((filter) => ({ constant_score: { filter, boost: 2 } }));
  },
  matches(_n, body, doc, ctx) {
    return ctx.matches((body as Json)['filter'] as Json, doc);
  },
  score(_n, body) {
    return Number((body as Json)['boost'] ?? 1);
  },
};

const matchAll: QueryKind = {
  names: ['match_all', 'match_none'],
  weight: 0.3,
  arbitrary() {
    return fc.constantFrom({ match_all: {} }, { match_none: {} });
  },
  matches(name) {
    return name === 'match_all';
  },
  score(_n, body) {
    return Number((body as Json)['boost'] ?? 1);
  },
};

export const CORE_QUERY_KINDS: readonly QueryKind[] = [
  term,
  terms,
  range,
  exists,
  prefix,
  wildcard,
  fuzzy,
  regexp,
  ids,
  match,
  matchPhrase,
  bool,
  constantScore,
  matchAll,
];

/** keyword values sorted in UTF-8 byte order (shared with sort/aggregation evaluators) */
export const KEYWORDS_BYTE_ORDER = [...KEYWORDS].sort(compareUtf8);

export type { EvalContext, GenContext };
