import { LuceneRegexp, RegexSyntaxError, UserRegex, simpleMatch, wildcardMatcher } from '../../index.js';

const IPV4 =
  '(?<![0-9])(?:(?:[0-1]?[0-9]{1,2}|2[0-4][0-9]|25[0-5])[.](?:[0-1]?[0-9]{1,2}|2[0-4][0-9]|25[0-5])[.](?:[0-1]?[0-9]{1,2}|2[0-4][0-9]|25[0-5])[.](?:[0-1]?[0-9]{1,2}|2[0-4][0-9]|25[0-5]))(?![0-9])';
const QUOTEDSTRING = '(?>(?<!\\\\)(?>"(?>\\\\.|[^\\\\"]+)+"|""|(?>\'(?>\\\\.|[^\\\\\']+)+\')|\'\'))';

describe('UserRegex (Java syntax)', () => {
  it('runs catastrophic patterns in linear time on the automaton', () => {
    const re = UserRegex.java('(a+)+c');
    expect(re.linear).toBe(true);
    const s = 'a'.repeat(200_000) + 'b';
    const t = Date.now();
    expect(re.test(s)).toBe(false);
    expect(re.matches(s)).toBe(false);
    expect(Date.now() - t).toBeLessThan(2000);
    expect(UserRegex.java('(x+x+)+y').test('x'.repeat(50_000))).toBe(false);
  });

  it('finds groups, named groups and positions', () => {
    const re = UserRegex.java('(?<user>\\w+)@(\\w+)\\.com');
    const m = re.exec('mail bob@example.com now')!;
    expect(m.index).toBe(5);
    expect(m.end).toBe(20);
    expect(m.groups).toEqual(['bob@example.com', 'bob', 'example']);
    expect(m.named).toEqual({ user: 'bob' });
    expect(re.exec('nothing')).toBeNull();
  });

  it('keeps lookbehinds linear and sends lookaheads to the guarded fallback', () => {
    const lb = UserRegex.java('(?<![0-9])\\d+');
    expect(lb.linear).toBe(true);
    expect(lb.exec('a12 345')!.groups[0]).toBe('12');
    const ip = UserRegex.java(IPV4);
    expect(ip.linear).toBe(false);
    expect(ip.exec('from 10.1.2.3 to')!.groups[0]).toBe('10.1.2.3');
    expect(ip.test('1234.1.1.1234')).toBe(false);
    const q = UserRegex.java(QUOTEDSTRING);
    expect(q.exec('say "he\\"llo" ok')!.groups[0]).toBe('"he\\"llo"');
  });

  it('refuses backtracking patterns that can take super-linear time', () => {
    expect(() => UserRegex.java('(a+)+(?=c)')).toThrow(RegexSyntaxError);
    expect(() => UserRegex.java('(\\w+\\s?)+\\1(?!x)')).toThrow(/exponential/);
    expect(UserRegex.java('^(a)\\1$').matches('aa')).toBe(true);
  });

  it('atomic groups and possessive quantifiers keep their Java meaning in the fallback', () => {
    // (?>a+)a can never match: the atomic group keeps every a
    expect(UserRegex.java('^(?>a+)a(?=$)').test('aaa')).toBe(false);
    expect(UserRegex.java('^a++a(?=$)').test('aaa')).toBe(false);
    expect(UserRegex.java('^(?:a+)a(?=$)').test('aaa')).toBe(true);
    const m = UserRegex.java('(x)(?>(y))(z)(?=!)').exec('xyz!')!;
    expect(m.groups).toEqual(['xyz', 'x', 'y', 'z']);
  });

  it('replaces and splits as Java does', () => {
    expect(UserRegex.java('(\\w+)-(?<b>\\w+)').replace('ab-cd ef-gh', '${b}_$1')).toBe('cd_ab gh_ef');
    expect(UserRegex.java('o').replace('foo', '0', false)).toBe('f0o');
    expect(UserRegex.java('\\.').replace('a.b', '\\$')).toBe('a$b');
    expect(UserRegex.java(',').split('a,b,,c,,')).toEqual(['a', 'b', '', 'c']);
    expect(UserRegex.java(',').split('a,b,c', 2)).toEqual(['a', 'b,c']);
    expect(UserRegex.java('').split('abc')).toEqual(['a', 'b', 'c']);
  });

  it('translates Java-only syntax', () => {
    expect(UserRegex.java('\\p{Alpha}+').exec('12abc3')!.groups[0]).toBe('abc');
    expect(UserRegex.java('\\Qa.b\\E').test('axb')).toBe(false);
    expect(UserRegex.java('\\Qa.b\\E').test('a.b')).toBe(true);
    expect(UserRegex.java('(?i)abc').test('xABCx')).toBe(true);
    expect(UserRegex.java('abc', { flags: 'i' }).matches('AbC')).toBe(true);
    expect(UserRegex.java('a b # comment', { flags: 'x' }).matches('ab')).toBe(true);
    expect(UserRegex.java('\\u0041\\x42').matches('AB')).toBe(true);
    expect(UserRegex.java('[a-c[x-z]]+').matches('abxz')).toBe(true);
  });

  it('reports syntax errors', () => {
    expect(() => UserRegex.java('(abc')).toThrow(RegexSyntaxError);
    expect(() => UserRegex.java('*a')).toThrow(RegexSyntaxError);
    expect(() => UserRegex.java('[a-')).toThrow(RegexSyntaxError);
  });
});

