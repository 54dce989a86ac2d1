import { EsError } from '@strata/core-common';
import { DefaultAnalysisRegistry } from './analysis-registry.js';
import { porterStem } from './porter-stemmer.js';
import { StandardTokenizer, WhitespaceTokenizer, NGramTokenizer, PatternTokenizer } from './tokenizers.js';
import type { Token } from './analyzer.js';

const terms = (ts: Token[]) => ts.map((t) => t.term);
const reg = new DefaultAnalysisRegistry();

describe('standard tokenizer', () => {
  const tok = new StandardTokenizer();
  it('splits words with exact offsets, positions and types', () => {
    expect(tok.tokenize('The 2 QUICK Brown-Foxes')).toEqual([
      { term: 'The', position: 0, startOffset: 0, endOffset: 3, type: '<ALPHANUM>' },
      { term: '2', position: 1, startOffset: 4, endOffset: 5, type: '<NUM>' },
      { term: 'QUICK', position: 2, startOffset: 6, endOffset: 11, type: '<ALPHANUM>' },
      { term: 'Brown', position: 3, startOffset: 12, endOffset: 17, type: '<ALPHANUM>' },
      { term: 'Foxes', position: 4, startOffset: 18, endOffset: 23, type: '<ALPHANUM>' },
    ]);
  });
  it('keeps numbers with dots and commas, apostrophes, dotted words and underscores', () => {
    expect(terms(tok.tokenize("192.168.0.1 1,000.5 don't U.S.A. foo_bar index.html 10:30:00 john's"))).toEqual([
      '192.168.0.1', '1,000.5', "don't", 'U.S.A', 'foo_bar', 'index.html', '10', '30', '00', "john's",
    ]);
  });
  it('splits punctuation, URLs and paths like Lucene', () => {
    expect(terms(tok.tokenize('GET /api/v1/users?id=42 HTTP/1.1" 200 "-" "Mozilla/5.0 (X11)"'))).toEqual([
      'GET', 'api', 'v1', 'users', 'id', '42', 'HTTP', '1.1', '200', 'Mozilla', '5.0', 'X11',
    ]);
    expect(terms(tok.tokenize('a.b. ,x, 3.'))).toEqual(['a.b', 'x', '3']);
  });
  it('handles unicode letters, marks and ideographs', () => {
    const t = tok.tokenize('Café naïve 東京 ñu');
    expect(terms(t)).toEqual(['Café', 'naïve', '東', '京', 'ñu']);
    expect(t[2].type).toBe('<IDEOGRAPHIC>');
    expect(t[2].startOffset).toBe(11);
  });
  it('splits tokens longer than max_token_length', () => {
    const t = new StandardTokenizer(5).tokenize('abcdefghijkl x');
    expect(t.map((x) => [x.term, x.startOffset, x.endOffset, x.position])).toEqual([
      ['abcde', 0, 5, 0], ['fghij', 5, 10, 1], ['kl', 10, 12, 2], ['x', 13, 14, 3],
    ]);
  });
});

describe('built-in analyzers', () => {
  it('standard lowercases', () => {
    const a = reg.analyzer('standard')!;
    expect(terms(a.analyze('Hello WORLD, İstanbul'))).toEqual(['hello', 'world', 'i̇stanbul']);
    expect(a.positionIncrementGap).toBe(100);
  });
  it('simple, whitespace, keyword, stop, pattern, english', () => {
    expect(terms(reg.analyzer('simple')!.analyze("It's 2 FAST"))).toEqual(['it', 's', 'fast']);
    expect(terms(reg.analyzer('whitespace')!.analyze(' Foo-Bar  baz\t'))).toEqual(['Foo-Bar', 'baz']);
    expect(reg.analyzer('keyword')!.analyze('New York')).toEqual([
      { term: 'New York', position: 0, startOffset: 0, endOffset: 8, type: 'word' },
    ]);
    const stop = reg.analyzer('stop')!.analyze('The quick and the dead');
    expect(stop.map((t) => [t.term, t.position])).toEqual([['quick', 1], ['dead', 4]]);
    expect(terms(reg.analyzer('pattern')!.analyze('Foo_bar-BAZ qux'))).toEqual(['foo_bar', 'baz', 'qux']);
    expect(terms(reg.analyzer('english')!.analyze("The dog's running quickly, connections"))).toEqual(['dog', 'run', 'quickli', 'connect']);
  });
  it('unknown analyzer is undefined', () => {
    expect(reg.analyzer('nope')).toBeUndefined();
  });
});

