/**
 * The AnalysisRegistry: built-in analyzers, tokenizers, filters, char filters and normalizers, and custom
 * ones defined in `index.analysis.*` index settings (cached per settings snapshot).
 */
import { injectable } from 'inversify';
import { Errors, nestSettings } from '@strata/core-common';
import type { AnalysisRegistry } from '../services.js';
import type { Analyzer, Token } from './analyzer.js';
import { ENGLISH_STOP_WORDS, STOP_WORD_LISTS } from './stop-words.js';
import {
  KeywordTokenizer,
  LetterTokenizer,
  NGramTokenizer,
  PatternTokenizer,
  StandardTokenizer,
  WhitespaceTokenizer,
  PathHierarchyTokenizer,
  CharGroupTokenizer,
  SimplePatternTokenizer,
  UaxUrlEmailTokenizer,
  type TokenChars,
  type Tokenizer,
} from './tokenizers.js';
import {
  asciiFoldingFilter,
  edgeNGramFilter,
  htmlStripCharFilter,
  lengthFilter,
  lowercaseFilter,
  mappingCharFilter,
  nGramFilter,
  patternReplaceCharFilter,
  porterStemFilter,
  possessiveEnglishFilter,
  reverseFilter,
  stopFilter,
  synonymFilter,
  trimFilter,
  truncateFilter,
  uniqueFilter,
  uppercaseFilter,
  minimalEnglishFilter,
  wordDelimiterFilter,
  shingleFilter,
  elisionFilter,
  DEFAULT_ELISION_ARTICLES,
  decimalDigitFilter,
  apostropheFilter,
  classicFilter,
  patternReplaceFilter,
  limitFilter,
  flattenGraphFilter,
  removeDuplicatesFilter,
  keepWordsFilter,
  keepTypesFilter,
  type CharFilter,
  type TokenFilter,
} from './token-filters.js';

/** An analyzer made of char filters, a tokenizer and token filters. */
export class ChainAnalyzer implements Analyzer {
  constructor(
    readonly name: string,
    private readonly tokenizer: Tokenizer,
    private readonly filters: readonly TokenFilter[] = [],
    private readonly charFilters: readonly CharFilter[] = [],
    readonly positionIncrementGap = 100,
  ) {}
  analyze(text: string): Token[] {
    for (const cf of this.charFilters) text = cf.apply(text);
    let tokens = this.tokenizer.tokenize(text);
    for (const f of this.filters) tokens = f.filter(tokens);
    return tokens;
  }
}

/** standard tokenizer + lowercase (+ optional stop words), with a whole-string lowercase fast path. */
export class StandardAnalyzer implements Analyzer {
  private readonly tokenizer: StandardTokenizer;
  private readonly stop: TokenFilter | null;
  constructor(
    readonly name = 'standard',
    maxTokenLength = 255,
    stopwords: readonly string[] = [],
    readonly positionIncrementGap = 100,
  ) {
    this.tokenizer = new StandardTokenizer(maxTokenLength);
    this.stop = stopwords.length ? stopFilter(stopwords) : null;
  }
  analyze(text: string): Token[] {
    const lower = text.toLowerCase();
    let tokens: Token[];
    if (lower.length === text.length) tokens = this.tokenizer.tokenize(lower);
    else tokens = lowercaseFilter.filter(this.tokenizer.tokenize(text));
    return this.stop ? this.stop.filter(tokens) : tokens;
  }
}

/** A normalizer: the whole value as one token, with char filters and token filters applied. */
export class NormalizerAnalyzer implements Analyzer {
  readonly positionIncrementGap = 0;
  constructor(
    readonly name: string,
    private readonly filters: readonly TokenFilter[],
    private readonly charFilters: readonly CharFilter[] = [],
  ) {}
  normalize(text: string): string {
    for (const cf of this.charFilters) text = cf.apply(text);
    let tokens: Token[] = [{ term: text, position: 0, startOffset: 0, endOffset: text.length, type: 'word' }];
    for (const f of this.filters) tokens = f.filter(tokens);
    return tokens.length ? tokens[0].term : '';
  }
  analyze(text: string): Token[] {
    return [{ term: this.normalize(text), position: 0, startOffset: 0, endOffset: text.length, type: 'word' }];
  }
}

type Json = Record<string, unknown>;

