import { javaRegex } from './java-regex.js';
import { Grok } from './grok/grok.js';

describe('java regex translation', () => {
  it.each([
    ['(?i)abc', 'xABCx', true],
    ['\\Aab\\z', 'ab', true],
    ['\\Aab\\Z', 'xab', false],
    ['(?>a+)b', 'aab', true],
    ['a*+b', 'aaab', true],
    ['[+*]+x', '+*x', true],
    ['\\d++', '12', true],
  ])('%s on %s', (p, text, expected) => {
    expect(javaRegex(p).test(text)).toBe(expected);
  });
  it('grok honours a leading inline flag', () => {
    expect(new Grok(['(?i)%{WORD:w} error']).match('x ERROR')).toEqual({ fields: [['w', 'x']], patternIndex: 0 });
  });
});
