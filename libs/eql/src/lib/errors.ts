/**
 * EQL's client errors, as Elasticsearch words them: `parsing_exception` "line L:C: ..." for syntax errors and
 * `verification_exception` "Found N problem(s)\nline L:C: ..." for semantic ones (both 400).
 */
import { EsError } from '@strata/core-common';

export class EqlParsingException extends EsError {
  readonly line: number;
  readonly col: number;
  readonly message0: string;

  constructor(line: number, col: number, message: string) {
    super('parsing_exception', 400, `line ${line}:${col}: ${message}`);
    this.line = line;
    this.col = col;
    this.message0 = message;
  }
}

export interface Problem {
  line: number;
  col: number;
  message: string;
}

export class EqlVerificationException extends EsError {
  readonly problems: Problem[];

  constructor(problems: Problem[]) {
    const n = problems.length;
    super(
      'verification_exception',
      400,
      `Found ${n} problem${n === 1 ? '' : 's'}\n` + problems.map((p) => `line ${p.line}:${p.col}: ${p.message}`).join('\n'),
    );
    this.problems = problems;
  }
}

/** EQL's own illegal-argument errors at run time (e.g. bad function arguments found on an event) */
export function eqlIllegalArgument(reason: string): EsError {
  return new EsError('eql_illegal_argument_exception', 400, reason);
}

/** the sequence breaker tripped (Elasticsearch's CircuitBreakingException, 429) */
export function circuitBreaking(label: string, wouldBe: number, limit: number, breaker = 'eql_sequence'): EsError {
  const fmt = (n: number): string => {
    const units = ['b', 'kb', 'mb', 'gb', 'tb'];
    let v = n;
    let u = 0;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return `${u === 0 ? v : Math.round(v * 10) / 10}${units[u]}`;
  };
  return new EsError(
    'circuit_breaking_exception',
    429,
    `[${breaker}] Data too large, data for [${label}] would be [${wouldBe}/${fmt(wouldBe)}], which is larger than the limit of [${limit}/${fmt(limit)}]`,
    { metadata: { bytes_wanted: wouldBe, bytes_limit: limit, durability: 'TRANSIENT' } },
  );
}
