/** Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET (the `_english_` list). */
export const ENGLISH_STOP_WORDS: readonly string[] = [
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', 'into', 'is', 'it', 'no', 'not', 'of',
  'on', 'or', 'such', 'that', 'the', 'their', 'then', 'there', 'these', 'they', 'this', 'to', 'was', 'will', 'with',
];

export const STOP_WORD_LISTS: Record<string, readonly string[]> = {
  _english_: ENGLISH_STOP_WORDS,
  _none_: [],
};
