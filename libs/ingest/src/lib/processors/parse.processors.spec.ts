import { createHash } from 'node:crypto';
import { create, run, thrown } from '../testing/helpers.js';

const LOG =
  '127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326 "http://www.example.com/start.html" "Mozilla/4.08 [en] (Win98; I ;Nav)"';

describe('grok', () => {
  it('parses a combined apache log line with the standard library', () => {
    const d = run({ grok: { field: 'message', patterns: ['%{COMBINEDAPACHELOG}'] } }, { message: LOG })!;
    expect(d.source).toMatchObject({
      clientip: '127.0.0.1',
      ident: '-',
      auth: 'frank',
      timestamp: '10/Oct/2000:13:55:36 -0700',
      verb: 'GET',
      request: '/apache_pb.gif',
      httpversion: '1.0',
      response: '200',
      bytes: '2326',
      referrer: '"http://www.example.com/start.html"',
      agent: '"Mozilla/4.08 [en] (Win98; I ;Nav)"',
    });
  });
  it('type conversion, nested field names, custom definitions, trace_match', () => {
    const d = run(
      {
        grok: {
          field: 'm',
          patterns: ['%{WORD:a} %{FOO:b.c:int}', '%{NUMBER:n:float}'],
          pattern_definitions: { FOO: '\\d+' },
          trace_match: true,
        },
      },
      { m: 'x 42' },
    )!;
    expect(d.source['a']).toBe('x');
    expect(d.source['b']).toEqual({ c: 42 });
    expect(d.ingest['_grok_match_index']).toBe('0');
    const d2 = run({ grok: { field: 'm', patterns: ['%{WORD:a} %{INT:b}', '%{NUMBER:n:float}'], trace_match: true } }, { m: '3.5' })!;
    expect(d2.source['n']).toBe(3.5);
    expect(d2.ingest['_grok_match_index']).toBe('1');
  });
  it('no match, missing field, bad pattern at PUT time', () => {
    expect(thrown(() => run({ grok: { field: 'm', patterns: ['%{INT:x}'] } }, { m: 'abc' })).reason).toBe(
      'Provided Grok expressions do not match field value: [abc]',
    );
    expect(thrown(() => run({ grok: { field: 'm', patterns: ['%{INT:x}'] } }, {})).reason).toBe('field [m] not present as part of path [m]');
    expect(run({ grok: { field: 'm', patterns: ['%{INT:x}'], ignore_missing: true } }, {})!.source).toEqual({});
    const e = thrown(() => create({ grok: { field: 'm', patterns: ['%{NOPE:x}'] } }));
    expect(e.type).toBe('parse_exception');
    expect(e.reason).toBe("[patterns] Invalid regex pattern found in: [%{NOPE:x}]. Unable to find pattern [NOPE] in Grok's pattern dictionary");
    expect(e.metadata).toEqual({ processor_type: 'grok', property_name: 'patterns' });
    expect(thrown(() => create({ grok: { field: 'm', patterns: [] } })).reason).toBe('[patterns] List of patterns must not be empty');
    expect(
      thrown(() => create({ grok: { field: 'm', patterns: ['%{A}'], pattern_definitions: { A: '%{B}', B: '%{A}' } } })).reason,
    ).toContain('circular reference in pattern');
  });
});

describe('dissect', () => {
  it('splits by delimiters with append, skip and right padding', () => {
    const d = run(
      { dissect: { field: 'm', pattern: '%{a} %{?skip} %{+ts} %{+ts->} %{level} %{msg}', append_separator: ' ' } },
      { m: '1 x 2020 10:00    INFO hello world' },
    )!;
    expect(d.source).toMatchObject({ a: '1', ts: '2020 10:00', level: 'INFO', msg: 'hello world' });
    expect(d.source['skip']).toBeUndefined();
  });
  it('append_separator and reference keys', () => {
    const d = run({ dissect: { field: 'm', pattern: '%{*k}=%{&k} %{+x/2} %{+x/1}', append_separator: '-' } }, { m: 'a=b c d' })!;
    expect(d.source).toMatchObject({ a: 'b', x: 'd-c' });
  });
  it('a plain key sharing its name with append keys appends too', () => {
    expect(run({ dissect: { field: 'm', pattern: '%{a} %{+a} %{+a}', append_separator: '-' } }, { m: 'x y z' })!.source).toEqual({ m: 'x y z', a: 'x-y-z' });
  });
  it('mismatch', () => {
    expect(thrown(() => run({ dissect: { field: 'm', pattern: '%{a}:%{b}' } }, { m: 'ab' })).reason).toBe(
      'Unable to find match for dissect pattern: %{a}:%{b} against source: ab',
    );
  });
});

