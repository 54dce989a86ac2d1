import { checkParsedJson, countKeyTokens, countParsedKeys, findDuplicateKey, parseUserJson } from './json-duplicates.js';

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

describe('JSON nesting and duplicates as Jackson checks them', () => {
  const nest = (d: number) => '{"a":'.repeat(d) + '1' + '}'.repeat(d);

  it('accepts 1000 levels and reports the bracket of level 1001 with Jackson\'s message', () => {
    expect(checkParsedJson(nest(1000), JSON.parse(nest(1000)))).toBeUndefined();
    const deep = nest(1001);
    expect(checkParsedJson(deep, JSON.parse(deep))).toEqual({
      kind: 'depth',
      message: 'Document nesting depth (1001) exceeds the maximum allowed (1000, from `StreamReadConstraints.getMaxNestingDepth()`)',
      offset: 5000,
    });
    const arrays = '[' + '[' .repeat(1000) + ']'.repeat(1001);
    expect(checkParsedJson(arrays, JSON.parse(arrays))?.offset).toBe(1000);
  });

  it('brackets inside strings do not count', () => {
    const text = '{"s":"' + '['.repeat(5000) + '","k":1}';
    expect(checkParsedJson(text, JSON.parse(text))).toBeUndefined();
  });

  it('still finds duplicates, and counts keys of a value of any depth without recursion', () => {
    expect(checkParsedJson('{"a":{"b":1,"b":2}}', { a: { b: 2 } })).toEqual({ kind: 'duplicate', message: "Duplicate field 'b'", offset: 15, key: 'b' });
    const deep = JSON.parse('{"a":'.repeat(200_000) + '1' + '}'.repeat(200_000));
    expect(countParsedKeys(deep)).toBe(200_000);
  });

  it('parseUserJson maps every problem through the caller\'s error', () => {
    const err = (m: string, o: number) => new Error(`${o}: ${m}`);
    expect(() => parseUserJson('[' .repeat(1001) + ']'.repeat(1001), err)).toThrow(/^1000: Document nesting depth \(1001\)/);
    expect(() => parseUserJson('{"a":1,"a":2}', err)).toThrow("10: Duplicate field 'a'");
    expect(() => parseUserJson('{', err)).toThrow(/^0: /);
    expect(parseUserJson('{"a":[1]}', err)).toEqual({ a: [1] });
  });
});
