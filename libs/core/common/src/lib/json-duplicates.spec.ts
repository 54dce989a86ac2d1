import { countKeyTokens, countParsedKeys, findDuplicateKey } from './json-duplicates.js';

const dup = (t: string) => findDuplicateKey(t, JSON.parse(t));

describe('duplicate JSON keys', () => {
  it('finds the first repeated key of an object with the offset after it', () => {
    expect(dup('{"k":"a","k":"b"}')).toEqual({ key: 'k', offset: 12 });
    expect(dup('{"o":{"x":1,"y":{"x":2},"x":3}}')).toEqual({ key: 'x', offset: 27 });
    expect(dup('[{"a":1},{"b":{"c":1,  "c" :2}}]')).toEqual({ key: 'c', offset: 26 });
    // escapes are compared unescaped
    expect(dup('{"\\u0061":1,"a":2}')).toEqual({ key: 'a', offset: 15 });
  });

  it('accepts the same key in different objects, colons and quotes inside strings, escaped quotes', () => {
    expect(dup('{"x":"a:b","o":{"x":1},"p":[{"x":1},{"x":2}]}')).toBeUndefined();
    expect(dup('{"a":"he said \\"k\\": 1","k":"\\\\","b":"x\\\\\\":y"}')).toBeUndefined();
    expect(dup('{}')).toBeUndefined();
    expect(dup('[1,"a",{"k":1}]')).toBeUndefined();
    expect(dup('"str"')).toBeUndefined();
    expect(dup('12')).toBeUndefined();
  });

  it('counts key tokens and parsed keys', () => {
    expect(countKeyTokens('{"a":"b:c","d" : {"e":[{"f":1}]}}')).toBe(4);
    expect(countParsedKeys({ a: 'b:c', d: { e: [{ f: 1 }] } })).toBe(4);
    expect(countParsedKeys(JSON.parse('{"a":1,"a":2}'))).toBe(1);
    expect(countKeyTokens('{"a":1,"a":2}')).toBe(2);
  });

  it('without a parsed value the full scan runs', () => {
    expect(findDuplicateKey('{"a":{"b":1,"b":2}}')).toEqual({ key: 'b', offset: 15 });
    expect(findDuplicateKey('{"a":{"b":1},"b":2}')).toBeUndefined();
  });
});
