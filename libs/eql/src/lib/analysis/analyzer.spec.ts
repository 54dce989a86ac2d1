import { EsError } from '@strata/core-common';
import type { IndexMetadata } from '@strata/core-engine';
import { parseEql } from '../parser/parser.js';
import { MappingSchema } from '../service/mapping-schema.js';
import { analyze } from './analyzer.js';

const meta = (name: string, properties: Record<string, unknown>): IndexMetadata =>
  ({ name, uuid: name, settings: {}, mappings: { properties }, mappingVersion: 1, settingsVersion: 1, aliasesVersion: 1, aliases: {}, state: 'open', numberOfShards: 1, numberOfReplicas: 0, creationDate: 0, primaryTerms: [1] }) as IndexMetadata;

const schema = new MappingSchema([
  meta('test', {
    '@timestamp': { type: 'date' },
    event: { properties: { category: { type: 'alias', path: 'event_type' } } },
    event_type: { type: 'keyword' },
    pid: { type: 'long' },
    ppid: { type: 'long' },
    md5: { type: 'keyword' },
    command_line: { type: 'keyword' },
    hostname: { type: 'text', fields: { keyword: { type: 'keyword' } } },
    english: { type: 'text' },
    source_address: { type: 'ip' },
    location: { type: 'geo_point' },
    processes: { type: 'nested', properties: { pid: { type: 'long' } } },
    bool: { type: 'boolean' },
  }),
]);

const opts = { eventCategoryField: 'event.category', timestampField: '@timestamp' };

function error(q: string): string {
  try {
    analyze(parseEql(q), schema, opts);
  } catch (e) {
    expect((e as EsError).type).toBe('verification_exception');
    const reason = (e as EsError).reason;
    if (!reason.startsWith("Found 1 problem\nline ")) throw new Error(reason, { cause: e });
    return reason.substring('Found 1 problem\nline '.length);
  }
  throw new Error(`accepted: ${q}`);
}

describe('EQL analyzer', () => {
  it('accepts valid queries (mismatched literal types included)', () => {
    for (const q of [
      'any where bool',
      'process where pid == "abcdef"',
      'process where hostname == "a"',
      'file where ?foo == 123',
      'file where concat(?foo, "test", ?bar) == "onetest!"',
      'sequence [process where true] by hostname [process where true] by md5',
      'process where cidrMatch(source_address, "10.0.0.0/8")',
    ]) {
      expect(() => analyze(parseEql(q), schema, opts)).not.toThrow();
    }
  });

  it('reports problems with Elasticsearch messages', () => {
    expect(error('any where pid')).toBe('1:11: Condition expression needs to be boolean, found [LONG]');
    expect(error('any where @timestamp')).toBe('1:11: Condition expression needs to be boolean, found [DATETIME]');
    expect(error('foo where xxx == 100')).toBe('1:11: Unknown column [xxx]');
    expect(error('foo where md4 == 1')).toBe('1:11: Unknown column [md4]');
    expect(error('foo where md4 == 1 or md5 == "a"')).toBe('1:11: Unknown column [md4], did you mean [md5]?');
    expect(error('foo where pib == 1 or pid == 1 or ppid == 2')).toBe('1:11: Unknown column [pib], did you mean any of [pid, ppid]?');
    expect(error('network where safe(md5)')).toBe('1:15: Unknown function [safe]');
    expect(error('foo where location == 0')).toBe('1:11: Cannot use field [location] with unsupported type [geo_point]');
    expect(error('foo where processes == 0')).toBe('1:11: Cannot use field [processes] type [nested] due to nested fields not being supported yet');
    expect(error('foo where processes.pid == 0')).toBe('1:11: Cannot use field [processes.pid] type [long] with unsupported nested type in hierarchy (field [processes])');
    expect(error('foo where pid : 123')).toBe('1:11: first argument of [:] must be [string], found value [pid] type [long]; consider using [==] instead');
    expect(error('foo where pid in (1, "string")')).toBe('1:11: 2nd argument of [pid in (1, "string")] must be [long], found value ["string"] type [keyword]');
    expect(error('foo where english == "bar"')).toBe(
      '1:11: [english == "bar"] cannot operate on first argument field of data type [text]: No keyword/multi-field defined exact matches for [english]; define one or use MATCH/QUERY instead',
    );
    expect(error('foo where startsWith(pid, "1")')).toBe('1:11: first argument of [startsWith(pid, "1")] must be [string], found value [pid] type [long]');
    expect(error('sequence [process where true] by pid [process where true] by md5')).toBe('1:62: Sequence key [md5] type [keyword] is incompatible with key [pid] type [long]');
  });

  it('reports several problems at once', () => {
    try {
      analyze(parseEql('foo where a == 1 and b == 2'), schema, opts);
      throw new Error('accepted');
    } catch (e) {
      expect((e as EsError).reason).toBe('Found 2 problems\nline 1:11: Unknown column [a]\nline 1:22: Unknown column [b]');
    }
  });

  it('wrong arity is a parsing_exception', () => {
    try {
      analyze(parseEql('foo where length(md5, md5) > 1'), schema, opts);
      throw new Error('accepted');
    } catch (e) {
      expect((e as EsError).type).toBe('parsing_exception');
      expect((e as EsError).reason).toBe('line 1:11: error building [length]: expects exactly one argument');
    }
  });

  it('a missing event category field is reported at 1:1', () => {
    const s = new MappingSchema([meta('x', { '@timestamp': { type: 'date' } })]);
    expect(() => analyze(parseEql('foo where true'), s, opts)).toThrow('Found 1 problem\nline 1:1: Unknown column [event.category]');
    expect(() => analyze(parseEql('any where true'), s, opts)).not.toThrow();
  });

  it('incompatible types across indices', () => {
    const s = new MappingSchema([meta('a', { x: { type: 'keyword' }, '@timestamp': { type: 'date' } }), meta('b', { x: { type: 'long' }, '@timestamp': { type: 'date' } })]);
    expect(() => analyze(parseEql('any where x == 1'), s, opts)).toThrow('Cannot use field [x] due to ambiguities being mapped as [2] incompatible types: [keyword] in [a], [long] in [b]');
  });
});