const BUILTIN_TOKENIZERS = [
  'standard', 'whitespace', 'keyword', 'letter', 'lowercase', 'pattern', 'ngram', 'edge_ngram', 'classic', 'uax_url_email',
  'path_hierarchy', 'char_group', 'simple_pattern', 'simple_pattern_split',
];
const BUILTIN_FILTERS = [
  'lowercase', 'uppercase', 'asciifolding', 'stop', 'trim', 'length', 'unique', 'reverse', 'porter_stem', 'stemmer',
  'kstem', 'snowball', 'edge_ngram', 'ngram', 'truncate', 'word_delimiter', 'word_delimiter_graph', 'shingle', 'elision',
  'decimal_digit', 'apostrophe', 'classic', 'limit', 'flatten_graph', 'remove_duplicates', 'porter_stem',
];
const BUILTIN_CHAR_FILTERS = ['html_strip'];
const NORMALIZER_FILTERS = new Set(['lowercase', 'uppercase', 'asciifolding', 'trim', 'reverse', 'decimal_digit', 'elision', 'apostrophe']);

function list(v: unknown): string[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v.map(String);
  return String(v)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
function int(v: unknown, d: number): number {
  if (v === undefined || v === null) return d;
  const n = Number(v);
  if (!Number.isFinite(n)) throw Errors.illegalArgument(`Failed to parse value [${String(v)}] as an integer`);
  return Math.trunc(n);
}
function bool(v: unknown, d: boolean): boolean {
  if (v === undefined || v === null) return d;
  return v === true || v === 'true';
}
function stopWords(v: unknown, d: readonly string[]): readonly string[] {
  if (v === undefined || v === null) return d;
  if (typeof v === 'string' && STOP_WORD_LISTS[v]) return STOP_WORD_LISTS[v];
  const l = list(v);
  if (l.length === 1 && STOP_WORD_LISTS[l[0]]) return STOP_WORD_LISTS[l[0]];
  return l;
}

const STANDARD = new StandardAnalyzer();
const BUILTIN_ANALYZERS: Record<string, Analyzer> = {
  standard: STANDARD,
  default: STANDARD,
  simple: new ChainAnalyzer('simple', new LetterTokenizer(true)),
  whitespace: new ChainAnalyzer('whitespace', new WhitespaceTokenizer()),
  keyword: new ChainAnalyzer('keyword', new KeywordTokenizer()),
  stop: new ChainAnalyzer('stop', new LetterTokenizer(true), [stopFilter(ENGLISH_STOP_WORDS)]),
  pattern: new ChainAnalyzer('pattern', new PatternTokenizer('\\W+'), [lowercaseFilter]),
  english: new ChainAnalyzer('english', new StandardTokenizer(), [possessiveEnglishFilter, lowercaseFilter, stopFilter(ENGLISH_STOP_WORDS), porterStemFilter]),
  fingerprint: fingerprintAnalyzer('fingerprint', [], ' ', 255),
};

const BUILTIN_NORMALIZERS: Record<string, NormalizerAnalyzer> = {
  lowercase: new NormalizerAnalyzer('lowercase', [lowercaseFilter]),
};

function fingerprintAnalyzer(name: string, stop: readonly string[], separator: string, maxOutput: number): Analyzer {
  const tok = new StandardTokenizer();
  const stopF = stop.length ? stopFilter(stop) : null;
  return {
    name,
    positionIncrementGap: 100,
    analyze(text: string): Token[] {
      let tokens = asciiFoldingFilter().filter(lowercaseFilter.filter(tok.tokenize(text)));
      if (stopF) tokens = stopF.filter(tokens);
      const terms = [...new Set(tokens.map((t) => t.term))].sort();
      const joined = terms.join(separator);
      if (!joined || joined.length > maxOutput) return [];
      return [{ term: joined, position: 0, startOffset: 0, endOffset: text.length, type: 'fingerprint' }];
    },
  };
}

interface AnalysisDefs {
  analyzer: Record<string, Json>;
  tokenizer: Record<string, Json>;
  filter: Record<string, Json>;
  char_filter: Record<string, Json>;
  normalizer: Record<string, Json>;
}

/** Extracts `index.analysis.*` from flat index settings into definitions per kind. */
export function analysisDefinitions(indexSettings: Record<string, unknown> | undefined): AnalysisDefs {
  const defs: AnalysisDefs = { analyzer: {}, tokenizer: {}, filter: {}, char_filter: {}, normalizer: {} };
  if (!indexSettings) return defs;
  const flat: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(indexSettings)) {
    if (k.startsWith('index.analysis.')) flat[k.slice('index.analysis.'.length)] = v;
  }
  const nested = nestSettings(flat) as Record<string, Record<string, Json>>;
  for (const kind of ['analyzer', 'tokenizer', 'filter', 'char_filter', 'normalizer'] as const) {
    if (nested[kind] && typeof nested[kind] === 'object') defs[kind] = nested[kind];
  }
  return defs;
}

