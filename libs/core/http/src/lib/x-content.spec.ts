import { RawJson } from '@strata/core-common';
import { prettyJson, reindentJson } from './x-content.js';

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

describe('reindentJson / RawJson under pretty', () => {
  it('re-indents without touching strings and numbers', () => {
    const text = ' { "a" :[1.0, 1e3 ,-0.50E+2],"b":{ },"c":[ ],"d":"x\\" , y\\\\","e":{"f":true,"g":null}} ';
    expect(reindentJson(text, '')).toBe(
      '{\n  "a" : [\n    1.0,\n    1e3,\n    -0.50E+2\n  ],\n  "b" : { },\n  "c" : [ ],\n  "d" : "x\\" , y\\\\",\n  "e" : {\n    "f" : true,\n    "g" : null\n  }\n}',
    );
    expect(reindentJson('9007199254740993', '  ')).toBe('9007199254740993');
  });

  it('prettyJson nests a RawJson at the current indentation', () => {
    expect(prettyJson({ hits: [{ _source: new RawJson('{"v":9007199254740993}') }] })).toBe(
      '{\n  "hits" : [\n    {\n      "_source" : {\n        "v" : 9007199254740993\n      }\n    }\n  ]\n}\n',
    );
  });
});
