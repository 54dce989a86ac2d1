import { exactInteger, integerJson, jsonAt, mayHoldUnsafeInteger, parseJsonExact, withExactSearchIntegers } from './exact-json.js';
import { RawJson, stringifyJson } from './raw-json.js';

describe('parseJsonExact', () => {
  it('parses like JSON.parse, except integers beyond 2^53 - 1 stay exact (RawJson of the literal)', () => {
    const text = ' {"a": [1, -2.5, 1e3, 9007199254740991, 9007199254740993, -9223372036854775808, 18446744073709551615, 1.8e19],\n "s": "x\\"y\\u00e9", "t": true, "f": false, "n": null, "o": {}, "e": []} ';
    const v = parseJsonExact(text) as Record<string, unknown>;
    expect(stringifyJson(v)).toBe(
      '{"a":[1,-2.5,1000,9007199254740991,9007199254740993,-9223372036854775808,18446744073709551615,18000000000000000000],"s":"x\\"yé","t":true,"f":false,"n":null,"o":{},"e":[]}',
    );
    const a = v['a'] as unknown[];
    expect(a[4]).toBeInstanceOf(RawJson);
    expect(exactInteger(a[4])).toBe(9007199254740993n);
    expect(exactInteger(a[5])).toBe(-9223372036854775808n);
    expect(exactInteger(a[6])).toBe(18446744073709551615n);
    expect(exactInteger(a[3])).toBe(9007199254740991n);
    expect(exactInteger(a[7])).toBeUndefined();
    expect(exactInteger(a[1])).toBeUndefined();
    // everything else is JSON.parse's value
    expect({ ...v, a: undefined }).toEqual({ ...(JSON.parse(text) as object), a: undefined });
  });

  it('a __proto__ key is an own property, as with JSON.parse', () => {
    const v = parseJsonExact('{"__proto__": {"x": 1}}') as Record<string, unknown>;
    expect(Object.keys(v)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['x']).toBeUndefined();
  });

  it('jsonAt walks keys and indexes; mayHoldUnsafeInteger looks for 16 digits', () => {
    const v = parseJsonExact('{"a": {"b.c": [0, {"d": 12345678901234567}]}}');
    expect(exactInteger(jsonAt(v, ['a', 'b.c', 1, 'd']))).toBe(12345678901234567n);
    expect(jsonAt(v, ['a', 'x'])).toBeUndefined();
    expect(jsonAt(v, ['a', 'b.c', 'd'])).toBeUndefined();
    expect(mayHoldUnsafeInteger('{"n": 900719925474099}')).toBe(false);
    expect(mayHoldUnsafeInteger('{"n": 9007199254740993}')).toBe(true);
  });

  it('integerJson prints safe integers as numbers and others with every digit', () => {
    expect(integerJson(42n)).toBe(42);
    expect(stringifyJson([integerJson(9223372036854775807n), integerJson(-9007199254740993n)])).toBe('[9223372036854775807,-9007199254740993]');
  });

  it('withExactSearchIntegers: digits for the queries, RawJson for search_after, nothing else touched', () => {
    const text = '{"size": 10, "query": {"term": {"n": 9007199254740993}}, "post_filter": {"range": {"n": {"gte": -9223372036854775808, "lt": 5}}}, "search_after": [9223372036854775807, "x", 1], "aggs": {"a": {"terms": {"field": "n", "missing": 9007199254740993}}}}';
    const parsed = JSON.parse(text) as Record<string, unknown>;
    const v = withExactSearchIntegers(text, parsed) as Record<string, unknown>;
    expect(v['query']).toEqual({ term: { n: '9007199254740993' } });
    expect(v['post_filter']).toEqual({ range: { n: { gte: '-9223372036854775808', lt: 5 } } });
    const after = v['search_after'] as unknown[];
    expect(after[0]).toBeInstanceOf(RawJson);
    expect(stringifyJson(after)).toBe('[9223372036854775807,"x",1]');
    expect(v['aggs']).toBe(parsed['aggs']);
    expect(v['size']).toBe(10);
    // no run of 16 digits: the very same object
    const small = JSON.parse('{"query": {"term": {"n": 5}}}') as unknown;
    expect(withExactSearchIntegers('{"query": {"term": {"n": 5}}}', small)).toBe(small);
  });

  it('withExactSearchIntegers: a script in a query keeps its numbers (params are numbers to the script, not strings)', () => {
    const text =
      '{"query": {"bool": {"filter": [{"term": {"n": 9007199254740993}}, {"script": {"script": {"source": "doc[\'n\'].value > params.p", "params": {"p": 12345678901234567, "l": [9007199254740993]}}}}]}}}';
    const v = withExactSearchIntegers(text, JSON.parse(text)) as Record<string, unknown>;
    expect(v['query']).toEqual({
      bool: { filter: [{ term: { n: '9007199254740993' } }, { script: { script: { source: "doc['n'].value > params.p", params: { p: Number('12345678901234567'), l: [9007199254740992] } } } }] },
    });
  });
});
