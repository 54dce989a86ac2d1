import { EsError } from '@strata/core-common';
import { DefaultAnalysisRegistry } from '../analysis/analysis-registry.js';
import type { IndexMetadata } from '../cluster/metadata.js';
import { DefaultMapperService } from './mapper-service.js';
import type { ParsedField } from './parsed-document.js';
import { cidrRange, decodeIp, encodeIp } from './ip.js';
import { parseNumber } from './field-types.js';

const svc = new DefaultMapperService(new DefaultAnalysisRegistry(), []);
let uuidSeq = 0;
function index(mappings: Record<string, unknown>, settings: Record<string, unknown> = {}): IndexMetadata {
  const norm = svc.parseMappings(mappings, settings);
  return {
    name: 'test', uuid: `u${uuidSeq++}`, settings, mappings: norm, mappingVersion: 1, settingsVersion: 1, aliasesVersion: 1,
    aliases: {}, state: 'open', numberOfShards: 1, numberOfReplicas: 1, creationDate: 0, primaryTerms: [1],
  };
}
function err(f: () => unknown): [string, string, string?, string?] | null {
  try {
    f();
  } catch (e) {
    const x = e as EsError;
    const c = x.cause as EsError | undefined;
    return c ? [x.type, x.reason, c.type, c.reason] : [x.type, x.reason];
  }
  return null;
}
const byName = (fs: ParsedField[], n: string) => fs.filter((f) => f.name === n);

describe('mapping validation', () => {
  it('normalises dotted names and drops type object', () => {
    const m = svc.parseMappings({ properties: { 'a.b': { type: 'keyword' }, c: { type: 'object', properties: { d: { type: 'long' } } } } }, {});
    expect(m).toEqual({ properties: { a: { properties: { b: { type: 'keyword' } } }, c: { properties: { d: { type: 'long' } } } } });
  });
  it('ES errors', () => {
    expect(err(() => svc.parseMappings({ properties: { y: { type: 'x' } } }, {}))).toEqual([
      'mapper_parsing_exception', 'Failed to parse mapping: No handler for type [x] declared on field [y]',
      'mapper_parsing_exception', 'No handler for type [x] declared on field [y]',
    ]);
    expect(err(() => svc.parseMappings({ properties: { f: { type: 'keyword', foo: 1 } } }, {}))?.[3]).toBe('unknown parameter [foo] on mapper [f] of type [keyword]');
    expect(err(() => svc.parseMappings({ foo: 'bar' }, {}))?.[3]).toBe('Root mapping definition has unsupported parameters:  [foo : bar]');
    expect(err(() => svc.parseMappings({ properties: { f: {} } }, {}))?.[3]).toBe('No type specified for field [f]');
    expect(err(() => svc.parseMappings({ properties: { f: { index: false } } }, {}))?.[3]).toBe('No type specified for field [f]');
    expect(svc.parseMappings({ properties: { f: { enabled: false } } }, {})).toEqual({ properties: { f: { type: 'object', enabled: false } } });
    expect(err(() => svc.parseMappings({ properties: { f: { type: 'text', analyzer: 'nope' } } }, {}))?.[1]).toBe(
      'Failed to parse mapping: analyzer [nope] has not been configured in mappings',
    );
    expect(err(() => svc.parseMappings({ properties: { f: { type: 'scaled_float' } } }, {}))?.[3]).toBe('Field [scaling_factor] is required');
    expect(err(() => svc.parseMappings({ properties: { f: { type: 'date', format: 'yyyy-qq' } } }, {}))?.[0]).toBe('mapper_parsing_exception');
    expect(err(() => svc.parseMappings({ properties: { a: { type: 'alias', path: 'nope' } } }, {}))?.[3]).toBe(
      'Invalid [path] value [nope] for field alias [a]: an alias must refer to an existing field in the mappings.',
    );
    expect(err(() => svc.parseMappings({ properties: { a: { type: 'long' }, b: { type: 'long' } } }, { 'index.mapping.total_fields.limit': 1 }))).toEqual([
      'illegal_argument_exception', 'Limit of total fields [1] has been exceeded',
    ]);
  });
});