class IndexAnalysis {
  private readonly analyzers = new Map<string, Analyzer | null>();
  private readonly normalizers = new Map<string, NormalizerAnalyzer | null>();
  constructor(readonly defs: AnalysisDefs) {}

  analyzer(name: string): Analyzer | undefined {
    let a = this.analyzers.get(name);
    if (a === undefined) {
      a = this.defs.analyzer[name] ? buildAnalyzer(name, this.defs.analyzer[name], this.defs) : (BUILTIN_ANALYZERS[name] ?? null);
      this.analyzers.set(name, a);
    }
    return a ?? undefined;
  }

  normalizer(name: string): NormalizerAnalyzer | undefined {
    let a = this.normalizers.get(name);
    if (a === undefined) {
      a = this.defs.normalizer[name] ? buildNormalizer(name, this.defs.normalizer[name], this.defs) : (BUILTIN_NORMALIZERS[name] ?? null);
      this.normalizers.set(name, a);
    }
    return a ?? undefined;
  }
}

/**
 * The name and definition an analyzer's tokenizer / filter / char_filter entry refers to: a custom one of the
 * index, a built-in one by name, or an inline (anonymous) definition.
 */
function componentDef(
  kind: 'tokenizer' | 'filter' | 'char_filter',
  spec: unknown,
  defs: AnalysisDefs,
  builtins: readonly string[],
  owner: string | undefined,
): [name: string, def: Json] {
  if (typeof spec === 'string') {
    const custom = defs[kind][spec];
    if (custom) return [spec, custom];
    if (builtins.includes(spec)) return [spec, { type: spec }];
    throw Errors.illegalArgument(
      owner ? `Custom Analyzer [${owner}] failed to find ${kind} under name [${spec}]` : `failed to find global ${kind} under [${spec}]`,
    );
  }
  if (spec && typeof spec === 'object') return [`_anonymous_${kind}`, spec as Json];
  throw Errors.illegalArgument(`${kind} must be a string or an object`);
}

export function buildTokenizer(spec: unknown, defs: AnalysisDefs, owner?: string): Tokenizer {
  const [name, d] = componentDef('tokenizer', spec, defs, BUILTIN_TOKENIZERS, owner);
  return tokenizerFromDef(name, d);
}

function tokenizerFromDef(name: string, d: Json): Tokenizer {
  const type = String(d['type'] ?? '');
  switch (type) {
    case 'standard':
    case 'classic':
      return new StandardTokenizer(int(d['max_token_length'], 255));
    case 'uax_url_email':
      return new UaxUrlEmailTokenizer(int(d['max_token_length'], 255));
    case 'whitespace':
      return new WhitespaceTokenizer(int(d['max_token_length'], 255));
    case 'keyword':
      return new KeywordTokenizer();
    case 'letter':
      return new LetterTokenizer(false);
    case 'lowercase':
      return new LetterTokenizer(true);
    case 'pattern':
      return new PatternTokenizer(d['pattern'] === undefined ? '\\W+' : String(d['pattern']), String(d['flags'] ?? ''), int(d['group'], -1));
    case 'ngram':
    case 'nGram':
    case 'edge_ngram':
    case 'edgeNGram': {
      const min = int(d['min_gram'], 1);
      const max = int(d['max_gram'], 2);
      if (min > max) {
        throw Errors.illegalArgument(`The difference between max_gram and min_gram in NGram Tokenizer must be less than or equal to: [1] but was [${max - min}]. This limit can be set by changing the [index.max_ngram_diff] index level setting.`);
      }
      const chars = list(d['token_chars']);
      return new NGramTokenizer(min, max, type.startsWith('edge'), chars.length ? (new Set(chars) as TokenChars) : null, String(d['custom_token_chars'] ?? ''));
    }
    case 'path_hierarchy':
    case 'PathHierarchy': {
      const delim = d['delimiter'] === undefined ? '/' : String(d['delimiter']);
      return new PathHierarchyTokenizer(delim, d['replacement'] === undefined ? delim : String(d['replacement']), int(d['skip'], 0), bool(d['reverse'], false));
    }
    case 'char_group':
      return new CharGroupTokenizer(list(d['tokenize_on_chars']), int(d['max_token_length'], 255));
    case 'simple_pattern':
      return new SimplePatternTokenizer(d['pattern'] === undefined ? '' : String(d['pattern']));
    case 'simple_pattern_split':
      return new PatternTokenizer(d['pattern'] === undefined ? '' : String(d['pattern']));
    default:
      throw Errors.illegalArgument(`Unknown tokenizer type [${type}] for [${name}]`);
  }
}

