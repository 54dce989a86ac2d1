import { EsError } from '@strata/core-common';
import { compileScoreScript, parseScript } from './script-expression.js';

const env = (score: number, fields: Record<string, number[]>) => ({ score, doc: { values: (f: string) => fields[f] ?? [] } });

describe('score scripts', () => {
  it('arithmetic, params, doc values, Math and ternaries', () => {
    const run = (src: string, params = {}, score = 2, fields: Record<string, number[]> = { likes: [3, 5], none: [] }) =>
      compileScoreScript(src, params).fn(env(score, fields));
    expect(run('_score * 2 + 1')).toBe(5);
    expect(run("return doc['likes'].value * params.f;", { f: 10 })).toBe(30);
    expect(run("doc['likes'].size() + doc['none'].size()")).toBe(2);
    expect(run("doc['none'].empty ? 1 : 0")).toBe(1);
    expect(run("doc['likes'][1]")).toBe(5);
    expect(run('Math.log10(100) + Math.max(1, 7, 3)')).toBe(9);
    expect(run("saturation(doc['likes'].value, 3)")).toBe(0.5);
    expect(run("sigmoid(2, 2, 1)")).toBe(0.5);
    expect(run('decayNumericLinear(10, 10, 0, 0.5, 20)')).toBeCloseTo(0.5, 10);
    expect(run("params['w'] * -(1 + 2) % 4", { w: 2 })).toBe(-2);
    expect(run('1 < 2 && !(3 >= 4) ? 7 : 8')).toBe(7);
    expect(compileScoreScript("doc['a'].value + doc.b.value").fields).toEqual(['a', 'b']);
  });
  it('errors are script_exception', () => {
    const e = (() => {
      try {
        compileScoreScript('foo(1)');
      } catch (x) {
        return x as EsError;
      }
      throw new Error('no error');
    })();
    expect(e.type).toBe('script_exception');
    expect(e.reason).toBe('compile error');
    expect((e.toBody().error['root_cause'] as { type: string }[]).map((r) => r.type)).toEqual(['script_exception']);
    expect(() => compileScoreScript("doc['x'].value").fn(env(1, {}))).toThrow('runtime error');
    expect(() => compileScoreScript('params.missing')).toThrow('compile error');
    expect(() => parseScript({ id: 'stored' })).toThrow('unable to find script [stored] in cluster state');
    expect(parseScript('1 + 1')).toEqual({ source: '1 + 1', params: {} });
  });
});