describe('norms updates (Elasticsearch: true → false allowed, false → true refused)', () => {
  const conflict = (f: string) => `Mapper for [${f}] conflicts with existing mapper:\n\tCannot update parameter [norms] from [false] to [true]`;
  it('disables norms on text, search_as_you_type, a multi-field and a keyword that had them', () => {
    const m0 = svc.parseMappings({ properties: { t: { type: 'text', fields: { k: { type: 'keyword', norms: true } } }, s: { type: 'search_as_you_type' }, k: { type: 'keyword', norms: true } } }, {});
    const m1 = svc.merge(m0, { properties: { t: { type: 'text', norms: false, fields: { k: { type: 'keyword', norms: false } } }, s: { type: 'search_as_you_type', norms: false }, k: { type: 'keyword', norms: 'false' } } }, {});
    expect(m1['properties']).toEqual({
      t: { type: 'text', norms: false, fields: { k: { type: 'keyword', norms: false } } },
      s: { type: 'search_as_you_type', norms: false },
      k: { type: 'keyword', norms: false },
    });
    // the same value again, or the default of a keyword (no norms), is no change
    expect(svc.merge(m1, { properties: { t: { type: 'text', norms: false }, k: { type: 'keyword' } } }, {})['properties']).toEqual(m1['properties']);
    // explicitly true on a text field that has them by default is no change either
    expect(svc.merge(m0, { properties: { t: { type: 'text', norms: true } } }, {})['properties']).toMatchObject({ t: { type: 'text', norms: true } });
  });
  it('refuses to enable them again, explicitly or by leaving the parameter out (its default), with Elasticsearch\'s error', () => {
    const m = svc.parseMappings({ properties: { t: { type: 'text', norms: false }, k: { type: 'keyword' }, a: { type: 'annotated_text', norms: false } } }, {});
    expect(err(() => svc.merge(m, { properties: { t: { type: 'text', norms: true } } }, {}))).toEqual(['illegal_argument_exception', conflict('t')]);
    expect(err(() => svc.merge(m, { properties: { t: { type: 'text' } } }, {}))).toEqual(['illegal_argument_exception', conflict('t')]);
    expect(err(() => svc.merge(m, { properties: { k: { type: 'keyword', norms: true } } }, {}))).toEqual(['illegal_argument_exception', conflict('k')]);
    expect(err(() => svc.merge(m, { properties: { a: { type: 'annotated_text' } } }, {}))).toEqual(['illegal_argument_exception', conflict('a')]);
    // with another conflict: both listed, in the order of the parameters
    expect(err(() => svc.merge(m, { properties: { t: { type: 'text', norms: true, analyzer: 'simple' } } }, {}))?.[1]).toBe(
      'Mapper for [t] conflicts with existing mapper:\n\tCannot update parameter [norms] from [false] to [true]\n\tCannot update parameter [analyzer] from [default] to [simple]',
    );
  });
  it('a mapping compiled after the update indexes the field without norms', () => {
    const m0 = index({ properties: { t: { type: 'text' }, k: { type: 'keyword', norms: true } } });
    expect(byName(svc.documentMapper(m0).parse({ t: 'a b', k: 'x' }, '1').doc.fields, 't')[0].norms).toBe(true);
    const m1 = { ...m0, mappingVersion: 2, mappings: svc.merge(m0.mappings, { properties: { t: { type: 'text', norms: false }, k: { type: 'keyword', norms: false } } }, {}) };
    const doc = svc.documentMapper(m1).parse({ t: 'a b', k: 'x' }, '1').doc;
    expect(byName(doc.fields, 't')[0].norms).toBe(false);
    expect(byName(doc.fields, 'k')[0].norms).toBeUndefined();
    // without norms (and, for the keyword, with doc values) exists finds the text field through _field_names
    expect(byName(doc.fields, '_field_names').flatMap((f) => f.tokens!.map((t) => t.term))).toEqual(['t']);
  });
});

