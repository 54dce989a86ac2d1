/**
 * The `eql_sequence` circuit breaker: sequences and samples account the memory of their in-flight matches on
 * the node's `eql_sequence` child breaker (core's CircuitBreakerService, `breaker.eql_sequence.limit`, default
 * 50% of the heap, under the parent breaker); a search that would exceed it fails with Elasticsearch's
 * circuit_breaking_exception (429) instead of taking the node down.
 */
import { inject, injectable, optional } from 'inversify';
import { BreakerNames, Tokens, type CircuitBreakerService } from '@strata/core-common';
import type { MemoryBreaker } from '../execution/model.js';

@injectable()
export class EqlBreakerService {
  constructor(@inject(Tokens.CircuitBreakerService) @optional() private readonly breakers?: CircuitBreakerService) {}

  /** a breaker for one search; release() returns everything it accounted */
  child(): MemoryBreaker {
    const breaker = this.breakers?.getBreaker(BreakerNames.EQL_SEQUENCE);
    let mine = 0;
    return {
      adjust: (label: string, delta: number) => {
        if (!breaker) return;
        if (delta > 0) breaker.addEstimateBytesAndMaybeBreak(delta, label);
        else breaker.addWithoutBreaking(delta);
        mine += delta;
      },
      release: () => {
        if (breaker && mine !== 0) breaker.addWithoutBreaking(-mine);
        mine = 0;
      },
    };
  }
}
