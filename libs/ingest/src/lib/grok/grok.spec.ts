import { Grok } from './grok.js';
import { GROK_PATTERNS } from './grok-patterns.js';

function fields(pattern: string, text: string): Record<string, unknown> | null {
  const m = new Grok([pattern]).match(text);
  return m ? Object.fromEntries(m.fields) : null;
}

describe('grok', () => {
  it('every library pattern compiles to a JS RegExp', () => {
    for (const name of Object.keys(GROK_PATTERNS)) {
      expect(() => new Grok([`%{${name}:x}`])).not.toThrow();
    }
  });
  it.each([
    ['%{IP:ip}', '2001:db8::1 rest', { ip: '2001:db8::1' }],
    ['%{IP:ip}', 'from 192.168.0.254', { ip: '192.168.0.254' }],
    ['%{TIMESTAMP_ISO8601:ts}', '2020-01-02T03:04:05.678Z', { ts: '2020-01-02T03:04:05.678Z' }],
    ['%{NUMBER:n:float} %{INT:i:int} %{WORD:w}', '-1.5 42 hello', { n: -1.5, i: 42, w: 'hello' }],
    ['%{LOGLEVEL:level}', 'x WARN y', { level: 'WARN' }],
    ['%{UUID:id}', 'id=123e4567-e89b-12d3-a456-426614174000', { id: '123e4567-e89b-12d3-a456-426614174000' }],
    ['%{URI:u}', 'see https://user@example.com:8080/a/b?x=1', { u: 'https://user@example.com:8080/a/b?x=1', port: '8080' }],
    ['%{QS:q}', 'say "hello \\"world\\""', { q: '"hello \\"world\\""' }],
    [
      '%{SYSLOGLINE}',
      'Mar  7 10:00:01 myhost sshd[1234]: Accepted password',
      { timestamp: 'Mar  7 10:00:01', logsource: 'myhost', program: 'sshd', pid: '1234', message: 'Accepted password' },
    ],
    ['%{MAC:mac}', 'hw 00:1A:2b:3C:4d:5E', { mac: '00:1A:2b:3C:4d:5E' }],
    ['(?<custom>\\d+)-%{WORD:w}', '12-ab', { custom: '12', w: 'ab' }],
    ['%{INT:a} %{INT:a}', '1 2', { a: ['1', '2'] }],
    ['^%{IPORHOST:addr} (%{IPORHOST:addr} )?', '10.0.0.1 x', { addr: '10.0.0.1' }],
  ])('%s', (pattern, text, expected) => {
    expect(fields(pattern, text)).toEqual(expected);
  });
  it('alternatives keep the first matching pattern index', () => {
    const g = new Grok(['%{INT:i}$', '%{WORD:w}']);
    expect(g.match('abc')).toEqual({ fields: [['w', 'abc']], patternIndex: 1 });
    expect(g.match('12')).toEqual({ fields: [['i', '12']], patternIndex: 0 });
  });
  it('unknown patterns fail to compile', () => {
    expect(() => new Grok(['%{NOPE}'])).toThrow("Unable to find pattern [NOPE] in Grok's pattern dictionary");
  });
});
