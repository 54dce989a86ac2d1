import { create, doc, run, thrown } from '../testing/helpers.js';

describe('set', () => {
  it('sets a constant, a template and nested paths', () => {
    const d = run({ set: { field: 'a.b', value: '{{x}}-{{{y.z}}}' } }, { x: 1, y: { z: 'q' } })!;
    expect(d.source).toEqual({ x: 1, y: { z: 'q' }, a: { b: '1-q' } });
  });
  it('field name itself is a template', () => {
    const d = run({ set: { field: 'f_{{k}}', value: 3 } }, { k: 'x' })!;
    expect(d.source['f_x']).toBe(3);
  });
  it('override false keeps an existing non-null value but replaces null', () => {
    expect(run({ set: { field: 'a', value: 2, override: false } }, { a: 1 })!.source['a']).toBe(1);
    expect(run({ set: { field: 'a', value: 2, override: false } }, { a: null })!.source['a']).toBe(2);
  });
  it('copy_from deep copies', () => {
    const d = run({ set: { field: 'b', copy_from: 'a' } }, { a: { x: [1] } })!;
    expect(d.source['b']).toEqual({ x: [1] });
    expect(d.source['b']).not.toBe(d.source['a']);
  });
  it('ignore_empty_value skips empty renders', () => {
    expect(run({ set: { field: 'b', value: '{{missing}}', ignore_empty_value: true } }, {})!.source).toEqual({});
  });
  it('can write metadata and _ingest', () => {
    const d = run({ set: { field: '_index', value: 'other' } }, {})!;
    expect(d.meta['_index']).toBe('other');
    expect(run({ set: { field: 'ts', value: '{{_ingest.timestamp}}' } }, {})!.source['ts']).toBe('2024-05-17T10:11:12.345Z');
  });
  it('config errors are parse_exception with processor metadata', () => {
    const e = thrown(() => create({ set: { field: 'a' } }));
    expect(e.type).toBe('parse_exception');
    expect(e.reason).toBe('[value] required property is missing');
    expect(e.metadata).toEqual({ processor_type: 'set', property_name: 'value' });
    const e2 = thrown(() => create({ set: { value: 1, tag: 't' } }));
    expect(e2.reason).toBe('[field] required property is missing');
    expect(e2.metadata).toEqual({ processor_type: 'set', processor_tag: 't', property_name: 'field' });
    expect(thrown(() => create({ set: { field: 'a', value: 1, copy_from: 'b' } })).reason).toBe(
      '[copy_from] cannot set both `copy_from` and `value` in the same processor',
    );
    expect(thrown(() => create({ set: { field: 'a', value: 1, foo: 1 } })).reason).toBe(
      "processor [set] doesn't support one or more provided configuration parameters [foo]",
    );
  });
  it('unknown processor type', () => {
    const e = thrown(() => create({ foo: {} }));
    expect(e.type).toBe('parse_exception');
    expect(e.reason).toBe('No processor type exists with name [foo]');
    expect(e.metadata).toEqual({ processor_type: 'foo' });
  });
});

describe('append', () => {
  it('appends to missing, scalar and list fields; values may be lists', () => {
    expect(run({ append: { field: 'a', value: 'x' } }, {})!.source['a']).toEqual(['x']);
    expect(run({ append: { field: 'a', value: ['x', 'y'] } }, { a: 'w' })!.source['a']).toEqual(['w', 'x', 'y']);
    expect(run({ append: { field: 'a', value: '{{b}}' } }, { a: [1], b: 2 })!.source['a']).toEqual([1, '2']);
  });
  it('allow_duplicates false', () => {
    expect(run({ append: { field: 'a', value: ['x', 'z'], allow_duplicates: false } }, { a: ['x'] })!.source['a']).toEqual(['x', 'z']);
  });
});