describe('mapping merge', () => {
  const base = svc.parseMappings({ properties: { n: { type: 'long' }, t: { type: 'text', analyzer: 'standard' }, k: { type: 'keyword', ignore_above: 10 }, o: { properties: { x: { type: 'keyword' } } } } }, {});
  it('adds fields and multi-fields, updates updatable params', () => {
    const m = svc.merge(base, { properties: { z: { type: 'boolean' }, k: { type: 'keyword', ignore_above: 20, fields: { raw: { type: 'keyword' } } }, o: { properties: { y: { type: 'long' } } } } }, {});
    expect(m['properties']).toEqual({
      n: { type: 'long' },
      t: { type: 'text', analyzer: 'standard' },
      k: { type: 'keyword', ignore_above: 20, fields: { raw: { type: 'keyword' } } },
      o: { properties: { x: { type: 'keyword' }, y: { type: 'long' } } },
      z: { type: 'boolean' },
    });
  });
  it('conflicts', () => {
    expect(err(() => svc.merge(base, { properties: { n: { type: 'text' } } }, {}))).toEqual([
      'illegal_argument_exception', 'mapper [n] cannot be changed from type [long] to [text]',
    ]);
    expect(err(() => svc.merge(base, { properties: { t: { type: 'text', analyzer: 'simple' } } }, {}))).toEqual([
      'illegal_argument_exception', 'Mapper for [t] conflicts with existing mapper:\n\tCannot update parameter [analyzer] from [standard] to [simple]',
    ]);
    expect(err(() => svc.merge(base, { properties: { o: { type: 'keyword' } } }, {}))).toEqual([
      'illegal_argument_exception', "can't merge a non object mapping [o] with an object mapping",
    ]);
    expect(err(() => svc.merge(base, { properties: { n: { type: 'long', index: false } } }, {}))?.[1]).toBe(
      'Mapper for [n] conflicts with existing mapper:\n\tCannot update parameter [index] from [true] to [false]',
    );
  });
});

