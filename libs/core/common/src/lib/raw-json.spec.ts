import { jsonValue, materializeRawJson, RawJson, stringifyJson } from './raw-json.js';

describe('RawJson', () => {
  const text = '{"v": 9007199254740993, "x":1.0,"e":"\\u00e9"}';

  it('stringifyJson splices the raw text verbatim, at any depth and as the top-level value', () => {
    expect(stringifyJson(new RawJson(text))).toBe(text);
    expect(stringifyJson({ a: 1, hits: [{ _id: '1', _source: new RawJson(text) }, { _source: new RawJson('[1.50]') }] })).toBe(
      `{"a":1,"hits":[{"_id":"1","_source":${text}},{"_source":[1.50]}]}`,
    );
    expect(stringifyJson({ a: 'x' })).toBe('{"a":"x"}');
    expect(stringifyJson(undefined)).toBe('null');
  });

  it('a string that looks like a marker from another render is left alone', () => {
    const r = new RawJson('1.0');
    const s = stringifyJson({ r, s: '__strata_raw_0__' });
    expect(s).toBe('{"r":1.0,"s":"__strata_raw_0__"}');
  });

  it('plain JSON.stringify falls back to the parsed value (never {"json": ...})', () => {
    expect(JSON.stringify({ s: new RawJson(text) })).toBe('{"s":{"v":9007199254740992,"x":1,"e":"é"}}');
  });

  it('nested stringifyJson calls (a toJSON that renders) do not mix their markers', () => {
    const inner = { toJSON: () => stringifyJson({ y: new RawJson('2.0') }) };
    expect(stringifyJson({ a: new RawJson('1.0'), b: inner, c: new RawJson('3.0') })).toBe('{"a":1.0,"b":"{\\"y\\":2.0}","c":3.0}');
  });

  it('value / jsonValue / materializeRawJson give parsed values', () => {
    const r = new RawJson(text);
    expect(r.value()).toEqual({ v: 9007199254740992, x: 1, e: 'é' });
    expect(r.value()).toBe(r.value());
    expect(jsonValue(r)).toEqual({ v: 9007199254740992, x: 1, e: 'é' });
    expect(jsonValue(5)).toBe(5);
    expect(materializeRawJson({ a: [new RawJson('{"b":[1]}')], c: 'd' })).toEqual({ a: [{ b: [1] }], c: 'd' });
  });
});