describe('remove', () => {
  it('removes one or many fields', () => {
    expect(run({ remove: { field: ['a', 'b.c'] } }, { a: 1, b: { c: 2, d: 3 } })!.source).toEqual({ b: { d: 3 } });
  });
  it('missing field fails unless ignore_missing', () => {
    expect(thrown(() => run({ remove: { field: 'x' } }, {})).reason).toBe('field [x] not present as part of path [x]');
    expect(run({ remove: { field: 'x', ignore_missing: true } }, { a: 1 })!.source).toEqual({ a: 1 });
  });
  it('keep', () => {
    expect(run({ remove: { keep: ['a'] } }, { a: 1, b: 2 })!.source).toEqual({ a: 1 });
  });
});

describe('rename', () => {
  it('moves values', () => {
    expect(run({ rename: { field: 'a.b', target_field: 'c' } }, { a: { b: 1 } })!.source).toEqual({ a: {}, c: 1 });
  });
  it('errors as ES', () => {
    expect(thrown(() => run({ rename: { field: 'x', target_field: 'y' } }, {})).reason).toBe("field [x] doesn't exist");
    expect(thrown(() => run({ rename: { field: 'x', target_field: 'y' } }, { x: 1, y: 2 })).reason).toBe('field [y] already exists');
    expect(run({ rename: { field: 'x', target_field: 'y', override: true } }, { x: 1, y: 2 })!.source).toEqual({ y: 1 });
    expect(run({ rename: { field: 'x', target_field: 'y', ignore_missing: true } }, {})!.source).toEqual({});
  });
});

describe('convert', () => {
  it('converts scalars and arrays', () => {
    expect(run({ convert: { field: 'a', type: 'integer' } }, { a: '42' })!.source['a']).toBe(42);
    expect(run({ convert: { field: 'a', type: 'long' } }, { a: ['1', '2'] })!.source['a']).toEqual([1, 2]);
    expect(run({ convert: { field: 'a', type: 'float' } }, { a: '1.5' })!.source['a']).toBe(1.5);
    expect(run({ convert: { field: 'a', type: 'boolean' } }, { a: 'TRUE' })!.source['a']).toBe(true);
    expect(run({ convert: { field: 'a', type: 'string' } }, { a: 12 })!.source['a']).toBe('12');
    expect(run({ convert: { field: 'a', type: 'auto', target_field: 'b' } }, { a: '1.25' })!.source['b']).toBe(1.25);
    expect(run({ convert: { field: 'a', type: 'ip' } }, { a: '::1' })!.source['a']).toBe('::1');
    expect(run({ convert: { field: 'a', type: 'integer' } }, { a: '0x1F' })!.source['a']).toBe(31);
  });
  it('errors', () => {
    expect(thrown(() => run({ convert: { field: 'a', type: 'integer' } }, { a: 'x' })).reason).toBe('unable to convert [x] to integer');
    expect(thrown(() => run({ convert: { field: 'a', type: 'boolean' } }, { a: 'x' })).reason).toBe(
      '[x] is not a boolean value, cannot convert to boolean',
    );
    expect(thrown(() => run({ convert: { field: 'a', type: 'ip' } }, { a: '1.2.3' })).reason).toBe("'1.2.3' is not an IP string literal.");
    expect(thrown(() => create({ convert: { field: 'a', type: 'foo' } })).reason).toBe(
      '[type] type [foo] not supported, cannot convert field.',
    );
    expect(thrown(() => run({ convert: { field: 'a', type: 'integer' } }, {})).reason).toBe('field [a] not present as part of path [a]');
    expect(run({ convert: { field: 'a', type: 'integer', ignore_missing: true } }, {})!.source).toEqual({});
  });
});

