/** A tiny stand-in for the mapper, for storage-engine tests: strings → text (positions) + keyword subfield, numbers → long. */
import type { ParsedDocument, ParsedField } from '../../mapper/parsed-document.js';

const enc = new TextEncoder();

export function simpleParse(source: Record<string, unknown>, id: string, routing?: string): ParsedDocument {
  const fields: ParsedField[] = [{ name: '_id', tokens: [{ term: id, position: 0 }], indexOptions: 'docs' }];
  const walk = (obj: Record<string, unknown>, prefix: string): void => {
    for (const [k, v] of Object.entries(obj)) {
      const name = prefix + k;
      const values = Array.isArray(v) ? v : [v];
      for (const val of values) {
        if (typeof val === 'string') {
          const tokens = val
            .toLowerCase()
            .split(/\W+/)
            .filter(Boolean)
            .map((term, position) => ({ term, position }));
          fields.push({ name, tokens, indexOptions: 'positions', norms: true });
          fields.push({ name: `${name}.keyword`, tokens: [{ term: val, position: 0 }], indexOptions: 'docs', keywordValues: [val] });
        } else if (typeof val === 'number') {
          fields.push({ name, numericValues: [val], pointValues: [val] });
        } else if (val && typeof val === 'object') walk(val as Record<string, unknown>, name + '.');
      }
    }
  };
  walk(source, '');
  return { id, routing, source: enc.encode(JSON.stringify(source)), fields };
}

export function parseBytes(bytes: Uint8Array, id: string, routing?: string): ParsedDocument {
  return simpleParse(JSON.parse(Buffer.from(bytes).toString('utf8')) as Record<string, unknown>, id, routing);
}
