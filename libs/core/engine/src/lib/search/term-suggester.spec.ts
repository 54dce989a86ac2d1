import { parseSuggest, reduceSuggest, shardTermSuggest } from './term-suggester.js';
import { fakeReader, simpleAnalyzer } from './testing/fake-index.js';

describe('term suggester', () => {
  const reader = fakeReader([
    [
      { id: '1', text: { t: 'search engine' } },
      { id: '2', text: { t: 'search searches' } },
    ],
    [{ id: '3', text: { t: 'seerch engines' } }],
  ]);
  it('suggests close terms with mode missing / popular / always', () => {
    const [spec] = parseSuggest({ s: { text: 'serch search', term: { field: 't' } } });
    const e = shardTermSuggest(spec!, reader, simpleAnalyzer);
    expect(e.map((x) => [x.text, x.options.map((o) => [o.text, o.freq])])).toEqual([
      ['serch', [['search', 2], ['seerch', 1]]],
      ['search', []],
    ]);
    const [pop] = parseSuggest({ s: { text: 'seerch', term: { field: 't', suggest_mode: 'popular' } } });
    expect(shardTermSuggest(pop!, reader, simpleAnalyzer)[0]!.options.map((o) => o.text)).toEqual(['search']);
    const [always] = parseSuggest({ s: { text: 'search', term: { field: 't', suggest_mode: 'always', sort: 'frequency' } } });
    expect(shardTermSuggest(always!, reader, simpleAnalyzer)[0]!.options.map((o) => o.text)).toEqual(['seerch', 'searches']);
  });
  it('merges shard entries', () => {
    const [spec] = parseSuggest({ text: 'serch', s: { term: { field: 't', size: 1 } } });
    const a = { s: [{ text: 'serch', offset: 0, length: 5, options: [{ text: 'search', score: 0.8, freq: 2 }] }] };
    const b = { s: [{ text: 'serch', offset: 0, length: 5, options: [{ text: 'search', score: 0.8, freq: 3 }, { text: 'sorch', score: 0.9, freq: 1 }] }] };
    expect(reduceSuggest([spec!], [a, b])).toEqual({ s: [{ text: 'serch', offset: 0, length: 5, options: [{ text: 'sorch', score: 0.9, freq: 1 }] }] });
  });
  it('only the term suggester is supported', () => {
    expect(() => parseSuggest({ s: { text: 'x', completion: { field: 'c' } } })).toThrow('suggester [completion] is not supported');
  });
});