describe('string processors', () => {
  it('lowercase/uppercase/trim on strings and lists', () => {
    expect(run({ lowercase: { field: 'a' } }, { a: 'AbC' })!.source['a']).toBe('abc');
    expect(run({ uppercase: { field: 'a', target_field: 'b' } }, { a: ['x', 'y'] })!.source['b']).toEqual(['X', 'Y']);
    expect(run({ trim: { field: 'a' } }, { a: '  x ' })!.source['a']).toBe('x');
  });
  it('wrong types and nulls', () => {
    expect(thrown(() => run({ lowercase: { field: 'a' } }, { a: 1 })).reason).toBe(
      'field [a] of type [java.lang.Integer] cannot be cast to [java.lang.String]',
    );
    expect(thrown(() => run({ lowercase: { field: 'a' } }, { a: ['x', 2] })).reason).toBe(
      'value [2] of type [java.lang.Integer] in list field [a] cannot be cast to [java.lang.String]',
    );
    expect(thrown(() => run({ lowercase: { field: 'a' } }, { a: null })).reason).toBe('field [a] is null, cannot process it.');
    expect(run({ lowercase: { field: 'a', ignore_missing: true } }, { a: null })!.source).toEqual({ a: null });
  });
  it('gsub, urldecode, bytes', () => {
    expect(run({ gsub: { field: 'a', pattern: '\\.', replacement: '-' } }, { a: '1.2.3' })!.source['a']).toBe('1-2-3');
    expect(run({ gsub: { field: 'a', pattern: '(\\d+)-(\\d+)', replacement: '$2:$1' } }, { a: '1-2' })!.source['a']).toBe('2:1');
    expect(run({ gsub: { field: 'a', pattern: '(?<x>\\d+)', replacement: '<${x}>\\$' } }, { a: 'a1b22' })!.source['a']).toBe('a<1>$b<22>$');
    expect(run({ urldecode: { field: 'a' } }, { a: 'a%20b+c' })!.source['a']).toBe('a b c');
    expect(run({ bytes: { field: 'a' } }, { a: '1kb' })!.source['a']).toBe(1024);
    expect(run({ bytes: { field: 'a' } }, { a: '2MB' })!.source['a']).toBe(2097152);
    expect(thrown(() => run({ bytes: { field: 'a' } }, { a: '12' })).reason).toBe(
      'failed to parse setting [Ingest Field] with value [12] as a size in bytes: unit is missing or unrecognized',
    );
    expect(thrown(() => create({ gsub: { field: 'a', pattern: '(', replacement: '' } })).type).toBe('parse_exception');
  });
  it('split and join', () => {
    expect(run({ split: { field: 'a', separator: ',' } }, { a: 'x,y,,' })!.source['a']).toEqual(['x', 'y']);
    expect(run({ split: { field: 'a', separator: ',', preserve_trailing: true } }, { a: 'x,y,,' })!.source['a']).toEqual(['x', 'y', '', '']);
    expect(run({ split: { field: 'a', separator: '\\s+', target_field: 'b' } }, { a: 'x  y' })!.source['b']).toEqual(['x', 'y']);
    expect(run({ join: { field: 'a', separator: '-' } }, { a: ['x', 1] })!.source['a']).toBe('x-1');
    expect(thrown(() => run({ join: { field: 'a', separator: '-' } }, { a: 'x' })).reason).toBe(
      'field [a] of type [java.lang.String] cannot be cast to [java.util.List]',
    );
  });
});

describe('json, dot_expander, fail, drop', () => {
  it('json', () => {
    expect(run({ json: { field: 'a', target_field: 'b' } }, { a: '{"x":[1,2]}' })!.source['b']).toEqual({ x: [1, 2] });
    expect(run({ json: { field: 'a', add_to_root: true } }, { a: '{"x":1}' })!.source).toEqual({ a: '{"x":1}', x: 1 });
    expect(
      run({ json: { field: 'a', add_to_root: true, add_to_root_conflict_strategy: 'merge' } }, { a: '{"o":{"y":2}}', o: { x: 1 } })!
        .source['o'],
    ).toEqual({ x: 1, y: 2 });
    expect(thrown(() => run({ json: { field: 'a' } }, { a: '{x' })).type).toBe('illegal_argument_exception');
    expect(thrown(() => create({ json: { field: 'a', add_to_root: true, target_field: 'b' } })).reason).toBe(
      '[target_field] Cannot set a target field while also setting `add_to_root` to true',
    );
  });
  it('dot_expander', () => {
    expect(run({ dot_expander: { field: 'a.b' } }, { 'a.b': 1, a: { c: 2 } })!.source).toEqual({ a: { b: 1, c: 2 } });
    expect(run({ dot_expander: { field: '*' } }, { 'x.y': 1, 'x.z': 2 })!.source).toEqual({ x: { y: 1, z: 2 } });
    expect(thrown(() => create({ dot_expander: { field: 'ab' } })).reason).toBe('[field] field does not contain a dot and is not a wildcard');
  });
  it('fail renders its template', () => {
    const e = thrown(() => run({ fail: { message: 'bad {{a}}' } }, { a: 'doc' }));
    expect(e.type).toBe('fail_processor_exception');
    expect(e.reason).toBe('bad doc');
  });
  it('drop returns null', () => {
    expect(run({ drop: {} }, { a: 1 })).toBeNull();
  });
});

