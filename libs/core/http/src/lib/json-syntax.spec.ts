import type { EsError } from '@strata/core-common';
import { findJsonSyntaxError } from './json-syntax.js';
import { parseJsonText } from './rest-request.js';

describe('findJsonSyntaxError', () => {
  it.each([
    ['{bad', 1, "Unexpected character ('b' (code 98)): was expecting double-quote to start field name"],
    ['{"a" 1}', 5, "Unexpected character ('1' (code 49)): was expecting a colon to separate field name and value"],
    ['{"a":1 "b":2}', 7, "Unexpected character ('\"' (code 34)): was expecting comma to separate Object entries"],
    ['[1,2', 4, 'Unexpected end-of-input: expected close marker for ARRAY'],
    ['[1,', 3, 'Unexpected end-of-input: expected a value'],
    ['{"a":1}}', 7, "Unexpected character ('}' (code 125)): expected end of input"],
  ])('%s', (text, offset, message) => {
    expect(findJsonSyntaxError(text)).toEqual({ offset, message });
  });
});

describe('deeply nested JSON', () => {
  const depthMessage = 'Document nesting depth (1001) exceeds the maximum allowed (1000, from `StreamReadConstraints.getMaxNestingDepth()`)';

  it('the syntax locator stops at level 1001 instead of recursing on', () => {
    expect(findJsonSyntaxError('['.repeat(200_000))).toEqual({ offset: 1000, message: depthMessage });
    expect(findJsonSyntaxError('['.repeat(999) + ']'.repeat(998))).toEqual({ offset: 1997, message: 'Unexpected end-of-input: expected close marker for ARRAY' });
  });

  it('parseJsonText answers x_content_parse_exception with the position, for valid and broken bodies', () => {
    for (const text of ['{"a":'.repeat(5000) + '1' + '}'.repeat(5000), '{"a":'.repeat(5000)]) {
      let err: EsError | undefined;
      try {
        parseJsonText(text);
      } catch (e) {
        err = e as EsError;
      }
      expect(err?.type).toBe('x_content_parse_exception');
      expect(err?.status).toBe(400);
      expect(err?.reason).toBe(`[1:5001] ${depthMessage}`);
    }
  });
});