describe('document parsing', () => {
  const idx = index({
    properties: {
      msg: { type: 'text', fields: { raw: { type: 'keyword' } } },
      tag: { type: 'keyword', normalizer: 'lowercase', ignore_above: 5 },
      n: { type: 'integer' },
      f: { type: 'float' },
      s: { type: 'scaled_float', scaling_factor: 100 },
      d: { type: 'date' },
      b: { type: 'boolean' },
      ip: { type: 'ip' },
      nv: { type: 'keyword', null_value: 'NULL' },
      off: { type: 'keyword', index: false, doc_values: false },
      obj: { properties: { k: { type: 'keyword' } } },
      dis: { type: 'object', enabled: false },
    },
  });
  const dm = svc.documentMapper(idx);

  it('produces fields for every type', () => {
    const r = dm.parse(
      { msg: ['Hello World', 'again'], tag: ['ABC', 'toolong'], n: '42', f: 1.5, s: 1.234, d: '2020-01-01T00:00:00Z', b: 'true', ip: '192.168.0.1', nv: null, off: 'x', obj: { k: 'v' }, dis: { any: 1 } },
      '1',
      'r1',
    );
    expect(r.dynamicMappingUpdate).toBeUndefined();
    const f = r.doc.fields;
    expect(byName(f, '_id')).toEqual([{ name: '_id', tokens: [{ term: '1', position: 0 }], indexOptions: 'docs' }]);
    expect(byName(f, '_routing')[0].tokens).toEqual([{ term: 'r1', position: 0 }]);
    expect(byName(f, 'msg').map((x) => x.tokens!.map((t) => ({ term: t.term, position: t.position })))).toEqual([
      [{ term: 'hello', position: 0 }, { term: 'world', position: 1 }],
      [{ term: 'again', position: 102 }],
    ]);
    expect(byName(f, 'msg')[0].indexOptions).toBe('positions');
    expect(byName(f, 'msg')[0].norms).toBe(true);
    expect(byName(f, 'msg.raw').map((x) => x.keywordValues)).toEqual([['Hello World'], ['again']]);
    expect(byName(f, 'tag')).toEqual([{ name: 'tag', tokens: [{ term: 'abc', position: 0 }], indexOptions: 'docs', keywordValues: ['abc'] }]);
    expect(byName(f, 'n')).toEqual([{ name: 'n', pointValues: [42], numericValues: [42] }]);
    expect(byName(f, 's')[0].numericValues).toEqual([123]);
    expect(byName(f, 'd')[0].numericValues).toEqual([Date.UTC(2020, 0, 1)]);
    expect(byName(f, 'b')[0].pointValues).toEqual([1]);
    expect(byName(f, 'ip')[0].keywordValues).toEqual([encodeIp('192.168.0.1')]);
    expect(byName(f, 'nv')[0].keywordValues).toEqual(['NULL']);
    expect(byName(f, 'off')).toEqual([{ name: 'off' }]);
    expect(byName(f, 'obj.k')[0].keywordValues).toEqual(['v']);
    expect(byName(f, 'dis.any')).toEqual([]);
    expect(byName(f, '_field_names')[0].tokens!.map((t) => t.term).sort()).toEqual(['off']);
    expect(JSON.parse(Buffer.from(r.doc.source!).toString())).toEqual(expect.objectContaining({ n: '42' }));
  });

  it('reports ES document parsing errors', () => {
    expect(err(() => dm.parse({ n: 'abc' }, '1'))).toEqual([
      'document_parsing_exception', "[1:6] failed to parse field [n] of type [integer] in document with id '1'. Preview of field's value: 'abc'",
      'number_format_exception', 'For input string: "abc"',
    ]);
    expect(err(() => dm.parse({ x: 1, n: 3000000000 }, '2'))?.slice(1)).toEqual([
      "[1:12] failed to parse field [n] of type [integer] in document with id '2'. Preview of field's value: '3000000000'",
      'illegal_argument_exception', 'Value [3000000000] is out of range for an integer',
    ]);
    expect(err(() => dm.parse({ d: 'nope' }, '1'))?.[3]).toBe('failed to parse date field [nope] with format [strict_date_optional_time||epoch_millis]');
  });

  it('an unparsable number string: number_format_exception (Double.parseDouble), but long / unsigned_long documents say illegal_argument_exception', () => {
    const typeOf = (f: () => unknown): [string, string, boolean] | null => {
      try {
        f();
      } catch (e) {
        return [(e as EsError).type, (e as EsError).reason, (e as EsError).plain];
      }
      return null;
    };
    for (const t of ['integer', 'short', 'byte', 'double', 'float', 'half_float']) {
      expect(typeOf(() => parseNumber(t, 'abc'))).toEqual(['number_format_exception', 'For input string: "abc"', true]);
    }
    expect(typeOf(() => parseNumber('long', 'abc'))).toEqual(['illegal_argument_exception', 'For input string: "abc"', true]);
    expect(typeOf(() => parseNumber('unsigned_long', 'x1'))).toEqual(['illegal_argument_exception', 'For input string: "x1"', true]);
    // queries (NumberType.parse(Object)) go through Double.parseDouble first, whatever the type
    expect(typeOf(() => parseNumber('long', 'abc', true, true))).toEqual(['number_format_exception', 'For input string: "abc"', true]);
    expect(parseNumber('long', ' 42 ')).toBe(42);
  });

  it('document_parsing_exception is its own root cause: Java causes (number / date parse) stay in caused_by', () => {
    const rootOf = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        const body = (e as EsError).toBody();
        return { roots: (body.error['root_cause'] as { type: string }[]).map((r) => r.type), causedBy: (body.error['caused_by'] as { type: string }).type };
      }
      return null;
    };
    expect(rootOf(() => dm.parse({ n: 'abc' }, '1'))).toEqual({ roots: ['document_parsing_exception'], causedBy: 'number_format_exception' });
    expect(rootOf(() => dm.parse({ d: 'nope' }, '1'))).toEqual({ roots: ['document_parsing_exception'], causedBy: 'illegal_argument_exception' });
    const e = (() => {
      try {
        dm.parse({ n: 'abc' }, '1');
      } catch (x) {
        return x as EsError;
      }
      return null;
    })();
    expect((e!.cause as EsError).plain).toBe(true);
    expect(err(() => dm.parse({ b: 'yes' }, '1'))?.[3]).toBe('Failed to parse value [yes] as only [true] or [false] are allowed.');
    expect(err(() => dm.parse({ ip: 'x' }, '1'))?.[3]).toBe("'x' is not an IP string literal.");
    expect(err(() => dm.parse({ obj: 'v' }, '1'))).toEqual([
      'document_parsing_exception', '[1:8] object mapping for [obj] tried to parse field [obj] as object, but found a concrete value',
    ]);
  });

  it('dynamic mapping: strings, dates, numbers, booleans, objects', () => {
    const r = svc.documentMapper(index({})).parse({ s: 'hello', d: '2020-01-01', d2: '2020/01/01', l: 5, fl: 1.5, bo: false, o: { x: 'y' }, arr: [1, 2], nul: null }, '1');
    expect(r.dynamicMappingUpdate).toEqual({
      properties: {
        s: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } },
        d: { type: 'date' },
        d2: { type: 'date', format: 'yyyy/MM/dd HH:mm:ss||yyyy/MM/dd||epoch_millis' },
        l: { type: 'long' },
        fl: { type: 'float' },
        bo: { type: 'boolean' },
        o: { properties: { x: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } } } },
        arr: { type: 'long' },
      },
    });
    expect(byName(r.doc.fields, 's.keyword')[0].keywordValues).toEqual(['hello']);
    expect(byName(r.doc.fields, 'arr').length).toBe(2);
  });

  it('dynamic strict / false / runtime and templates', () => {
    expect(err(() => svc.documentMapper(index({ dynamic: 'strict' })).parse({ a: 1 }, '1'))).toEqual([
      'strict_dynamic_mapping_exception', '[1:6] mapping set to strict, dynamic introduction of [a] within [_doc] is not allowed',
    ]);
    expect(err(() => svc.documentMapper(index({ properties: { o: { dynamic: 'strict', properties: {} } } })).parse({ o: { a: 1 } }, '1'))?.[1]).toBe(
      '[1:11] mapping set to strict, dynamic introduction of [a] within [o] is not allowed',
    );
    const f = svc.documentMapper(index({ dynamic: false })).parse({ a: 1 }, '1');
    expect(f.dynamicMappingUpdate).toBeUndefined();
    expect(byName(f.doc.fields, 'a')).toEqual([]);
    expect(svc.documentMapper(index({ dynamic: 'runtime' })).parse({ a: 1, b: 'x' }, '1').dynamicMappingUpdate).toEqual({
      runtime: { a: { type: 'long' }, b: { type: 'keyword' } },
    });
    const t = svc.documentMapper(index({ dynamic_templates: [{ strings: { match_mapping_type: 'string', mapping: { type: 'keyword' } } }] })).parse({ a: 'x' }, '1');
    expect(t.dynamicMappingUpdate).toEqual({ properties: { a: { type: 'keyword' } } });
  });

  it('field types and names', () => {
    expect(svc.fieldType(idx, 'msg.raw')?.kind).toBe('keyword');
    expect(svc.fieldType(idx, 'tag')?.termValue('XyZ')).toBe('xyz');
    expect(svc.fieldType(idx, 'b')?.termValue('false')).toBe(0);
    expect(svc.fieldType(idx, 'd')?.parseValue?.('2020-01-01', undefined, true)).toBe(Date.UTC(2020, 0, 1, 23, 59, 59, 999));
    expect(svc.fieldType(idx, 'd')?.valueForDisplay(0)).toBe('1970-01-01T00:00:00.000Z');
    expect(svc.fieldType(idx, 'f')?.valueForDisplay(Math.fround(0.1))).toBe(0.1);
    expect(svc.fieldType(idx, 's')?.valueForDisplay(123)).toBe(1.23);
    expect(svc.fieldType(idx, 'ip')?.valueForDisplay(encodeIp('::ffff:10.0.0.1'))).toBe('10.0.0.1');
    expect(svc.matchingFieldNames(idx, 'ms*')).toEqual(['msg', 'msg.raw']);
  });
});

