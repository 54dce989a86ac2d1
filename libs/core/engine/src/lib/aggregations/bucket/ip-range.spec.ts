import { run, type Mapping } from '../test-support.js';

const mapping: Mapping = { ip: 'ip', v: 'long' };
const docs = [
  { ip: '::1', v: 1 },
  { ip: '192.168.0.1', v: 2 },
  { ip: '192.168.0.7', v: 3 },
];

describe('ip_range (ES yaml)', () => {
  it('from/to ranges with generated keys, sub-aggs and avg_bucket', () => {
    const r = run(
      {
        range: {
          ip_range: { field: 'ip', ranges: [{ to: '192.168.0.0' }, { from: '192.168.0.0', to: '192.169.0.0' }, { from: '192.169.0.0' }] },
          aggs: { v: { sum: { field: 'v' } } },
        },
        range_avg_v: { avg_bucket: { buckets_path: 'range.v' } },
      },
      docs,
      mapping,
    );
    expect(r).toEqual({
      range: {
        buckets: [
          { key: '*-192.168.0.0', to: '192.168.0.0', doc_count: 1, v: { value: 1 } },
          { key: '192.168.0.0-192.169.0.0', from: '192.168.0.0', to: '192.169.0.0', doc_count: 2, v: { value: 5 } },
          { key: '192.169.0.0-*', from: '192.169.0.0', doc_count: 0, v: { value: 0 } },
        ],
      },
      range_avg_v: { value: 3 },
    });
  });

  it('CIDR masks; IPv4 is mapped into ::/24', () => {
    const r = run({ r: { ip_range: { field: 'ip', ranges: [{ mask: '::/24' }, { mask: '192.168.0.0/16' }] } } }, docs, mapping, { typedKeys: true });
    expect(r).toEqual({
      'ip_range#r': {
        buckets: [
          { key: '::/24', from: '::', to: '0:100::', doc_count: 3 },
          { key: '192.168.0.0/16', from: '192.168.0.0', to: '192.169.0.0', doc_count: 2 },
        ],
      },
    });
  });

  it('terms on ip show decoded addresses, ties in address order (::1 before ::ffff:127.0.0.1)', () => {
    const r = run({ t: { terms: { field: 'ip', include: ['127.0.0.1', '::1'] } } }, [...docs, { ip: '127.0.0.1' }], mapping);
    expect((r['t'] as { buckets: { key: string }[] }).buckets.map((b) => b.key)).toEqual(['::1', '127.0.0.1']);
  });
});
