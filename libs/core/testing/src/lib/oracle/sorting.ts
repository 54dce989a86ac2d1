/**
 * Field sorts from the Elasticsearch reference: asc uses a multi-valued field's minimum and desc its
 * maximum unless `mode` says otherwise; documents without a value go last unless `missing: _first`; the
 * generated sort always ends with the unique `seq` field, so the expected order is total.
 */
import fc from 'fast-check';
import { compareKey, keysOf, type Corpus, type Json, type ModelDoc, type OracleField, type OracleMapping, type SortKey } from './model.js';

export const SEQ_FIELD = 'seq';

export interface SortSpecItem {
  field: string;
  order: 'asc' | 'desc';
  missing?: '_first' | '_last';
  mode?: 'min' | 'max';
}

const SORTABLE = ['keyword', 'long', 'integer', 'double', 'float', 'date', 'ip', 'boolean'];

export function sortArbitrary(mapping: OracleMapping): fc.Arbitrary<SortSpecItem[]> {
  // (fields inside nested objects need a `nested` sort context: not generated)
  const fields = mapping.fields.filter((f) => SORTABLE.includes(f.type) && !f.nested);
  if (fields.length === 0) return fc.constant([{ field: SEQ_FIELD, order: 'asc' }]);
  const item = fc.record(
    {
      field: fc.constantFrom(...fields.map((f) => f.name)),
      order: fc.constantFrom('asc' as const, 'desc' as const),
      missing: fc.constantFrom('_first' as const, '_last' as const),
      mode: fc.constantFrom('min' as const, 'max' as const),
    },
    { requiredKeys: ['field', 'order'] },
  );
  return fc
    .array(item, { minLength: 1, maxLength: 2 })
    .map((items): SortSpecItem[] => [...items, { field: SEQ_FIELD, order: 'asc' }]);
}

export function renderSort(sort: SortSpecItem[]): Json[] {
  return sort.map(({ field, ...opts }) => ({ [field]: opts }));
}

function sortKey(doc: ModelDoc, f: OracleField, item: SortSpecItem): SortKey | null {
  const keys = keysOf(doc, f);
  if (keys.length === 0) return null;
  const mode = item.mode ?? (item.order === 'asc' ? 'min' : 'max');
  const sorted = [...keys].sort((a, b) => compareKey(f.type, a, b));
  return mode === 'min' ? sorted[0]! : sorted[sorted.length - 1]!;
}

/** the documents in the sort's order */
export function sortDocs(docs: Corpus, sort: SortSpecItem[], mapping: OracleMapping): ModelDoc[] {
  const fieldFor = (name: string): OracleField => (name === SEQ_FIELD ? { name, type: 'long' } : mapping.fields.find((f) => f.name === name)!);
  const keyed = docs.map((d) => ({ d, keys: sort.map((s) => (s.field === SEQ_FIELD ? Number(d.id) : sortKey(d, fieldFor(s.field), s))) }));
  keyed.sort((a, b) => {
    for (let i = 0; i < sort.length; i++) {
      const s = sort[i]!;
      const ka = a.keys[i]!;
      const kb = b.keys[i]!;
      if (ka === null || kb === null) {
        if (ka === kb) continue;
        const missingFirst = s.missing === '_first';
        return (ka === null) === missingFirst ? -1 : 1;
      }
      const c = compareKey(fieldFor(s.field).type, ka, kb);
      if (c !== 0) return s.order === 'asc' ? c : -c;
    }
    return 0;
  });
  return keyed.map((k) => k.d);
}
