import { UserRegex } from '@strata/core-common';
import { Grok } from './grok.js';

describe('Java regex syntax in ingest patterns (core UserRegex)', () => {
  it.each([
    ['(?i)abc', 'xABCx', true],
    ['\\Aab\\z', 'ab', true],
    ['\\Aab\\Z', 'xab', false],
    ['(?>a+)b', 'aab', true],
    ['a*+b', 'aaab', true],
    ['[+*]+x', '+*x', true],
    ['\\d++', '12', true],
  ])('%s on %s', (p, text, expected) => {
    expect(UserRegex.java(p).test(text)).toBe(expected);
  });
  it('grok honours a leading inline flag', () => {
    expect(new Grok(['(?i)%{WORD:w} error']).match('x ERROR')).toEqual({ fields: [['w', 'x']], patternIndex: 0 });
  });
  it('grok with nested quantifiers answers at once instead of hanging', () => {
    const g = new Grok(['^(%{WORD}+)+x$']);
    const t = Date.now();
    expect(g.match('a'.repeat(100_000) + '!')).toBeNull();
    expect(Date.now() - t).toBeLessThan(3000);
  });
  it('the built-in patterns with lookarounds and atomic groups still work', () => {
    const g = new Grok(['%{IP:ip} %{QUOTEDSTRING:q} %{NUMBER:n:int}']);
    expect(g.match('from 10.0.0.1 "a \\"b\\"" 42')).toEqual({
      fields: [
        ['ip', '10.0.0.1'],
        ['q', '"a \\"b\\""'],
        ['n', 42],
      ],
      patternIndex: 0,
    });
  });
});
