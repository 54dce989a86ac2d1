import { lineCol, prettyJson } from './x-content.js';

describe('prettyJson', () => {
  it('prints like Elasticsearch', () => {
    expect(prettyJson({ a: 1, b: [1, 'x'], c: {}, d: [], e: { f: null } })).toBe(
      '{\n  "a" : 1,\n  "b" : [\n    1,\n    "x"\n  ],\n  "c" : { },\n  "d" : [ ],\n  "e" : {\n    "f" : null\n  }\n}\n',
    );
  });
  it('drops undefined members', () => {
    expect(prettyJson({ a: undefined, b: true })).toBe('{\n  "b" : true\n}\n');
  });
});

describe('lineCol', () => {
  it('counts lines and columns from 1', () => {
    expect(lineCol('{\n  "a": x', 9)).toEqual([2, 8]);
    expect(lineCol('{x', 1)).toEqual([1, 2]);
  });
});