describe('ip', () => {
  it('encodes sortable terms and CIDR ranges', () => {
    expect(decodeIp(encodeIp('2001:db8:0:0:0:0:2:1'))).toBe('2001:db8::2:1');
    expect(encodeIp('10.0.0.2') > encodeIp('10.0.0.1')).toBe(true);
    expect(encodeIp('9.255.255.255') < encodeIp('10.0.0.0')).toBe(true);
    const [lo, hi] = cidrRange('192.168.0.0/16');
    expect(decodeIp(lo)).toBe('192.168.0.0');
    expect(decodeIp(hi)).toBe('192.168.255.255');
  });
});

describe('more mapping features', () => {
  it('rejects metadata fields in documents', () => {
    const dm = svc.documentMapper(index({}));
    expect(err(() => dm.parse({ _id: 'x' }, '1'))?.slice(0, 2)).toEqual([
      'document_parsing_exception', '[1:8] Field [_id] is a metadata field and cannot be added inside a document. Use the index API request parameters.',
    ]);
  });
  it('copy_to, source includes/excludes, flattened, constant_keyword, alias', () => {
    const idx = index({
      _source: { excludes: ['secret*', 'meta.x'] },
      properties: {
        first: { type: 'keyword', copy_to: 'full' },
        last: { type: 'keyword', copy_to: ['full'] },
        full: { type: 'text' },
        labels: { type: 'flattened' },
        env: { type: 'constant_keyword', value: 'prod' },
        who: { type: 'alias', path: 'first' },
        secret: { type: 'keyword' },
        meta: { properties: { x: { type: 'keyword' }, y: { type: 'keyword' } } },
      },
    });
    const dm = svc.documentMapper(idx);
    const r = dm.parse({ first: 'John', last: 'Smith', labels: { team: 'a', deep: { k: 1 } }, env: 'prod', secret: 's', meta: { x: 1, y: 2 } }, '1');
    expect(byName(r.doc.fields, 'full').map((f) => f.tokens!.map((t) => [t.term, t.position]))).toEqual([[['john', 0]], [['smith', 101]]]);
    expect(byName(r.doc.fields, 'labels').map((f) => f.keywordValues![0]).sort()).toEqual(['1', 'a']);
    expect(byName(r.doc.fields, 'labels.deep.k')[0].keywordValues).toEqual(['1']);
    expect(svc.fieldType(idx, 'labels.team')?.kind).toBe('keyword');
    expect(JSON.parse(Buffer.from(r.doc.source!).toString())).toEqual({ first: 'John', last: 'Smith', labels: { team: 'a', deep: { k: 1 } }, env: 'prod', meta: { y: 2 } });
    expect(err(() => dm.parse({ env: 'dev' }, '1'))?.[3]).toBe(
      '[constant_keyword] field [env] only accepts values that are equal to the value defined in the mappings [prod], but got [dev]',
    );
    expect(svc.fieldType(idx, 'who')?.name).toBe('first');
    expect(err(() => dm.parse({ who: 'x' }, '1'))?.[1]).toBe('[1:8] Cannot write to a field alias [who].');
  });
  it('dynamic templates: path_match, match with {name}, runtime', () => {
    const idx = index({
      dynamic_templates: [
        { longs_as_ints: { match_mapping_type: 'long', path_match: 'metrics.*', mapping: { type: 'integer' } } },
        { named: { match: 'kw_*', mapping: { type: 'keyword', meta: { from: '{name}' } } } },
        { rt: { match: 'rt_*', runtime: {} } },
      ],
    });
    const r = svc.documentMapper(idx).parse({ metrics: { a: 1 }, kw_x: 'v', other: 2, rt_s: 'x' }, '1');
    expect(r.dynamicMappingUpdate).toEqual({
      properties: { metrics: { properties: { a: { type: 'integer' } } }, kw_x: { type: 'keyword', meta: { from: 'kw_x' } }, other: { type: 'long' } },
      runtime: { rt_s: { type: 'keyword' } },
    });
  });
  it('numeric types: ranges, coercion, half_float and null_value validation', () => {
    const idx = index({ properties: { b: { type: 'byte' }, s: { type: 'short' }, h: { type: 'half_float' }, nc: { type: 'integer', coerce: false }, ul: { type: 'unsigned_long' } } });
    const dm = svc.documentMapper(idx);
    expect(byName(dm.parse({ b: '12.7' }, '1').doc.fields, 'b')[0].numericValues).toEqual([12]);
    expect(err(() => dm.parse({ b: 128 }, '1'))?.[3]).toBe('Value [128] is out of range for a byte');
    expect(err(() => dm.parse({ s: -32769 }, '1'))?.[3]).toBe('Value [-32769] is out of range for a short');
    expect(byName(dm.parse({ h: 0.1 }, '1').doc.fields, 'h')[0].numericValues).toEqual([0.0999755859375]);
    expect(svc.fieldType(idx, 'h')?.valueForDisplay(0.0999755859375)).toBe(0.1);
    expect(err(() => dm.parse({ nc: '5' }, '1'))?.[0]).toBe('document_parsing_exception');
    expect(err(() => dm.parse({ ul: -1 }, '1'))?.[3]).toBe('Value "-1" is out of range for an unsigned long');
    expect(err(() => svc.parseMappings({ properties: { n: { type: 'long', null_value: 'x' } } }, {}))?.[0]).toBe('mapper_parsing_exception');
    expect(err(() => dm.parse({ b: true }, '1'))?.[3]).toBe('Current token (VALUE_TRUE) not numeric, can not use numeric value accessors');
  });
  it('ignore_malformed and date formats in mappings', () => {
    const idx = index({ properties: { n: { type: 'long', ignore_malformed: true }, d: { type: 'date', format: 'dd/MM/yyyy||epoch_second' } } });
    const dm = svc.documentMapper(idx);
    expect(byName(dm.parse({ n: 'x' }, '1').doc.fields, 'n')).toEqual([]);
    expect(byName(dm.parse({ d: '02/01/2020' }, '1').doc.fields, 'd')[0].numericValues).toEqual([Date.UTC(2020, 0, 2)]);
    expect(byName(dm.parse({ d: 1577923200 }, '1').doc.fields, 'd')[0].numericValues).toEqual([Date.UTC(2020, 0, 2)]);
    expect(svc.fieldType(idx, 'd')?.formatValue(Date.UTC(2020, 0, 2))).toBe('02/01/2020');
    expect(svc.fieldType(idx, 'd')?.formatValue(Date.UTC(2020, 0, 2), 'yyyy')).toBe('2020');
  });
});