describe('document paths', () => {
  it('numeric segments index arrays', () => {
    const d = doc({ a: [{ b: 1 }, { b: 2 }] });
    expect(d.getFieldValue('a.1.b')).toBe(2);
    expect(thrown(() => d.getFieldValue('a.5.b')).reason).toBe('[5] is out of bounds for array with length [2] as part of path [a.5.b]');
    expect(d.getFieldValue('_source.a.0.b')).toBe(1);
  });
  it('null and scalar parents give ES messages', () => {
    const d = doc({ n: null, s: 'x' });
    expect(thrown(() => d.getFieldValue('n.x')).reason).toBe('cannot resolve [x] from null as part of path [n.x]');
    expect(thrown(() => d.getFieldValue('s.x')).reason).toBe('cannot resolve [x] from object of type [java.lang.String] as part of path [s.x]');
    expect(thrown(() => d.setFieldValue('n.x', 1)).reason).toBe('cannot set [x] with null parent as part of path [n.x]');
    expect(thrown(() => d.setFieldValue('s.x', 1)).reason).toBe('cannot set [x] with parent object of type [java.lang.String] as part of path [s.x]');
    expect(thrown(() => d.removeField('n.x')).reason).toBe('cannot remove [x] from null as part of path [n.x]');
    expect(thrown(() => d.getFieldValue('missing.x')).reason).toBe('field [missing] not present as part of path [missing.x]');
    expect(thrown(() => d.getFieldValue('a..b')).reason).toBe('path [a..b] is not valid');
    expect(thrown(() => d.getFieldValue('')).reason).toBe('path cannot be null nor empty');
  });
  it('never pollutes Object.prototype', () => {
    const src = JSON.parse('{"__proto__": {"x": 1}, "a": "k=v&__proto__=z"}');
    const d = doc(src);
    d.setFieldValue('__proto__.polluted', 1);
    d.setFieldValue('constructor.prototype.polluted', 1);
    run({ set: { field: '__proto__.polluted2', value: 1 } }, {});
    run({ kv: { field: 'a', field_split: '&', value_split: '=' } }, { a: '__proto__=1&k=v' });
    run({ json: { field: 'j', add_to_root: true } }, { j: '{"__proto__": {"polluted3": 1}}' });
    run({ dot_expander: { field: '__proto__.polluted4' } }, JSON.parse('{"__proto__.polluted4": 1}'));
    const realmProto = Object.getPrototypeOf(structuredClone({})) as Record<string, unknown>;
    for (const k of ['polluted', 'polluted2', 'polluted3', 'polluted4', 'x']) expect(realmProto[k]).toBeUndefined();
    const probe: Record<string, unknown> = {};
    expect(probe['polluted']).toBeUndefined();
    expect(probe['polluted2']).toBeUndefined();
    expect(probe['polluted3']).toBeUndefined();
    expect(probe['polluted4']).toBeUndefined();
    expect(({} as Record<string, unknown>)['x']).toBeUndefined();
    expect(d.getFieldValue('__proto__')).toEqual({ x: 1, polluted: 1 });
    expect(() => d.getFieldValue('toString')).toThrow();
  });
});
