import { wildcardRegExp } from './wildcard.js';

describe('wildcardRegExp', () => {
  it('matches * as any run of characters, anchored at both ends', () => {
    const re = wildcardRegExp('logs-*');
    expect(re.test('logs-')).toBe(true);
    expect(re.test('logs-2024.01')).toBe(true);
    expect(re.test('xlogs-1')).toBe(false);
    expect(wildcardRegExp('*-x-*').test('a-x-b')).toBe(true);
    expect(wildcardRegExp('*-x-*').test('a-y-b')).toBe(false);
  });
  it('takes every other character literally', () => {
    expect(wildcardRegExp('a.b').test('a.b')).toBe(true);
    expect(wildcardRegExp('a.b').test('axb')).toBe(false);
    expect(wildcardRegExp('(x)+[y]?$^|{1}\\').test('(x)+[y]?$^|{1}\\')).toBe(true);
    expect(wildcardRegExp('a+').test('aa')).toBe(false);
  });
});