describe('raw source', () => {
  it('stores the raw source bytes unless source filtering applies', () => {
    const raw = '{ "a" : 1 }';
    const r = svc.documentMapper(index({ properties: { a: { type: 'long' } } })).parse({ a: 1 }, '1', undefined, raw);
    expect(Buffer.from(r.doc.source!).toString()).toBe(raw);
    const f = svc.documentMapper(index({ _source: { excludes: ['a'] }, properties: { a: { type: 'long' } } })).parse({ a: 1 }, '1', undefined, raw);
    expect(Buffer.from(f.doc.source!).toString()).toBe('{}');
    expect(svc.documentMapper(index({ _source: { enabled: false } })).parse({ a: 1 }, '1', undefined, raw).doc.source).toBeNull();
  });
});

describe('accept-only and text-like types', () => {
  it('accepts geo_point, dense_vector, ranges; search_as_you_type is text', () => {
    const idx = index({
      properties: {
        loc: { type: 'geo_point' },
        vec: { type: 'dense_vector', dims: 3, index: true, similarity: 'cosine' },
        r: { type: 'integer_range' },
        sayt: { type: 'search_as_you_type' },
      },
    });
    const r = svc.documentMapper(idx).parse({ loc: { lat: 1, lon: 2 }, vec: [1, 2, 3], r: { gte: 1, lte: 5 }, sayt: 'Quick Fox' }, '1');
    expect(byName(r.doc.fields, 'sayt')[0].tokens!.map((t) => t.term)).toEqual(['quick', 'fox']);
    expect(byName(r.doc.fields, '_field_names')[0].tokens!.map((t) => t.term).sort()).toEqual(['loc', 'r', 'vec']);
    expect(svc.fieldType(idx, 'sayt')?.kind).toBe('text');
    expect(svc.fieldType(idx, 'loc')?.kind).toBe('none');
  });
});

