import { run, runShards, type Mapping } from '../test-support.js';
import { jlhScore } from './significant-terms.js';

const mapping: Mapping = { tag: 'keyword', crime: 'keyword' };
const docs = Array.from({ length: 10 }, (_, i) => ({ tag: i < 3 ? ['common', 'rare'] : ['common'], crime: i < 3 ? 'bike' : 'other' }));

describe('significant_terms', () => {
  it('JLH score', () => {
    expect(jlhScore(3, 3, 3, 10)).toBeCloseTo((1 - 0.3) * (1 / 0.3), 12);
    expect(jlhScore(3, 3, 10, 10)).toBe(0);
  });
  it('finds the term over-represented in the foreground', () => {
    const r = run({ s: { significant_terms: { field: 'tag' } } }, docs, mapping, { typedKeys: true, query: { term: { crime: 'bike' } } });
    expect(r).toEqual({
      'sigsterms#s': {
        doc_count: 3,
        bg_count: 10,
        buckets: [{ key: 'rare', doc_count: 3, score: jlhScore(3, 3, 3, 10), bg_count: 3 }],
      },
    });
  });
  it('merges shards; min_doc_count applies to the total', () => {
    const { rendered } = runShards({ s: { significant_terms: { field: 'tag' } } }, [[docs.slice(0, 5)], [docs.slice(5)]], mapping, { query: { term: { crime: 'bike' } } });
    // like ES, a shard that does not return a term contributes no background frequency for it
    expect(rendered['s']).toEqual({
      doc_count: 3,
      bg_count: 10,
      buckets: [
        { key: 'rare', doc_count: 3, score: jlhScore(3, 3, 3, 10), bg_count: 3 },
        { key: 'common', doc_count: 3, score: jlhScore(3, 3, 5, 10), bg_count: 5 },
      ],
    });
    const none = run({ s: { significant_terms: { field: 'tag', min_doc_count: 4 } } }, docs, mapping, { query: { term: { crime: 'bike' } } });
    expect(none).toEqual({ s: { doc_count: 3, bg_count: 10, buckets: [] } });
  });
});
