import { EsError } from '@strata/core-common';
import { checkImmenseTerms, immenseTerm, MAX_TERM_LENGTH } from './immense-terms.js';

const doc = (fields: Array<{ name: string; terms: string[] }>) => ({
  id: '1',
  source: null,
  fields: fields.map((f) => ({ name: f.name, tokens: f.terms.map((term, position) => ({ term, position })) })),
});

describe('immense terms', () => {
  it('accepts terms up to 32766 UTF-8 bytes and fields without tokens', () => {
    expect(() => checkImmenseTerms(doc([{ name: 'k', terms: ['a'.repeat(MAX_TERM_LENGTH), 'é'.repeat(16383)] }]))).not.toThrow();
    expect(() => checkImmenseTerms({ id: '1', source: null, fields: [{ name: 'n', numericValues: [1] }] })).not.toThrow();
  });

  it('rejects the first longer term with Lucene / ES wording, signed byte prefix and the byte count', () => {
    let err: unknown;
    try {
      checkImmenseTerms(doc([{ name: 'ok', terms: ['x'] }, { name: 'a.b', terms: ['short', 'é'.repeat(16384)] }]));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(EsError);
    const e = err as EsError;
    expect(e.type).toBe('illegal_argument_exception');
    expect(e.status).toBe(400);
    expect(e.reason).toBe(
      `Document contains at least one immense term in field="a.b" (whose UTF8 encoding is longer than the max length 32766), all of which were skipped.  Please correct the analyzer to not produce such terms.  The prefix of the first immense term is: '[${Array(15).fill('-61, -87').join(', ')}]...', original message: bytes can be at most 32766 in length; got 32768`,
    );
    expect(e.toBody().error['caused_by']).toEqual({ type: 'max_bytes_length_exceeded_exception', reason: 'bytes can be at most 32766 in length; got 32768' });
    expect(e.guessRootCauses().map((c) => c.type)).toEqual(['illegal_argument_exception']);
  });

  it('a doc-values-only value over the limit: Lucene DocValuesField error', () => {
    const d = { id: '1', source: null, fields: [{ name: 'k', keywordValues: ['x'.repeat(40000)] }] };
    expect(() => checkImmenseTerms(d)).toThrow('DocValuesField "k" is too large, must be <= 32766');
    expect(() => checkImmenseTerms({ id: '1', source: null, fields: [{ name: 'k', keywordValues: ['x'.repeat(32766)] }] })).not.toThrow();
  });

  it('prefix is the first 30 bytes', () => {
    expect(immenseTerm('k', 'abc'.repeat(20000), 60000).reason).toContain(
      `'[${Array(10).fill('97, 98, 99').join(', ')}]...', original message: bytes can be at most 32766 in length; got 60000`,
    );
  });
});
