/**
 * The term suggester: per analysed token of the text, the closest terms of the field's dictionary
 * (Damerau-Levenshtein within max_edits, prefix_length, min_word_length), with suggest_mode missing / popular / always.
 * Shard entries are plain data; the coordinator merges them (freq summed, best score kept).
 */
import { Errors } from '@strata/core-common';
import type { Analyzer } from '../analysis/analyzer.js';
import type { DirectoryReader } from '../index/leaf-reader.js';
import { editDistance } from './multi-term-query.js';

export interface TermSuggestSpec {
  name: string;
  text: string;
  field: string;
  size: number;
  suggestMode: 'missing' | 'popular' | 'always';
  maxEdits: number;
  prefixLength: number;
  minWordLength: number;
  minDocFreq: number;
  sort: 'score' | 'frequency';
  analyzer?: string;
}

export interface SuggestOption {
  text: string;
  score: number;
  freq: number;
}

export interface SuggestEntry {
  text: string;
  offset: number;
  length: number;
  options: SuggestOption[];
}

export type ShardSuggest = Record<string, SuggestEntry[]>;

/** parses the `suggest` section (term suggester only) */
export function parseSuggest(json: unknown): TermSuggestSpec[] {
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw Errors.parsing('[suggest] expected an object');
  const o = json as Record<string, unknown>;
  const globalText = typeof o['text'] === 'string' ? o['text'] : undefined;
  const out: TermSuggestSpec[] = [];
  for (const [name, v] of Object.entries(o)) {
    if (name === 'text') continue;
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw Errors.parsing(`[suggest] suggestion [${name}] must be an object`);
    const s = v as Record<string, unknown>;
    const text = typeof s['text'] === 'string' ? s['text'] : globalText;
    const kind = Object.keys(s).find((k) => k !== 'text' && k !== 'prefix' && k !== 'regex');
    if (kind !== 'term') throw Errors.illegalArgument(`suggester [${kind ?? ''}] is not supported`);
    const t = s['term'] as Record<string, unknown>;
    if (!t || typeof t['field'] !== 'string') throw Errors.illegalArgument('The required field option is missing');
    if (text === undefined) throw Errors.illegalArgument(`The required text option is missing`);
    const mode = String(t['suggest_mode'] ?? 'missing').toLowerCase();
    if (!['missing', 'popular', 'always'].includes(mode)) throw Errors.illegalArgument(`Illegal suggest mode ${mode}`);
    out.push({
      name,
      text,
      field: t['field'],
      size: t['size'] === undefined ? 5 : Number(t['size']),
      suggestMode: mode as TermSuggestSpec['suggestMode'],
      maxEdits: t['max_edits'] === undefined ? 2 : Math.min(2, Number(t['max_edits'])),
      prefixLength: t['prefix_length'] === undefined ? 1 : Number(t['prefix_length']),
      minWordLength: t['min_word_length'] === undefined ? 4 : Number(t['min_word_length']),
      minDocFreq: t['min_doc_freq'] === undefined ? 0 : Number(t['min_doc_freq']),
      sort: t['sort'] === 'frequency' ? 'frequency' : 'score',
      ...(typeof t['analyzer'] === 'string' ? { analyzer: t['analyzer'] } : {}),
    });
  }
  return out;
}

function cmp(sort: 'score' | 'frequency') {
  return (a: SuggestOption, b: SuggestOption) =>
    sort === 'score'
      ? b.score - a.score || b.freq - a.freq || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0)
      : b.freq - a.freq || b.score - a.score || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0);
}

export function shardTermSuggest(spec: TermSuggestSpec, reader: DirectoryReader, analyzer: Analyzer | undefined): SuggestEntry[] {
  const tokens = analyzer
    ? analyzer.analyze(spec.text)
    : [{ term: spec.text, position: 0, startOffset: 0, endOffset: spec.text.length, type: 'word' }];
  const docFreq = (term: string) => {
    let n = 0;
    for (const l of reader.leaves) n += l.reader.postings(spec.field, term)?.docFreq ?? 0;
    return n;
  };
  return tokens.map((tok) => {
    const entry: SuggestEntry = { text: tok.term, offset: tok.startOffset, length: tok.endOffset - tok.startOffset, options: [] };
    const len = [...tok.term].length;
    if (len < spec.minWordLength) return entry;
    const own = docFreq(tok.term);
    if (spec.suggestMode === 'missing' && own > 0) return entry;
    const prefix = [...tok.term].slice(0, spec.prefixLength).join('');
    const found = new Map<string, SuggestOption>();
    for (const leaf of reader.leaves) {
      const dict = leaf.reader.terms(spec.field);
      if (!dict) continue;
      for (let o = prefix ? dict.seekCeil(prefix) : 0; o < dict.size; o++) {
        const t = dict.term(o);
        if (prefix && !t.startsWith(prefix)) break;
        if (t === tok.term) continue;
        const ed = editDistance(t, tok.term, spec.maxEdits);
        if (ed > spec.maxEdits) continue;
        const df = dict.docFreq(o);
        const prev = found.get(t);
        if (prev) prev.freq += df;
        else found.set(t, { text: t, score: Math.fround(1 - ed / Math.min(len, [...t].length)), freq: df });
      }
    }
    entry.options = [...found.values()]
      .filter((x) => x.freq >= spec.minDocFreq && (spec.suggestMode !== 'popular' || x.freq > own))
      .sort(cmp(spec.sort))
      .slice(0, spec.size);
    return entry;
  });
}

/** merges shard entries: options by text (freq summed, best score), top size */
export function reduceSuggest(specs: TermSuggestSpec[], shards: ShardSuggest[]): Record<string, SuggestEntry[]> {
  const out: Record<string, SuggestEntry[]> = {};
  for (const spec of specs) {
    const parts = shards.map((s) => s[spec.name]).filter((x): x is SuggestEntry[] => !!x);
    if (parts.length === 0) continue;
    out[spec.name] = parts[0]!.map((e, i) => {
      const m = new Map<string, SuggestOption>();
      for (const p of parts) {
        for (const o of p[i]?.options ?? []) {
          const prev = m.get(o.text);
          if (prev) {
            prev.freq += o.freq;
            prev.score = Math.max(prev.score, o.score);
          } else m.set(o.text, { ...o });
        }
      }
      return { ...e, options: [...m.values()].sort(cmp(spec.sort)).slice(0, spec.size) };
    });
  }
  return out;
}
