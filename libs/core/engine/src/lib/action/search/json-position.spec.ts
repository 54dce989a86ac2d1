import { locateJsonPath, positionOf } from './json-position.js';

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
