import type { EsError } from '@strata/core-common';
import { ScriptContexts } from '@strata/core-common';
import { compilePainless } from '@strata/core-painless';
import { CtxMap } from './ctx-map.js';
import { doc } from './testing/helpers.js';

function evalWith(src: string, source: Record<string, unknown>, params: Record<string, unknown> = {}) {
  const d = doc(source);
  const result = compilePainless(src, ScriptContexts.INGEST).run({ ctx: new CtxMap(d), params });
  return { result, d };
}

describe('ingest scripts on the shared Painless engine', () => {
  it.each([
    ["ctx.a == 'x'", { a: 'x' }, true],
    ["ctx.a != 'x'", { a: 'x' }, false],
    ["ctx.a?.b == 'x'", {}, false],
    ["ctx.a?.b?.c == null", { a: {} }, true],
    ["ctx.containsKey('f')", { f: 1 }, true],
    ["!ctx.containsKey('f')", { f: 1 }, false],
    ['ctx.n > 3 && ctx.n <= 10', { n: 5 }, true],
    ['ctx.n < 3 || ctx.n >= 10', { n: 5 }, false],
    ["ctx.s.startsWith('ab') && ctx.s.endsWith('z')", { s: 'abcz' }, true],
    ["ctx.s.toLowerCase().contains('bc')", { s: 'ABCD' }, true],
    ["ctx.tags.contains('x')", { tags: ['y', 'x'] }, true],
    ['ctx.tags.size() == 2', { tags: ['y', 'x'] }, true],
    ["ctx['a'] == 1", { a: 1 }, true],
    ["ctx._index == 'idx'", {}, true],
    ['ctx.n instanceof Integer', { n: 5 }, true],
    ["ctx.s instanceof String ? ctx.s.length() == 3 : false", { s: 'abc' }, true],
    ['ctx.x ?: 7', {}, 7],
    ['1 + 2 * 3', {}, 7],
    ['7 / 2', {}, 3],
    ['7.0 / 2', {}, 3.5],
    ["'a' + 1", {}, 'a1'],
    ['Math.max(3, ctx.n)', { n: 5 }, 5],
    ["Integer.parseInt('12') + 1", {}, 13],
    ["ctx.a == 1 && ctx.b == 'q'", { a: 1, b: 'q' }, true],
    ['[1, 2, 3].contains(2)', {}, true],
    ["['k': 1].k", {}, 1],
    ['ctx.m =~ /err(or)?/', { m: 'an error here' }, true],
    ['ctx.m ==~ /err(or)?/', { m: 'an error here' }, false],
    ['ctx.m ==~ /ERR/i', { m: 'err' }, true],
    ['def s = 0; for (int i = 0; i < 5; i++) { if (i == 3) { continue; } s += i; } return s;', {}, 7],
    ['def i = 0; while (true) { i++; if (i > 4) { break; } } return i;', {}, 5],
    ['10 / 4.0', {}, 2.5],
  ])('%s', (src, source, expected) => {
    expect(evalWith(src as string, source as Record<string, unknown>).result).toEqual(expected);
  });

  it('scripts mutate ctx, metadata and use params', () => {
    const { d } = evalWith("ctx.x = ctx.y * 2; ctx._index = 'other'; ctx.remove('y'); ctx.tags = [params.t]", { y: 21 }, { t: 'a' });
    expect(d.source).toEqual({ x: 42, tags: ['a'] });
    expect(d.meta['_index']).toBe('other');
  });
  it('statements: if/else, declarations, loops, compound assignment, return', () => {
    const src = `
      def total = 0;
      for (def v : ctx.values) { total += v; }
      if (total > 5) { ctx.big = true } else { ctx.big = false }
      ctx.count = ctx.count == null ? 1 : ctx.count + 1;
      ctx.nested = new HashMap();
      ctx.nested.put('k', total);
      return total;`;
    const { result, d } = evalWith(src, { values: [1, 2, 3] });
    expect(result).toBe(6);
    expect(d.source).toMatchObject({ big: true, count: 1, nested: { k: 6 } });
  });
  it('null pointer without null-safe access is a script_exception runtime error', () => {
    let err: unknown;
    try {
      evalWith('ctx.a.b == 1', {});
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ type: 'script_exception', reason: 'runtime error', cause: { type: 'null_pointer_exception' } });
    // the Java cause stays in caused_by: script_exception is the root cause
    expect(((err as EsError).toBody().error['root_cause'] as { type: string }[]).map((r) => r.type)).toEqual(['script_exception']);
  });
  it('compile errors are script_exception compile error', () => {
    let err: unknown;
    try {
      compilePainless('ctx.a == ', ScriptContexts.INGEST);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ type: 'script_exception', reason: 'compile error', metadata: { lang: 'painless', script: 'ctx.a == ' } });
    expect(((err as EsError).toBody().error['root_cause'] as { type: string }[]).map((r) => r.type)).toEqual(['script_exception']);
  });
  it('has no access to JS globals or prototypes', () => {
    expect(() => evalWith('process.exit(1)', {})).toThrow();
    expect(() => evalWith("ctx.constructor.constructor('return 1')()", {})).toThrow();
    const { d } = evalWith("ctx['__proto__'] = 1", {});
    expect(Object.keys(d.source)).toEqual([]);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
  it('infinite loops are cut off', () => {
    const src = 'def n = 0; for (def a : params.l) { for (def b : params.l) { for (def c : params.l) { n++ } } }';
    const l = Array.from({ length: 100 }, (_, i) => i);
    let err: unknown;
    try {
      compilePainless(src, ScriptContexts.INGEST, { maxLoopCounter: 10000 }).run({ ctx: null, params: { l } });
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ type: 'script_exception', cause: { type: 'painless_error' } });
  });
});