export function buildTokenFilter(spec: unknown, defs: AnalysisDefs, owner?: string): TokenFilter {
  const [name, d] = componentDef('filter', spec, defs, BUILTIN_FILTERS, owner);
  return filterFromDef(name, d);
}

function filterFromDef(name: string, d: Json): TokenFilter {
  const type = String(d['type'] ?? '');
  switch (type) {
    case 'lowercase':
      return lowercaseFilter;
    case 'uppercase':
      return uppercaseFilter;
    case 'asciifolding':
      return asciiFoldingFilter(bool(d['preserve_original'], false));
    case 'stop':
      return stopFilter(stopWords(d['stopwords'], ENGLISH_STOP_WORDS), bool(d['ignore_case'], false), bool(d['remove_trailing'], true));
    case 'trim':
      return trimFilter;
    case 'length':
      return lengthFilter(int(d['min'], 0), int(d['max'], 2147483647));
    case 'truncate':
      return truncateFilter(int(d['length'], 10));
    case 'unique':
      return uniqueFilter(bool(d['only_on_same_position'], false));
    case 'reverse':
      return reverseFilter;
    case 'porter_stem':
    case 'kstem':
    case 'snowball':
      return porterStemFilter;
    case 'stemmer': {
      const lang = String(d['language'] ?? d['name'] ?? 'english');
      if (lang === 'possessive_english') return possessiveEnglishFilter;
      if (lang === 'minimal_english') return minimalEnglishFilter;
      if (['english', 'porter', 'light_english', 'porter2', 'lovins'].includes(lang)) return porterStemFilter;
      throw Errors.illegalArgument(`Unknown stemmer language [${lang}]`);
    }
    case 'edge_ngram':
    case 'edgeNGram':
      return edgeNGramFilter(int(d['min_gram'], 1), int(d['max_gram'], 2), bool(d['preserve_original'], false));
    case 'ngram':
    case 'nGram':
      return nGramFilter(int(d['min_gram'], 1), int(d['max_gram'], 2), bool(d['preserve_original'], false));
    case 'synonym':
    case 'synonym_graph':
      return synonymFilter(list(d['synonyms']).length && Array.isArray(d['synonyms']) ? (d['synonyms'] as string[]).map(String) : list(d['synonyms']), bool(d['expand'], true), bool(d['lenient'], false));
    case 'word_delimiter':
    case 'word_delimiter_graph':
      return wordDelimiterFilter({
        generateWordParts: bool(d['generate_word_parts'], true),
        generateNumberParts: bool(d['generate_number_parts'], true),
        catenateWords: bool(d['catenate_words'], false),
        catenateNumbers: bool(d['catenate_numbers'], false),
        catenateAll: bool(d['catenate_all'], false),
        preserveOriginal: bool(d['preserve_original'], false),
        splitOnCaseChange: bool(d['split_on_case_change'], true),
        splitOnNumerics: bool(d['split_on_numerics'], true),
        stemEnglishPossessive: bool(d['stem_english_possessive'], true),
      });
    case 'shingle': {
      const min = int(d['min_shingle_size'], 2);
      const max = int(d['max_shingle_size'], 2);
      if (max < min) throw Errors.illegalArgument(`[max_shingle_size] must not be smaller than [min_shingle_size]`);
      return shingleFilter(min, max, bool(d['output_unigrams'], true), d['token_separator'] === undefined ? ' ' : String(d['token_separator']), d['filler_token'] === undefined ? '_' : String(d['filler_token']));
    }
    case 'elision':
      return elisionFilter(d['articles'] === undefined ? DEFAULT_ELISION_ARTICLES : list(d['articles']), bool(d['articles_case'], false));
    case 'decimal_digit':
      return decimalDigitFilter;
    case 'apostrophe':
      return apostropheFilter;
    case 'classic':
      return classicFilter;
    case 'pattern_replace':
      return patternReplaceFilter(String(d['pattern'] ?? ''), String(d['replacement'] ?? ''), bool(d['all'], true));
    case 'limit':
      return limitFilter(int(d['max_token_count'], 1));
    case 'flatten_graph':
      return flattenGraphFilter;
    case 'remove_duplicates':
      return removeDuplicatesFilter;
    case 'keep':
      return keepWordsFilter(list(d['keep_words']), bool(d['keep_words_case'], false));
    case 'keep_types':
      return keepTypesFilter(list(d['types']), d['mode'] === 'exclude' ? 'exclude' : 'include');
    default:
      throw Errors.illegalArgument(`Unknown filter type [${type}] for [${name}]`);
  }
}