describe('object rendering', () => {
  it('renders empty objects as {type: object} and drops the type once sub-fields exist', () => {
    const m = svc.parseMappings({ properties: { o: { type: 'object' }, p: { properties: {} }, q: { properties: { a: { type: 'keyword' } } } } }, {});
    expect(m).toEqual({ properties: { o: { type: 'object' }, p: { type: 'object' }, q: { properties: { a: { type: 'keyword' } } } } });
    const merged = svc.merge(m, { properties: { o: { properties: { x: { type: 'long' } } } } }, {});
    expect((merged['properties'] as Record<string, unknown>)['o']).toEqual({ properties: { x: { type: 'long' } } });
    const r = svc.documentMapper(index({})).parse({ e: {} }, '1');
    expect(r.dynamicMappingUpdate).toEqual({ properties: { e: { properties: {} } } });
    expect(svc.merge({}, r.dynamicMappingUpdate, {})).toEqual({ properties: { e: { type: 'object' } } });
  });
});

describe('_ignored metadata field', () => {
  it('records fields skipped by ignore_above / ignore_malformed as an indexed keyword with doc values', () => {
    const dm = svc.documentMapper(
      index({
        properties: {
          k: { type: 'keyword', ignore_above: 3 },
          n: { type: 'long', ignore_malformed: true },
          t: { type: 'text', fields: { raw: { type: 'keyword', ignore_above: 2 } } },
          f: { type: 'flattened', ignore_above: 2 },
        },
      }),
    );
    const f = dm.parse({ k: ['ab', 'abcd'], n: 'x', t: 'abc', f: { a: 'xyz' } }, '1').doc.fields;
    expect(byName(f, '_ignored')).toEqual([
      {
        name: '_ignored',
        tokens: ['f', 'k', 'n', 't.raw'].map((term) => ({ term, position: 0 })),
        indexOptions: 'docs',
        keywordValues: ['f', 'k', 'n', 't.raw'],
      },
    ]);
    expect(byName(f, 'k')[0].keywordValues).toEqual(['ab']);
    expect(byName(dm.parse({ k: 'ab', n: 1, t: 'a' }, '2').doc.fields, '_ignored')).toEqual([]);
  });
  it('is a searchable keyword metadata field', () => {
    const ft = svc.fieldType(index({}), '_ignored');
    expect([ft?.kind, ft?.searchable, ft?.hasDocValues]).toEqual(['keyword', true, true]);
  });
});

