import { compileTemplate, compileValueSource, jsonEscape } from './template.js';
import { doc, run } from './testing/helpers.js';

describe('mustache templates', () => {
  const d = doc({ a: 'x', n: 3, o: { p: 'q' }, l: ['u', 'v'], quote: 'say "hi"\n' });
  it.each([
    ['plain', 'plain'],
    ['{{a}}', 'x'],
    ['{{{a}}}-{{n}}', 'x-3'],
    ['{{o.p}}', 'q'],
    ['{{_source.a}}', 'x'],
    ['{{_index}}/{{_id}}', 'idx/1'],
    ['{{_ingest.timestamp}}', '2024-05-17T10:11:12.345Z'],
    ['{{missing}}!', '!'],
    ['{{l}}', '[u, v]'],
    ['{{#l}}<{{.}}>{{/l}}', '<u><v>'],
    ['{{^missing}}none{{/missing}}', 'none'],
    ['{{! comment }}ok', 'ok'],
  ])('%s → %s', (src, expected) => {
    expect(compileTemplate(src).render(d)).toBe(expected);
  });
  it('constant templates are flagged', () => {
    expect(compileTemplate('abc').isConstant).toBe(true);
    expect(compileTemplate('a{{b}}').isConstant).toBe(false);
  });
  it('value sources render templates inside lists and maps', () => {
    expect(compileValueSource({ k: ['{{a}}', 1], '{{a}}key': true }).copy(d)).toEqual({ k: ['x', 1], xkey: true });
  });
  it('application/json media type escapes double-brace values, not triple-brace ones', () => {
    expect(jsonEscape('a"b\\c\n')).toBe('a\\"b\\\\c\\n');
    expect(run({ set: { field: 'r', value: '{{quote}}' } }, { quote: 'say "hi"' })!.source['r']).toBe('say \\"hi\\"');
    expect(run({ set: { field: 'r', value: '{{{quote}}}' } }, { quote: 'say "hi"' })!.source['r']).toBe('say "hi"');
    expect(run({ set: { field: 'r', value: '{{quote}}', media_type: 'text/plain' } }, { quote: 'say "hi"' })!.source['r']).toBe('say "hi"');
    expect(run({ set: { field: 'r', value: '{{q}}', media_type: 'application/x-www-form-urlencoded' } }, { q: 'a b&c' })!.source['r']).toBe('a+b%26c');
  });
  it('unclosed sections are rejected (parse_exception at PUT time)', () => {
    expect(() => compileTemplate('{{#a}}x')).toThrow();
    expect(() => run({ set: { field: 'x', value: '{{#a}}x' } }, {})).toThrow(expect.objectContaining({ type: 'parse_exception' }));
  });
});
