import { EsError } from '@strata/core-common';
import { compilePainless, PainlessScriptService } from './painless.js';
import { HostMap, ScriptDocValues } from './runtime.js';

const CTX = { globals: ['ctx', 'params'] };
const run = (src: string, ctx: unknown = {}, params: Record<string, unknown> = {}) => compilePainless(src, CTX).run({ ctx, params });
const err = (fn: () => unknown): EsError => {
  try {
    fn();
  } catch (e) {
    return e as EsError;
  }
  throw new Error('expected an error');
};

describe('painless engine', () => {
  it.each([
    ["ctx.a == 'x'", { a: 'x' }, true],
    ["ctx.a?.b == 'x'", {}, false],
    ["ctx.a?.b?.c == null", { a: {} }, true],
    ["ctx.containsKey('f')", { f: 1 }, true],
    ['ctx.n > 3 && ctx.n <= 10', { n: 5 }, true],
    ["ctx.s.startsWith('ab') && ctx.s.endsWith('z')", { s: 'abcz' }, true],
    ["ctx.tags.contains('x')", { tags: ['y', 'x'] }, true],
    ['ctx.x ?: 7', {}, 7],
    ['1 + 2 * 3', {}, 7],
    ['7 / 2', {}, 3],
    ['7.0 / 2', {}, 3.5],
    ['-7 / 2', {}, -3],
    ['7 % 3', {}, 1],
    ["'a' + 1", {}, 'a1'],
    ['Math.max(3, ctx.n)', { n: 5 }, 5],
    ["Integer.parseInt('12') + 1", {}, 13],
    ["['k': 1].k", {}, 1],
    ['ctx.m =~ /err(or)?/', { m: 'an error here' }, true],
    ['ctx.m ==~ /err(or)?/', { m: 'an error here' }, false],
    ['def s = 0; for (int i = 0; i < 5; i++) { if (i == 3) { continue; } s += i; } return s;', {}, 7],
    ['def i = 0; while (true) { i++; if (i > 4) { break; } } return i;', {}, 5],
    ['int i = 0; do { i += 2 } while (i < 7); i', {}, 8],
    ['double d = 5; d / 2', {}, 2.5],
    ['int x = 7.9; x', {}, 7],
    ['(int) 3.7 + (long) 2', {}, 5],
    ["String s = 'a,b,,c'; s.splitOnToken(',').size()", {}, 4],
    ["'abc'.substring(1)", {}, 'bc'],
    ["List l = [3, 1, 2]; l.sort((a, b) -> a - b); l", {}, [1, 2, 3]],
    ['def l = [1, null, 2, null]; l.removeIf(x -> x == null); l', {}, [1, 2]],
    ["Map m = ['a': 1]; m.getOrDefault('b', 9) + m.getOrDefault('a', 0)", {}, 10],
    ['[1, 2, 3, 4].stream().filter(x -> x % 2 == 0).map(x -> x * 10).collect(Collectors.toList())', {}, [20, 40]],
    ["def t = 0; for (e in ['a': 1, 'b': 2].entrySet()) { t += e.getValue() } t", {}, 3],
    ['ctx.n instanceof Integer ? 1 : 2', { n: 5 }, 1],
    ['Math.PI > 3 && Integer.MAX_VALUE == 2147483647', {}, true],
    ['5 & 3 | 8', {}, 9],
    ['1 << 4 >> 1', {}, 8],
    ['true ^ true', {}, false],
    ["String.join('-', ['a', 'b'])", {}, 'a-b'],
    ["def m = new HashMap(); m.put('x', [1]); m.x.add(2); m", {}, { x: [1, 2] }],
    ['int[] a = new int[3]; a[1] = 5; a', {}, [0, 5, 0]],
    ["params.get('p') * 2", {}, null],
  ])('%s', (src, ctx, expected) => {
    if (src === "params.get('p') * 2") {
      expect(run(src, ctx, { p: 21 })).toBe(42);
      return;
    }
    expect(run(src as string, ctx)).toEqual(expected);
  });

  it('doubles stay doubles: integral 2.0 divides as a double and prints as 2.0', () => {
    expect(run('double d = 2; d / 4')).toBe(0.5);
    expect(run('2.0 / 4')).toBe(0.5);
    expect(run('def x = 2.0; x / 4')).toBe(0.5);
    expect(run('def x = 2.0 * 3; x / 4')).toBe(1.5);
    expect(run('Math.sqrt(4) / 8')).toBe(0.25);
    expect(run("'' + 1.0 + '|' + String.valueOf(2.5) + '|' + 7")).toBe('1.0|2.5|7');
    expect(run('def m = [:]; m.x = 3.0; m')).toEqual({ x: 3 });
    expect(run('3.0 == 3 && 3.0 instanceof Double && !(3 instanceof Double)')).toBe(true);
    expect(run('(int) 7.0 / 2')).toBe(3);
    expect(run('-2.0 / 4')).toBe(-0.5);
  });

  it('the last expression is the result; a script without a value returns null', () => {
    expect(run('def x = 1; x + 1')).toBe(2);
    expect(run('def x = 1;')).toBeNull();
  });

  it('runaway nesting is a compile error, never a stack overflow; ordinary depth still runs', () => {
    const tooDeep = [
      '('.repeat(100_000) + '1' + ')'.repeat(100_000),
      'if (true) {'.repeat(20_000) + '}'.repeat(20_000) + ' return 1',
      '!'.repeat(100_000) + 'true',
      '1' + ' + 1'.repeat(100_000),
      'def a; ' + 'a = '.repeat(100_000) + '1',
      'null ?: '.repeat(100_000) + '1',
      'params' + '.a'.repeat(100_000),
    ];
    for (const src of tooDeep) {
      const e = err(() => compilePainless(src, CTX));
      expect(e.type).toBe('script_exception');
      expect(e.cause).toMatchObject({ type: 'illegal_argument_exception', reason: 'too many nested statements or expressions (more than 1000).' });
    }
    expect(run('('.repeat(400) + '1' + ')'.repeat(400) + ' + 1')).toBe(2);
    expect(run('1' + ' + 1'.repeat(900))).toBe(901);
    expect(run('if (true) {'.repeat(400) + 'return 5;' + '}'.repeat(400))).toBe(5);
  });

  it('compile errors are script_exception with script_stack, position and cause', () => {
    const e = err(() => compilePainless('ctx.a == ', CTX));
    expect(e.toBody().error).toEqual({
      root_cause: [
        { type: 'script_exception', reason: 'compile error', script_stack: ['ctx.a == ', '         ^---- HERE'], script: 'ctx.a == ', lang: 'painless', position: { offset: 9, start: 0, end: 9 } },
      ],
      type: 'script_exception',
      reason: 'compile error',
      script_stack: ['ctx.a == ', '         ^---- HERE'],
      script: 'ctx.a == ',
      lang: 'painless',
      position: { offset: 9, start: 0, end: 9 },
      caused_by: { type: 'illegal_argument_exception', reason: 'unexpected end of script.' },
    });
    expect(err(() => compilePainless('foo + 1', CTX)).cause).toMatchObject({ type: 'illegal_argument_exception', reason: 'cannot resolve symbol [foo]' });
    expect(err(() => compilePainless('Math.nope(1)', CTX)).cause).toMatchObject({ reason: 'Unknown call [nope] with [1] arguments on type [Math].' });
    expect(err(() => compilePainless('emit(1)', CTX)).cause).toMatchObject({ reason: 'Unknown call [emit] with [1] arguments.' });
    expect(err(() => compilePainless('ctx = 1', CTX)).cause).toMatchObject({ reason: 'invalid assignment: cannot assign a value to read-only variable [ctx]' });
    expect(err(() => compilePainless('break;', CTX)).cause).toMatchObject({ reason: 'invalid break statement: not inside a loop' });
    expect(err(() => compilePainless('', CTX)).cause).toMatchObject({ reason: 'Cannot generate an empty script.' });
  });

  it('runtime errors point at the failing statement', () => {
    const src = 'def x = 1; ctx.a.b = 2; return x;';
    const e = err(() => run(src, {}));
    expect(e.toBody().error).toMatchObject({
      type: 'script_exception',
      reason: 'runtime error',
      script_stack: ['ctx.a.b = 2;', '        ^---- HERE'],
      position: { offset: 19, start: 11, end: 23 },
      caused_by: { type: 'null_pointer_exception', reason: 'Cannot invoke "Object.put("b")" because value is null' },
    });
    expect(err(() => run('1 / 0')).cause).toMatchObject({ type: 'arithmetic_exception', reason: '/ by zero' });
    expect(err(() => run("[1][3]")).cause).toMatchObject({ type: 'index_out_of_bounds_exception', reason: 'Index 3 out of bounds for length 1' });
    expect(err(() => run("'x'.nope()")).cause).toMatchObject({ type: 'illegal_argument_exception', reason: 'dynamic method [java.lang.String, nope/0] not found' });
    expect(err(() => run("Integer.parseInt('x1')")).cause).toMatchObject({ type: 'number_format_exception', reason: 'For input string: "x1"' });
  });

  it('the loop counter stops runaway loops with Painless message', () => {
    for (const src of ['while (true) {}', 'for (;;) { }', 'def n = 0; for (def a : params.l) { for (def b : params.l) { for (def c : params.l) { n++ } } }', 'do { } while (true)']) {
      const e = err(() => compilePainless(src, CTX, { maxLoopCounter: 10_000 }).run({ ctx: {}, params: { l: Array.from({ length: 100 }, (_, i) => i) } }));
      expect(e.toBody().error['caused_by']).toEqual({ type: 'painless_error', reason: 'The maximum number of statements that can be executed in a loop has been reached.' });
    }
    // the default limit is 1,000,000 iterations
    expect(err(() => run('int i = 0; while (true) { i++ }')).cause).toMatchObject({ type: 'painless_error' });
    expect(run('int i = 0; while (i < 999999) { i++ } i')).toBe(999999);
  });

  it('memory bombs are cut off, not the node', () => {
    const e = err(() => run("String s = 'xxxxxxxxxxxxxxxx'; for (int i = 0; i < 40; i++) { s = s + s } s.length()"));
    expect(e.cause).toMatchObject({ type: 'circuit_breaking_exception' });
    expect(err(() => run('def l = [1]; for (int i = 0; i < 40; i++) { l.addAll(l) } l.size()')).cause).toMatchObject({ type: 'circuit_breaking_exception' });
  });

  it('has no access to JS globals, constructors or prototypes', () => {
    expect(() => run('process.exit(1)')).toThrow(EsError);
    expect(() => run("ctx.constructor.constructor('return 1')()")).toThrow(EsError);
    expect(() => run('this')).toThrow(EsError);
    expect(() => run("''.constructor")).toThrow(EsError);
    expect(() => run("[].__proto__")).toThrow(EsError);
    const c: Record<string, unknown> = {};
    expect(() => run("ctx['__proto__'] = ['polluted': 1]", c)).toThrow(EsError);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(run("ctx.toString", { toString: 5 })).toBe(5);
    expect(run("ctx.hasOwnProperty")).toBeNull();
  });

  it('regexes can be disabled', () => {
    const e = err(() => compilePainless("'a' ==~ /a/", CTX, { regexEnabled: false }));
    expect(e.cause?.message).toMatch(/^Regexes are disabled/);
  });

  it('doc values, host maps and context functions', () => {
    class Doc extends HostMap {
      get(k: string) {
        return new ScriptDocValues(k, k === 'n' ? [3, 4] : []);
      }
      put(): unknown {
        throw new Error('read only');
      }
      containsKey(k: string) {
        return k === 'n';
      }
      remove(): unknown {
        return null;
      }
      keys() {
        return ['n'];
      }
    }
    const emitted: unknown[] = [];
    const s = compilePainless("if (doc['m'].size() == 0 && !doc['n'].empty) { emit(doc['n'].value + doc['n'][1] + doc.n.length) }", { globals: ['doc', 'params'], functions: ['emit'] });
    s.run({ doc: new Doc(), params: {}, emit: (v: unknown) => emitted.push(v) });
    expect(emitted).toEqual([9]);
    const e = err(() => compilePainless("doc['m'].value", { globals: ['doc'] }).run({ doc: new Doc() }));
    expect(e.cause).toMatchObject({ type: 'illegal_state_exception', reason: "A document doesn't have a value for a field! Use doc[<field>].size()==0 to check if a document is missing a field!" });
  });

  it('the service caches compiled scripts, resolves stored scripts and limits the compilation rate', () => {
    let now = 0;
    const svc = new PainlessScriptService({ maxCompilationsRate: '2/1m', now: () => now, storedScript: (id) => (id === 's1' ? { lang: 'painless', source: 'params.a + 1' } : undefined) });
    const a = svc.compile({ source: '1 + 1', lang: 'painless', params: {} }, { name: 'x', globals: ['params'] });
    expect(svc.compile({ source: '1 + 1', lang: 'painless', params: {} }, { name: 'x', globals: ['params'] })).toBe(a);
    svc.compile({ source: '1 + 2', lang: 'painless', params: {} }, { name: 'x', globals: ['params'] });
    expect(err(() => svc.compile('1 + 3', { name: 'x', globals: [] })).toBody()).toMatchObject({ status: 429, error: { type: 'circuit_breaking_exception', reason: '[script] Too many dynamic script compilations within, max: [2/1m]; please use indexed, or scripts with parameters instead; this limit can be changed by the [script.max_compilations_rate] setting' } });
    now += 30_000;
    expect(svc.compile('1 + 3', { name: 'x', globals: [] }).run({})).toBe(4);
    expect(svc.compile({ id: 's1', lang: 'painless', params: {} }, { name: 'x', globals: ['params'] }).run({ params: { a: 1 } })).toBe(2);
    expect(err(() => svc.compile({ id: 'nope', lang: 'painless', params: {} }, { name: 'x', globals: [] })).toBody()).toMatchObject({ status: 404, error: { type: 'resource_not_found_exception', reason: 'unable to find script [nope] in cluster state' } });
    expect(err(() => svc.parse({ source: 'x', id: 'y' })).reason).toBe('must specify either [source] for an inline script or [id] for a stored script');
    expect(err(() => svc.compile({ source: 'x', lang: 'groovy', params: {} }, { name: 'x', globals: [] })).reason).toBe('script_lang not supported [groovy]');
  });
});