describe('LuceneRegexp', () => {
  it('matches whole terms with Lucene operators', () => {
    expect(LuceneRegexp.compile('ab.*').matches('abc')).toBe(true);
    expect(LuceneRegexp.compile('ab.*').matches('xabc')).toBe(false);
    expect(LuceneRegexp.compile('a@').matches('a\nzz')).toBe(true);
    expect(LuceneRegexp.compile('a#').matches('a')).toBe(false);
    expect(LuceneRegexp.compile('foo<1-100>').matches('foo42')).toBe(true);
    expect(LuceneRegexp.compile('foo<1-100>').matches('foo101')).toBe(false);
    expect(LuceneRegexp.compile('<07-12>').matches('09')).toBe(true);
    expect(LuceneRegexp.compile('<07-12>').matches('9')).toBe(false);
    expect(LuceneRegexp.compile('a.*&.*z').matches('abz')).toBe(true);
    expect(LuceneRegexp.compile('a.*&.*z').matches('abx')).toBe(false);
    expect(LuceneRegexp.compile('~(abc)').matches('abd')).toBe(true);
    expect(LuceneRegexp.compile('~(abc)').matches('abc')).toBe(false);
    expect(LuceneRegexp.compile('a$^"x*"').matches('a$^x*')).toBe(true);
    expect(LuceneRegexp.compile('\\d+').matches('123')).toBe(true);
    expect(LuceneRegexp.compile('ABC', { caseInsensitive: true }).matches('abc')).toBe(true);
    expect(LuceneRegexp.compile('a@', { flags: 'NONE' }).matches('a@')).toBe(true);
  });

  it('is linear on pathological patterns', () => {
    const t = Date.now();
    expect(LuceneRegexp.compile('(a+)+b').matches('a'.repeat(100_000))).toBe(false);
    expect(LuceneRegexp.compile('(.*a){20}').matches('a'.repeat(5000) + 'b')).toBe(false);
    expect(Date.now() - t).toBeLessThan(3000);
  });

  it('reports syntax errors', () => {
    expect(() => LuceneRegexp.compile('ab(')).toThrow(RegexSyntaxError);
    expect(() => LuceneRegexp.compile('[ab')).toThrow(RegexSyntaxError);
  });
});

describe('wildcards', () => {
  it('simpleMatch and the wildcard query pattern never backtrack', () => {
    expect(simpleMatch('log-*-2024', 'log-a-b-2024')).toBe(true);
    expect(simpleMatch('*a*a*a*a*a*a*a*a*a*a*b', 'a'.repeat(5000))).toBe(false);
    const w = wildcardMatcher('a*a*a*a*a*a*a*a*a*a*a*a*b');
    const t = Date.now();
    expect(w.test('a'.repeat(20_000))).toBe(false);
    expect(Date.now() - t).toBeLessThan(2000);
    expect(wildcardMatcher('f?o\\*').test('fxo*')).toBe(true);
    expect(wildcardMatcher('F?O', true).test('foo')).toBe(true);
  });
});
