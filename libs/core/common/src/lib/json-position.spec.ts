import type { EsError } from './errors.js';
import { jsonSyntaxError, locateJsonPath, locateKey, positionOf } from './json-position.js';

describe('locateJsonPath', () => {
  const raw = '{"size":1,"aggs":{"a":{"terms":{"field":"t","size":"x"}}}}';

  it('finds the key and value offsets along a path of object keys, skipping other values', () => {
    const loc = locateJsonPath(raw, ['aggs', 'a', 'terms', 'size'])!;
    expect(raw.slice(loc.key, loc.key + 6)).toBe('"size"');
    expect(raw.slice(loc.value, loc.value + 3)).toBe('"x"');
    expect(positionOf(raw, loc.value)).toEqual({ line: 1, col: 52 });
    expect(locateJsonPath(raw, ['size'])).toEqual({ key: 1, value: 8 });
  });

  it('skips nested objects, arrays, escapes and literals; handles new lines', () => {
    const r = '{\n  "q": {"x": ["a\\"}", {"b": [1, true, null]}]},\n  "aggs": {\n    "m": { "max": { "fielx": "n" } }\n  }\n}';
    const loc = locateJsonPath(r, ['aggs', 'm', 'max', 'fielx'])!;
    expect(positionOf(r, loc.key)).toEqual({ line: 4, col: 21 });
    expect(positionOf(r, loc.value)).toEqual({ line: 4, col: 30 });
  });

  it('is undefined for a missing path or malformed text', () => {
    expect(locateJsonPath(raw, ['aggs', 'b'])).toBeUndefined();
    expect(locateJsonPath(raw, ['size', 'x'])).toBeUndefined();
    expect(locateJsonPath('{"a" 1}', ['a'])).toBeUndefined();
    expect(locateJsonPath('[1]', ['a'])).toBeUndefined();
  });
});

describe('positionOf', () => {
  it('counts lines and columns from 1, as Jackson reports them', () => {
    expect(positionOf('{\n  "a": x', 9)).toEqual({ line: 2, col: 8 });
    expect(positionOf('{x', 1)).toEqual({ line: 1, col: 2 });
    expect(positionOf('{"a":1}', 0)).toEqual({ line: 1, col: 1 });
    expect(positionOf('{\n\n', 99)).toEqual({ line: 3, col: 1 });
  });
});

describe('locateKey', () => {
  it('finds the key token or the value of the first member with that name (not a string value equal to it)', () => {
    const raw = '{"name":"foo",\n  "foo" : {"x": 1}}';
    expect(locateKey(raw, 'foo', 'key')).toEqual({ line: 2, col: 3 });
    expect(locateKey(raw, 'foo', 'value')).toEqual({ line: 2, col: 11 });
    expect(locateKey(raw, 'x', 'value')).toEqual({ line: 2, col: 17 });
    expect(locateKey(raw, 'bar', 'key')).toBeUndefined();
  });

  it('matches names with regex and JSON special characters literally', () => {
    expect(locateKey('{"a.b*":1,"q\\"":2}', 'a.b*', 'value')).toEqual({ line: 1, col: 9 });
    expect(locateKey('{"a.b*":1,"q\\"":2}', 'q"', 'key')).toEqual({ line: 1, col: 11 });
  });
});

describe('jsonSyntaxError', () => {
  it('is an x_content_parse_exception at [line:col], caused by the json_parse_exception, its own root cause', () => {
    const e = jsonSyntaxError('{\n "a": tru }', 8, "Unrecognized token 'tru'");
    expect(e.type).toBe('x_content_parse_exception');
    expect(e.reason).toBe("[2:7] Unrecognized token 'tru'");
    expect(e.rootCauses?.map((r) => [r.type, r.reason])).toEqual([['x_content_parse_exception', "[2:7] Unrecognized token 'tru'"]]);
    expect((e.cause as EsError).type).toBe('json_parse_exception');
    expect((e.cause as EsError).reason).toBe('Unrecognized token \'tru\'\n at [Source: (byte[])"..."; line: 2, column: 7]');
  });
});
