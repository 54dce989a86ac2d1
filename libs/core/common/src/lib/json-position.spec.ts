import type { EsError } from './errors.js';
import { isUtf8 } from 'node:buffer';
import { invalidUtf8, jsonSyntaxError, locateJsonPath, locateKey, positionOf } from './json-position.js';
import { seededRandom } from './seeded-random.js';

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

describe('invalidUtf8', () => {
  const b = (...parts: Array<string | number[]>): Buffer => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

  it('is null for well-formed UTF-8 of every length', () => {
    expect(invalidUtf8(b('{"a":"ascii é € 😀"}'))).toBeNull();
    expect(invalidUtf8(b(''))).toBeNull();
  });

  it('names the first bad byte with Jackson’s message and its offset', () => {
    expect(invalidUtf8(b('ab', [0xff], 'c'))).toEqual({ offset: 2, message: 'Invalid UTF-8 start byte 0xff' });
    // a continuation byte where a character starts
    expect(invalidUtf8(b('é', [0x80]))).toEqual({ offset: 2, message: 'Invalid UTF-8 start byte 0x80' });
    // Latin-1 é followed by a space: a 3-byte start whose next byte is no continuation
    expect(invalidUtf8(b('x', [0xe9], ' y'))).toEqual({ offset: 2, message: 'Invalid UTF-8 middle byte 0x20' });
    expect(invalidUtf8(b('x', [0xf0, 0x9f, 0x98]))).toEqual({ offset: 4, message: 'Unexpected end-of-input in the middle of a UTF-8 character' });
  });

  it('refuses sequences that encode no character: overlong, surrogates, beyond U+10FFFF', () => {
    expect(invalidUtf8(b([0xc0, 0xaf]))).toEqual({ offset: 0, message: 'Invalid UTF-8 start byte 0xc0' });
    expect(invalidUtf8(b([0xe0, 0x80, 0xaf]))).toEqual({ offset: 1, message: 'Invalid UTF-8 middle byte 0x80' });
    expect(invalidUtf8(b([0xed, 0xa0, 0x80]))).toEqual({ offset: 1, message: 'Invalid UTF-8 middle byte 0xa0' });
    expect(invalidUtf8(b([0xf4, 0x90, 0x80, 0x80]))).toEqual({ offset: 1, message: 'Invalid UTF-8 middle byte 0x90' });
    expect(invalidUtf8(b([0xf5, 0x80, 0x80, 0x80]))).toEqual({ offset: 0, message: 'Invalid UTF-8 start byte 0xf5' });
  });

  it('looks only at the given range, and agrees with Node’s validator', () => {
    const buf = b([0xff], 'ok', [0xff]);
    expect(invalidUtf8(buf, 1, 3)).toBeNull();
    expect(invalidUtf8(buf, 1)).toEqual({ offset: 3, message: 'Invalid UTF-8 start byte 0xff' });
    const rand = seededRandom(7);
    for (let n = 0; n < 2000; n++) {
      const bytes = Buffer.from(Array.from({ length: 1 + Math.floor(rand() * 6) }, () => Math.floor(rand() * 256)));
      expect(invalidUtf8(bytes) === null).toBe(isUtf8(bytes));
    }
  });
});
