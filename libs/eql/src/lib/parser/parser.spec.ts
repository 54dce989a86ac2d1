import { EsError } from '@strata/core-common';
import { parseEql, parseExpression } from './parser.js';
import type { Expr } from './ast.js';

function parseError(q: string, expr = false): string {
  try {
    if (expr) parseExpression(q);
    else parseEql(q);
  } catch (e) {
    expect(e).toBeInstanceOf(EsError);
    expect((e as EsError).type).toBe('parsing_exception');
    expect((e as EsError).status).toBe(400);
    return (e as EsError).reason;
  }
  throw new Error(`no error for ${q}`);
}

const lit = (e: Expr) => (e.kind === 'literal' ? e.value : undefined);

describe('EQL parser', () => {
  it('parses event queries, sequences and samples', () => {
    const ev = parseEql('process where process.name == "cmd.exe" | head 5');
    expect(ev.type).toBe('event');
    if (ev.type !== 'event') return;
    expect(ev.filter.category).toBe('process');
    expect(ev.pipes).toEqual([{ pos: { line: 1, col: 41 }, kind: 'head', count: 5 }]);
    const seq = parseEql('sequence by host.id with maxspan=30s [process where true] by a [network where true] by b until [process where false] by c');
    expect(seq.type).toBe('sequence');
    if (seq.type !== 'sequence') return;
    expect(seq.maxspanMs).toBe(30000);
    expect(seq.terms).toHaveLength(2);
    expect(seq.until?.filter.category).toBe('process');
    const runs = parseEql('sequence [a where true] with runs=3 ![b where true] [c where true]');
    if (runs.type !== 'sequence') throw new Error('sequence expected');
    expect(runs.terms.map((t) => [t.filter.category, t.missing])).toEqual([
      ['a', false],
      ['a', false],
      ['a', false],
      ['b', true],
      ['c', false],
    ]);
    const sample = parseEql('sample by host [any where true] by os [any where true] by os');
    expect(sample.type).toBe('sample');
  });

  it('decodes strings: escapes, unicode, raw triple-quoted strings', () => {
    expect(lit(parseExpression('"hello \\" world!"'))).toBe('hello " world!');
    expect(lit(parseExpression('"hello\\\\world"'))).toBe('hello\\world');
    expect(lit(parseExpression('"a\\u{41}\\u{1F4A9}"'))).toBe('aA\u{1F4A9}');
    expect(lit(parseExpression('"""""hello""world!""""'))).toBe('""hello""world!"');
    expect(lit(parseExpression('"""a\\nb"""'))).toBe('a\\nb');
  });

  it('numbers, negation, operators, optional and escaped fields, ~ functions', () => {
    expect(parseExpression('8589934592')).toMatchObject({ kind: 'literal', type: 'long', value: 8589934592 });
    expect(parseExpression('5')).toMatchObject({ kind: 'literal', type: 'integer' });
    expect(parseExpression('5e14')).toMatchObject({ kind: 'literal', type: 'double', value: 5e14 });
    expect(parseExpression('-5.2')).toMatchObject({ kind: 'literal', value: -5.2 });
    expect(parseExpression('?`f?oo` == null')).toMatchObject({ kind: 'comparison', left: { kind: 'field', name: 'f?oo', optional: true } });
    expect(parseExpression('`a``b`.c')).toMatchObject({ kind: 'field', name: 'a`b.c' });
    expect(parseExpression('startsWith~(x, "a")')).toMatchObject({ kind: 'function', name: 'startsWith~' });
    expect(parseExpression('x not in (1, 2)')).toMatchObject({ kind: 'not', expr: { kind: 'in', list: [{}, {}] } });
    expect(parseExpression('x like~ ("a*", "b?")')).toMatchObject({ kind: 'match', op: 'like~' });
    expect(parseExpression('1 + 2 * 3')).toMatchObject({ kind: 'arithmetic', op: '+', right: { kind: 'arithmetic', op: '*' } });
  });

  it('reports syntax errors as Elasticsearch does', () => {
    expect(parseError("'hello world'", true)).toBe(`line 1:2: Use double quotes ["] to define string literals, not single quotes [']`);
    expect(parseError("process where name=='hello world'")).toBe(`line 1:22: Use double quotes ["] to define string literals, not single quotes [']`);
    expect(parseError('process where name == ?"hello world"')).toBe(`line 1:24: Use triple double quotes ["""] to define unescaped string literals, not [?"]`);
    expect(parseError('"\\u{D}"', true)).toBe('line 1:2: Unicode sequence should use [2-8] hex digits, [\\u{D}] has [1]');
    expect(parseError('"\\u{d800}"', true)).toBe('line 1:2: Invalid unicode character code, [d800] is a surrogate code');
    expect(parseError('`wrong_identifier == true', true)).toBe("line 1:1: token recognition error at: '`wrong_identifier == true'");
    expect(parseError('`identifier` where foo == true')).toBe("line 1:1: no viable alternative at input '`identifier`'");
    expect(parseError('?x where true')).toBe("line 1:1: extraneous input '?' expecting {'any', 'join', 'sample', 'sequence', STRING, IDENTIFIER}");
    expect(parseError('a == a == a', true)).toBe(
      "line 1:8: mismatched input '==' expecting {<EOF>, 'and', 'in', 'in~', 'like', 'like~', 'not', 'or', 'regex', 'regex~', ':', '+', '-', '*', '/', '%', '.', '['}",
    );
    expect(parseError('process where foo == true | unique a')).toBe('line 1:27: Pipe [unique] is not supported');
    expect(parseError('process where foo == true | uniq a')).toMatch(/^line 1:29: Unrecognized pipe \[uniq\], did you mean/);
    expect(parseError('process where true | head -1')).toBe('line 1:20: Pipe [head] expects a positive integer but found [-1]');
    expect(parseError('registry where x[0] == "a"')).toBe('line 1:18: Array indexes are not supported');
    expect(parseError('process where a == 1 and descendant of [file where true]')).toBe('line 1:26: Process relationships are not supported');
    expect(parseError('join [a where true] [b where true]')).toBe('line 1:1: Join is not supported');
    expect(parseError('sequence with maxspan=1s by x [a where true] [b where true]')).toBe('line 1:26: Please specify sequence [by] before [with] not after');
    expect(parseError('sequence with maxspan=30 [a where true] [b where true]')).toBe('line 1:23: No time unit specified, did you mean [s] as in [30s]?');
    expect(parseError('sequence [a where true] by x [b where true]')).toBe('line 1:30: Inconsistent number of join keys specified; expected [1] but found [0]');
    expect(parseError('sequence [a where true] with runs=0 [b where true]')).toBe('line 1:35: A positive runs value greater than 0 is required; found [0]');
    expect(parseError('sequence [a where true] with foo=2 [b where true]')).toBe('line 1:30: Unrecognized option [foo], expecting [runs]');
    expect(parseError('sequence ![a where true] ![b where true]')).toBe('line 1:1: A sequence requires at least one positive event query; found none');
    expect(parseError('process where x = 1')).toMatch(/^line 1:17: mismatched input '='/);
    expect(parseError('process where')).toMatch(/^line 1:14: mismatched input '<EOF>'/);
    expect(parseError('process where a #', true)).toBe("line 1:17: token recognition error at: '#'");
  });
});
