/**
 * CONTRACT (owned by analysis; consumed by the mapper, query parsing and `_analyze`).
 */
export interface Token {
  term: string;
  position: number;
  startOffset: number;
  endOffset: number;
  type: string;
}

export interface Analyzer {
  readonly name: string;
  /** Analyses one value. Positions start at 0 for each value; callers add position_increment_gap between values. */
  analyze(text: string): Token[];
  /** position_increment_gap between array values (100 for text, as Elasticsearch) */
  readonly positionIncrementGap: number;
}
