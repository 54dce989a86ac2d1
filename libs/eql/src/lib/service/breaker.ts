/**
 * The `eql_sequence` circuit breaker: sequences and samples account the memory of their in-flight matches;
 * when all running EQL searches together would exceed `breaker.eql_sequence.limit`, the search fails with
 * Elasticsearch's circuit_breaking_exception (429) instead of taking the node down.
 */
import { inject, injectable, optional } from 'inversify';
import { EngineTokens, type MetadataStore } from '@strata/core-engine';
import { circuitBreaking } from '../errors.js';
import type { MemoryBreaker } from '../execution/model.js';
import { EQL_SEQUENCE_BREAKER_LIMIT } from '../eql.settings.js';

@injectable()
export class EqlBreakerService {
  private used = 0;
  private trippedCount = 0;

  constructor(@inject(EngineTokens.MetadataStore) @optional() private readonly metadata?: MetadataStore) {}

  /** the configured limit in bytes */
  limit(): number {
    const md = this.metadata?.current();
    const raw = md?.transientSettings[EQL_SEQUENCE_BREAKER_LIMIT.key] ?? md?.persistentSettings[EQL_SEQUENCE_BREAKER_LIMIT.key];
    if (raw === undefined || raw === null) return EQL_SEQUENCE_BREAKER_LIMIT.defaultValue;
    return typeof raw === 'number' ? raw : EQL_SEQUENCE_BREAKER_LIMIT.parse(raw);
  }

  get estimated(): number {
    return this.used;
  }

  get tripped(): number {
    return this.trippedCount;
  }

  /** a breaker for one search; release() returns everything it accounted */
  child(): MemoryBreaker {
    let mine = 0;
    const limit = this.limit();
    return {
      adjust: (label: string, delta: number) => {
        if (delta > 0 && this.used + delta > limit) {
          this.trippedCount++;
          throw circuitBreaking(label, this.used + delta, limit);
        }
        this.used += delta;
        mine += delta;
      },
      release: () => {
        this.used -= mine;
        mine = 0;
      },
    };
  }
}
