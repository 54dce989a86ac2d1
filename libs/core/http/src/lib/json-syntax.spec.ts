import { findJsonSyntaxError } from './json-syntax.js';

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