describe('porter stemmer', () => {
  it.each([
    ['caresses', 'caress'], ['ponies', 'poni'], ['cats', 'cat'], ['agreed', 'agre'], ['plastered', 'plaster'],
    ['motoring', 'motor'], ['hopping', 'hop'], ['filing', 'file'], ['happy', 'happi'], ['relational', 'relat'],
    ['conditional', 'condit'], ['generalization', 'gener'], ['electrical', 'electr'], ['adjustment', 'adjust'],
    ['controll', 'control'], ['running', 'run'], ['flies', 'fli'], ['denied', 'deni'], ['humbled', 'humbl'], ['sized', 'size'],
    ['meeting', 'meet'], ['stating', 'state'], ['itemization', 'item'], ['sensational', 'sensat'], ['reference', 'refer'],
    ['colonizer', 'colon'], ['plotted', 'plot'], ['generously', 'gener'], ['hopefulness', 'hope'], ['oscillators', 'oscil'],
    ['triplicate', 'triplic'], ['formative', 'form'], ['allowance', 'allow'], ['gyroscopic', 'gyroscop'], ['defensible', 'defens'],
    ['replacement', 'replac'], ['adoption', 'adopt'], ['communism', 'commun'], ['effective', 'effect'], ['bowdlerize', 'bowdler'],
  ])('%s -> %s', (w, s) => expect(porterStem(w)).toBe(s));
});

describe('other tokenizers', () => {
  it('whitespace', () => {
    expect(new WhitespaceTokenizer().tokenize('a  b')).toEqual([
      { term: 'a', position: 0, startOffset: 0, endOffset: 1, type: 'word' },
      { term: 'b', position: 1, startOffset: 3, endOffset: 4, type: 'word' },
    ]);
  });
  it('ngram and edge_ngram', () => {
    expect(terms(new NGramTokenizer(1, 2, false, null).tokenize('abc'))).toEqual(['a', 'ab', 'b', 'bc', 'c']);
    expect(terms(new NGramTokenizer(2, 3, true, new Set(['letter'])).tokenize('quick fox'))).toEqual(['qu', 'qui', 'fo', 'fox']);
  });
  it('pattern', () => {
    expect(terms(new PatternTokenizer(',').tokenize('a,b,,c'))).toEqual(['a', 'b', 'c']);
    expect(terms(new PatternTokenizer('"((?:\\\\"|[^"])+)"', '', 1).tokenize('"value", "value with embedded \\" quote"'))).toEqual([
      'value',
      'value with embedded \\" quote',
    ]);
  });
});

describe('custom analysis from index settings', () => {
  const settings = {
    'index.analysis.analyzer.my.type': 'custom',
    'index.analysis.analyzer.my.tokenizer': 'whitespace',
    'index.analysis.analyzer.my.filter': ['lowercase', 'my_stop', 'asciifolding', 'unique'],
    'index.analysis.analyzer.my.char_filter': ['my_map'],
    'index.analysis.filter.my_stop.type': 'stop',
    'index.analysis.filter.my_stop.stopwords': ['foo'],
    'index.analysis.char_filter.my_map.type': 'mapping',
    'index.analysis.char_filter.my_map.mappings': ['& => and'],
    'index.analysis.normalizer.my_norm.type': 'custom',
    'index.analysis.normalizer.my_norm.filter': ['lowercase', 'asciifolding'],
    'index.analysis.analyzer.syn.tokenizer': 'standard',
    'index.analysis.analyzer.syn.filter': ['lowercase', 'my_syn'],
    'index.analysis.filter.my_syn.type': 'synonym',
    'index.analysis.filter.my_syn.synonyms': ['quick, fast', 'tv => television'],
  };
  it('builds custom analyzers, filters, char filters and normalizers', () => {
    const a = reg.analyzer('my', settings)!;
    expect(terms(a.analyze('Foo Café & Café'))).toEqual(['cafe', 'and']);
    expect(reg.normalizer('my_norm', settings)!.analyze('ÉCOLE')[0].term).toBe('ecole');
    expect(reg.normalizer('lowercase')!.analyze('ABC')[0].term).toBe('abc');
    const syn = reg.analyzer('syn', settings)!.analyze('Quick TV');
    expect(syn.map((t) => [t.term, t.position])).toEqual([['quick', 0], ['fast', 0], ['television', 1]]);
    expect(() => reg.validateSettings(settings)).not.toThrow();
  });
  it('reports ES errors for broken definitions', () => {
    const err = (s: Record<string, unknown>) => {
      try {
        reg.validateSettings(s);
      } catch (e) {
        return [(e as EsError).type, (e as EsError).reason];
      }
      return null;
    };
    expect(err({ 'index.analysis.analyzer.a.tokenizer': 'nope' })).toEqual([
      'illegal_argument_exception', 'Custom Analyzer [a] failed to find tokenizer under name [nope]',
    ]);
    expect(err({ 'index.analysis.analyzer.a.tokenizer': 'standard', 'index.analysis.analyzer.a.filter': ['nope'] })).toEqual([
      'illegal_argument_exception', 'Custom Analyzer [a] failed to find filter under name [nope]',
    ]);
    expect(err({ 'index.analysis.analyzer.a.type': 'bogus' })).toEqual(['illegal_argument_exception', 'Unknown analyzer type [bogus] for [a]']);
    expect(err({ 'index.analysis.analyzer.a.filter': ['lowercase'] })).toEqual([
      'illegal_argument_exception', 'analyzer [a] must specify either an analyzer type, or a tokenizer',
    ]);
  });
  it('_analyze specs', () => {
    const a = reg.forAnalyzeRequest({ tokenizer: 'standard', filter: ['uppercase', { type: 'length', min: 2 }] });
    expect(terms(a.analyze('a bb ccc'))).toEqual(['BB', 'CCC']);
    expect(() => reg.forAnalyzeRequest({ analyzer: 'nope' })).toThrow('failed to find global analyzer [nope]');
    expect(() => reg.forAnalyzeRequest({ tokenizer: 'nope' })).toThrow('failed to find global tokenizer under [nope]');
  });
});

