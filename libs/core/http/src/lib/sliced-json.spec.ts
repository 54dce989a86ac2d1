import { RawJson, seededRandom, stringifyJson } from '@strata/core-common';
import { hasLargeArray, SLICE_ELEMENTS, SLICED_ARRAY_MIN, stringifySliced } from './sliced-json.js';

describe('stringifySliced', () => {
  const rand = seededRandom(11);
  const text = (): string => ['a', 'é', '"q"', '\u0000array-x\u0000', '😀', '\\', ''][Math.floor(rand() * 7)] + String(Math.floor(rand() * 1e6));
  const item = (i: number): Record<string, unknown> =>
    rand() < 0.2
      ? { index: { _index: 'x', _id: text(), status: 400, error: { type: 'mapper_parsing_exception', reason: text() } } }
      : { create: { _index: 'x', _id: `id${i}`, _version: 1, result: 'created', _shards: { total: 1, successful: 1, failed: 0 }, _seq_no: i, status: 201, skip: undefined } };
  const hit = (i: number): Record<string, unknown> => ({
    _index: 'x',
    _id: text(),
    _score: rand() < 0.5 ? null : rand(),
    // sources kept as sent (big integers exact) are raw JSON text
    _source: rand() < 0.5 ? new RawJson(`{"n":12345678901234567890,"t":${JSON.stringify(text())}}`) : { t: text(), a: [1, 'two', null] },
    sort: [i, text()],
  });

  for (const n of [0, 10, SLICED_ARRAY_MIN - 1, SLICED_ARRAY_MIN, SLICED_ARRAY_MIN + SLICE_ELEMENTS + 1, 5000]) {
    it(`gives stringifyJson's text, byte for byte: a bulk response of ${n} items and a page of ${n} hits`, async () => {
      const bulk = { took: 12, errors: rand() < 0.5, items: Array.from({ length: n }, (_, i) => item(i)), tail: text() };
      expect(hasLargeArray(bulk)).toBe(n >= SLICED_ARRAY_MIN);
      expect(await stringifySliced(bulk)).toBe(stringifyJson(bulk));
      const page = {
        _scroll_id: text(),
        took: 3,
        hits: { total: { value: n, relation: 'eq' }, max_score: null, hits: Array.from({ length: n }, (_, i) => hit(i)) },
        aggregations: { a: { buckets: [{ key: text(), doc_count: 1 }] } },
      };
      expect(hasLargeArray(page)).toBe(n >= SLICED_ARRAY_MIN);
      expect(await stringifySliced(page)).toBe(stringifyJson(page));
    });
  }

  it('lets the event loop turn between slices', async () => {
    const body = { took: 1, errors: false, items: Array.from({ length: 5000 }, (_, i) => item(i)) };
    let turns = 0;
    let done = false;
    const tick = (): void => {
      turns++;
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    const s = await stringifySliced(body);
    done = true;
    expect(s).toBe(stringifyJson(body));
    expect(turns).toBeGreaterThanOrEqual(5000 / SLICE_ELEMENTS - 1);
  });

  it('leaves other bodies to stringifyJson (no large array where responses hold them)', async () => {
    const other = { docs: Array.from({ length: 3000 }, (_, i) => ({ i })), hits: Array.from({ length: 3000 }, (_, i) => i) };
    expect(hasLargeArray(other)).toBe(false);
    expect(hasLargeArray(Array.from({ length: 3000 }, (_, i) => i))).toBe(false);
    expect(await stringifySliced(other)).toBe(stringifyJson(other));
  });
});