export function buildCharFilter(spec: unknown, defs: AnalysisDefs, owner?: string): CharFilter {
  const [name, d] = componentDef('char_filter', spec, defs, BUILTIN_CHAR_FILTERS, owner);
  const type = String(d['type'] ?? '');
  switch (type) {
    case 'html_strip':
      return htmlStripCharFilter;
    case 'mapping':
      return mappingCharFilter(list(d['mappings']).length && Array.isArray(d['mappings']) ? (d['mappings'] as string[]) : list(d['mappings']));
    case 'pattern_replace':
      return patternReplaceCharFilter(String(d['pattern'] ?? ''), String(d['replacement'] ?? ''));
    default:
      throw Errors.illegalArgument(`Unknown char_filter type [${type}] for [${name}]`);
  }
}

function buildAnalyzer(name: string, d: Json, defs: AnalysisDefs): Analyzer {
  const gap = int(d['position_increment_gap'], 100);
  const type = d['type'] === undefined ? (d['tokenizer'] !== undefined ? 'custom' : undefined) : String(d['type']);
  switch (type) {
    case undefined:
      throw Errors.illegalArgument(`analyzer [${name}] must specify either an analyzer type, or a tokenizer`);
    case 'custom': {
      if (d['tokenizer'] === undefined) throw Errors.illegalArgument(`analyzer [${name}] must specify either an analyzer type, or a tokenizer`);
      const tok = buildTokenizer(String(d['tokenizer']), defs, name);
      const filters = list(d['filter']).map((f) => buildTokenFilter(f, defs, name));
      const cfs = list(d['char_filter']).map((f) => buildCharFilter(f, defs, name));
      return new ChainAnalyzer(name, tok, filters, cfs, gap);
    }
    case 'standard':
      return new StandardAnalyzer(name, int(d['max_token_length'], 255), stopWords(d['stopwords'], []), gap);
    case 'simple':
      return new ChainAnalyzer(name, new LetterTokenizer(true), [], [], gap);
    case 'whitespace':
      return new ChainAnalyzer(name, new WhitespaceTokenizer(), [], [], gap);
    case 'keyword':
      return new ChainAnalyzer(name, new KeywordTokenizer(), [], [], gap);
    case 'stop':
      return new ChainAnalyzer(name, new LetterTokenizer(true), [stopFilter(stopWords(d['stopwords'], ENGLISH_STOP_WORDS))], [], gap);
    case 'pattern': {
      const filters: TokenFilter[] = bool(d['lowercase'], true) ? [lowercaseFilter] : [];
      const sw = stopWords(d['stopwords'], []);
      if (sw.length) filters.push(stopFilter(sw));
      return new ChainAnalyzer(name, new PatternTokenizer(d['pattern'] === undefined ? '\\W+' : String(d['pattern']), String(d['flags'] ?? '')), filters, [], gap);
    }
    case 'english':
      return new ChainAnalyzer(name, new StandardTokenizer(), [possessiveEnglishFilter, lowercaseFilter, stopFilter(stopWords(d['stopwords'], ENGLISH_STOP_WORDS)), porterStemFilter], [], gap);
    case 'fingerprint':
      return fingerprintAnalyzer(name, stopWords(d['stopwords'], []), String(d['separator'] ?? ' '), int(d['max_output_size'], 255));
    default:
      throw Errors.illegalArgument(`Unknown analyzer type [${type}] for [${name}]`);
  }
}