describe('more token filters', () => {
  const run = (filter: unknown[], text: string, tokenizer: unknown = 'whitespace') =>
    reg.forAnalyzeRequest({ tokenizer, filter }).analyze(text).map((t) => [t.term, t.position]);
  it('word_delimiter', () => {
    expect(run(['word_delimiter'], "Neil's-Super-Duper-XL500--42+AutoCoder")).toEqual([
      ['Neil', 0], ['Super', 1], ['Duper', 2], ['XL', 3], ['500', 4], ['42', 5], ['Auto', 6], ['Coder', 7],
    ]);
    expect(run([{ type: 'word_delimiter_graph', catenate_words: true }], 'wi-fi')).toEqual([['wi', 0], ['wifi', 0], ['fi', 1]]);
  });
  it('shingle, elision, apostrophe, classic, limit, keep, pattern_replace, minimal_english, decimal_digit', () => {
    expect(run(['shingle'], 'quick brown fox').map((x) => x[0])).toEqual(['quick', 'quick brown', 'brown', 'brown fox', 'fox']);
    expect(run(['elision'], "l'avion j'aime").map((x) => x[0])).toEqual(['avion', 'aime']);
    expect(run(['apostrophe'], "Istanbul'a veya")).toEqual([['Istanbul', 0], ['veya', 1]]);
    expect(run(['classic'], "The I.B.M. dog's")).toEqual([['The', 0], ['IBM', 1], ['dog', 2]]);
    expect(run([{ type: 'limit', max_token_count: 2 }], 'a b c')).toEqual([['a', 0], ['b', 1]]);
    expect(run([{ type: 'keep', keep_words: ['b'] }], 'a b c')).toEqual([['b', 1]]);
    expect(run([{ type: 'pattern_replace', pattern: '(\\d+)', replacement: '<$1>' }], 'a1b22')).toEqual([['a<1>b<22>', 0]]);
    expect(run([{ type: 'stemmer', language: 'minimal_english' }], 'ponies cats glass')).toEqual([['pony', 0], ['cat', 1], ['glass', 2]]);
    expect(run(['decimal_digit'], '١٢٣')).toEqual([['123', 0]]);
  });
});

describe('more tokenizers', () => {
  const run = (tokenizer: unknown, text: string) => reg.forAnalyzeRequest({ tokenizer }).analyze(text).map((t) => [t.term, t.startOffset, t.endOffset]);
  it('path_hierarchy', () => {
    expect(run('path_hierarchy', '/one/two/three')).toEqual([['/one', 0, 4], ['/one/two', 0, 8], ['/one/two/three', 0, 14]]);
    expect(run({ type: 'path_hierarchy', delimiter: '-', replacement: '/', skip: 2 }, 'one-two-three-four-five')).toEqual([
      ['/three', 7, 13], ['/three/four', 7, 18], ['/three/four/five', 7, 23],
    ]);
  });
  it('char_group, simple_pattern, simple_pattern_split', () => {
    expect(run({ type: 'char_group', tokenize_on_chars: ['whitespace', '-', '\n'] }, 'The QUICK brown-fox')).toEqual([
      ['The', 0, 3], ['QUICK', 4, 9], ['brown', 10, 15], ['fox', 16, 19],
    ]);
    expect(run({ type: 'simple_pattern', pattern: '[0123456789]{3}' }, 'fd-786-335-514-x').map((x) => x[0])).toEqual(['786', '335', '514']);
    expect(run({ type: 'simple_pattern_split', pattern: '_' }, 'an_underscored_phrase').map((x) => x[0])).toEqual(['an', 'underscored', 'phrase']);
  });
});

describe('uax_url_email', () => {
  it('keeps e-mails and URLs whole', () => {
    const t = reg.forAnalyzeRequest({ tokenizer: 'uax_url_email' }).analyze('Email me at john.smith@global-international.com or see https://example.com/a?b=1.');
    expect(t.map((x) => [x.term, x.type, x.position])).toEqual([
      ['Email', '<ALPHANUM>', 0], ['me', '<ALPHANUM>', 1], ['at', '<ALPHANUM>', 2],
      ['john.smith@global-international.com', '<EMAIL>', 3], ['or', '<ALPHANUM>', 4], ['see', '<ALPHANUM>', 5],
      ['https://example.com/a?b=1', '<URL>', 6],
    ]);
    expect(t[3].startOffset).toBe(12);
  });
});