describe('token_count', () => {
  it('indexes the number of analysed tokens as an integer (points + doc values), per value', () => {
    const idx = index({
      properties: {
        t: { type: 'text', fields: { len: { type: 'token_count', analyzer: 'standard' } } },
        s: { type: 'token_count', analyzer: 'stop' },
        p: { type: 'token_count', analyzer: 'stop', enable_position_increments: false },
        n: { type: 'token_count', analyzer: 'standard', null_value: 7 },
      },
    });
    const dm = svc.documentMapper(idx);
    const f = dm.parse({ t: ['hello big world', ''], s: 'the quick fox', p: 'the quick fox', n: null }, '1').doc.fields;
    expect(byName(f, 't.len')).toEqual([
      { name: 't.len', pointValues: [3], numericValues: [3] },
      { name: 't.len', pointValues: [0], numericValues: [0] },
    ]);
    // stop words leave position gaps: counted with position increments (the default), not without
    expect(byName(f, 's')[0].numericValues).toEqual([3]);
    expect(byName(f, 'p')[0].numericValues).toEqual([2]);
    expect(byName(f, 'n')[0].numericValues).toEqual([7]);
    const ft = svc.fieldType(idx, 't.len')!;
    expect([ft.kind, ft.isInteger, ft.searchable, ft.hasDocValues, ft.type, ft.termValue('3')]).toEqual(['numeric', true, true, true, 'token_count', 3]);
  });
});

describe('empty strings', () => {
  it('are null for numeric fields, false for booleans, errors for dates', () => {
    const dm = svc.documentMapper(index({ properties: { n: { type: 'long' }, m: { type: 'long', null_value: 7 }, b: { type: 'boolean' }, d: { type: 'date' } } }));
    const f = dm.parse({ n: '', m: '', b: '' }, '1').doc.fields;
    expect(byName(f, 'n')).toEqual([]);
    expect(byName(f, 'm')[0].numericValues).toEqual([7]);
    expect(byName(f, 'b')[0].numericValues).toEqual([0]);
    expect(err(() => dm.parse({ d: '' }, '1'))?.[0]).toBe('document_parsing_exception');
  });
});