describe('kv', () => {
  it('splits pairs, filters keys, prefixes, trims', () => {
    const d = run(
      { kv: { field: 'm', field_split: '&', value_split: '=', target_field: 'q', exclude_keys: ['z'], prefix: 'p_', trim_value: '"' } },
      { m: 'a=1&b="2"&z=3&a=4' },
    )!;
    expect(d.source['q']).toEqual({ p_a: ['1', '4'], p_b: '2' });
  });
  it('trailing separators are ignored as Java split does', () => {
    expect(run({ kv: { field: 'm', field_split: '&', value_split: '=' } }, { m: 'a=1&b=&' })!.source).toMatchObject({ a: '1', b: '' });
  });
  it('missing value_split', () => {
    expect(thrown(() => run({ kv: { field: 'm', field_split: ' ', value_split: '=' } }, { m: 'a=1 b' })).reason).toBe(
      'field [m] does not contain value_split [=]',
    );
  });
});

describe('csv', () => {
  it('parses quoted cells, empty values and trims', () => {
    const d = run({ csv: { field: 'm', target_fields: ['a', 'b', 'c', 'd'], trim: true, empty_value: 'E' } }, { m: 'x, "y,1" ,,"q""r"' })!;
    expect(d.source).toMatchObject({ a: 'x', b: 'y,1', c: 'E', d: 'q"r' });
  });
  it('fewer cells leave fields unset; bad quotes fail', () => {
    expect(run({ csv: { field: 'm', target_fields: ['a', 'b'] } }, { m: 'x' })!.source).toEqual({ m: 'x', a: 'x' });
    expect(thrown(() => run({ csv: { field: 'm', target_fields: ['a'] } }, { m: '"x' })).type).toBe('illegal_argument_exception');
  });
});

describe('uri_parts', () => {
  it('splits a URL', () => {
    const d = run({ uri_parts: { field: 'u' } }, { u: 'http://myusername:mypassword@www.example.com:80/foo.gif?key1=val1&key2=val2#fragment' })!;
    expect(d.source['url']).toEqual({
      original: 'http://myusername:mypassword@www.example.com:80/foo.gif?key1=val1&key2=val2#fragment',
      domain: 'www.example.com',
      fragment: 'fragment',
      extension: 'gif',
      password: 'mypassword',
      path: '/foo.gif',
      port: 80,
      query: 'key1=val1&key2=val2',
      scheme: 'http',
      user_info: 'myusername:mypassword',
      username: 'myusername',
    });
  });
  it('remove_if_successful and errors', () => {
    const d = run({ uri_parts: { field: 'u', remove_if_successful: true, keep_original: false } }, { u: 'https://a.b/c' })!;
    expect(d.source).toEqual({ url: { domain: 'a.b', path: '/c', scheme: 'https' } });
    expect(thrown(() => run({ uri_parts: { field: 'u' } }, { u: 'not a uri' })).reason).toBe('unable to parse URI [not a uri]');
    expect(run({ uri_parts: { field: 'u', keep_original: false } }, { u: '/a/b.html?x=1#f' })!.source['url']).toEqual({
      path: '/a/b.html',
      extension: 'html',
      query: 'x=1',
      fragment: 'f',
    });
  });
});

describe('fingerprint', () => {
  it('hashes values (not field names) in sorted field order, as Elasticsearch', () => {
    const expected = createHash('sha1')
      .update(Buffer.from([0]))
      .update(Buffer.from([1, 0, 0, 0]))
      .update(Buffer.from([0]))
      .update('b')
      .digest('base64');
    expect(run({ fingerprint: { fields: ['y', 'x'] } }, { x: 1, y: 'b' })!.source['fingerprint']).toBe(expected);
    const c = run({ fingerprint: { fields: ['x', 'y'], salt: 's' } }, { x: 1, y: 'b' })!.source['fingerprint'];
    expect(c).not.toBe(expected);
    const nested = createHash('sha256').update(Buffer.from([0])).update('k').update(Buffer.from([0])).update(Buffer.from([1])).digest('base64');
    expect(run({ fingerprint: { fields: ['o'], method: 'SHA-256' } }, { o: { k: true } })!.source['fingerprint']).toBe(nested);
    expect(thrown(() => run({ fingerprint: { fields: ['x'] } }, {})).reason).toBe('missing field [x] when calculating fingerprint');
    expect(run({ fingerprint: { fields: ['x'], ignore_missing: true } }, {})!.source).toEqual({});
    expect(thrown(() => create({ fingerprint: { fields: ['x'], method: 'CRC' } })).type).toBe('parse_exception');
  });
});