function buildNormalizer(name: string, d: Json, defs: AnalysisDefs): NormalizerAnalyzer {
  if (d['type'] !== undefined && d['type'] !== 'custom') {
    throw Errors.illegalArgument(`Unknown normalizer type [${String(d['type'])}] for [${name}]`);
  }
  const filters = list(d['filter']).map((f) => {
    if (!defs.filter[f] && !NORMALIZER_FILTERS.has(f)) {
      if (BUILTIN_FILTERS.includes(f)) throw Errors.illegalArgument(`Custom normalizer [${name}] may not use filter [${f}]`);
      throw Errors.illegalArgument(`Custom normalizer [${name}] failed to find filter under name [${f}]`);
    }
    return buildTokenFilter(f, defs, name);
  });
  const cfs = list(d['char_filter']).map((f) => buildCharFilter(f, defs, name));
  return new NormalizerAnalyzer(name, filters, cfs);
}

export interface AnalyzeSpec {
  analyzer?: string;
  tokenizer?: unknown;
  filter?: unknown[];
  char_filter?: unknown[];
  normalizer?: string;
}

@injectable()
export class DefaultAnalysisRegistry implements AnalysisRegistry {
  private readonly cache = new WeakMap<object, IndexAnalysis>();
  private readonly global = new IndexAnalysis(analysisDefinitions(undefined));

  private forSettings(indexSettings?: Record<string, unknown>): IndexAnalysis {
    if (!indexSettings) return this.global;
    let ia = this.cache.get(indexSettings);
    if (!ia) {
      ia = new IndexAnalysis(analysisDefinitions(indexSettings));
      this.cache.set(indexSettings, ia);
    }
    return ia;
  }

  analyzer(name: string, indexSettings?: Record<string, unknown>): Analyzer | undefined {
    return this.forSettings(indexSettings).analyzer(name);
  }

  normalizer(name: string, indexSettings?: Record<string, unknown>): Analyzer | undefined {
    return this.forSettings(indexSettings).normalizer(name);
  }

  /** The analyzer used by text fields without an explicit analyzer (`index.analysis.analyzer.default` or standard). */
  defaultAnalyzer(indexSettings?: Record<string, unknown>): Analyzer {
    return this.forSettings(indexSettings).analyzer('default') ?? STANDARD;
  }

  /** Builds every custom component of `index.analysis.*` so that errors surface at index creation. */
  validateSettings(indexSettings: Record<string, unknown>): void {
    const defs = analysisDefinitions(indexSettings);
    for (const [n, d] of Object.entries(defs.tokenizer)) tokenizerFromDef(n, d);
    for (const [n, d] of Object.entries(defs.filter)) filterFromDef(n, d);
    for (const n of Object.keys(defs.char_filter)) buildCharFilter(n, defs);
    for (const [n, d] of Object.entries(defs.analyzer)) buildAnalyzer(n, d, defs);
    for (const [n, d] of Object.entries(defs.normalizer)) buildNormalizer(n, d, defs);
  }

  /** For `_analyze`: an analyzer by name, or an ad-hoc chain. `indexSettings` undefined = no index. */
  forAnalyzeRequest(spec: AnalyzeSpec, indexSettings?: Record<string, unknown>): Analyzer {
    const ia = this.forSettings(indexSettings);
    const withIndex = indexSettings !== undefined;
    if (spec.analyzer !== undefined) {
      if (spec.tokenizer !== undefined || spec.filter?.length || spec.char_filter?.length) {
        throw Errors.illegalArgument('tokenizer/filter/char_filter can only be used with a custom analyzer (not with [analyzer])');
      }
      const a = ia.analyzer(spec.analyzer);
      if (!a) throw Errors.illegalArgument(withIndex ? `failed to find analyzer [${spec.analyzer}]` : `failed to find global analyzer [${spec.analyzer}]`);
      return a;
    }
    if (spec.normalizer !== undefined) {
      if (!withIndex) throw Errors.illegalArgument('analysis based on a normalizer requires an index');
      const n = ia.normalizer(spec.normalizer);
      if (!n) throw Errors.illegalArgument(`failed to find normalizer under [${spec.normalizer}]`);
      return n;
    }
    const defs = ia.defs;
    if (spec.tokenizer === undefined) {
      const filters = (spec.filter ?? []).map((f) => buildTokenFilter(f, defs));
      const cfs = (spec.char_filter ?? []).map((f) => buildCharFilter(f, defs));
      if (filters.length || cfs.length) return new NormalizerAnalyzer('_custom_normalizer', filters, cfs);
      return STANDARD;
    }
    const tok = buildTokenizer(spec.tokenizer, defs);
    const filters = (spec.filter ?? []).map((f) => buildTokenFilter(f, defs));
    const cfs = (spec.char_filter ?? []).map((f) => buildCharFilter(f, defs));
    return new ChainAnalyzer('_custom_', tok, filters, cfs);
  }
}
