import { BatchedReservation, BreakerNames, HierarchyCircuitBreakerService, RequestMemory, parseMemorySize } from './breakers.js';
import { EsError } from './errors.js';
import { RequestContexts, type RequestContext } from './request-context.js';

const MB = 1024 * 1024;
const catchErr = (fn: () => void): EsError => {
  try {
    fn();
  } catch (e) {
    return e as EsError;
  }
  throw new Error('expected a trip');
};

describe('circuit breakers', () => {
  it('parses limits as a share of the heap or a size', () => {
    expect(parseMemorySize('60%', 'k', 1000)).toBe(600);
    expect(parseMemorySize('1mb', 'k', 1000)).toBe(MB);
    expect(parseMemorySize('-1', 'k', 1000)).toBe(-1);
    expect(() => parseMemorySize('120%', 'k', 1000)).toThrow(/percentage should be in \[0-100\]/);
  });

  it('a child trips with ES message, bytes and durability, counts the trip and keeps its estimate', () => {
    const svc = new HierarchyCircuitBreakerService({ heapBytes: 100 * MB, settings: { 'indices.breaker.request.limit': '1mb' }, heapUsed: () => 0 });
    const request = svc.getBreaker(BreakerNames.REQUEST);
    request.addEstimateBytesAndMaybeBreak(MB - 10, 'allocated_buckets');
    const e = catchErr(() => request.addEstimateBytesAndMaybeBreak(100, '<agg [t]>'));
    expect(e.status).toBe(429);
    expect(e.toBody().error).toEqual({
      root_cause: [
        {
          type: 'circuit_breaking_exception',
          reason: '[request] Data too large, data for [<agg [t]>] would be [1048666/1mb], which is larger than the limit of [1048576/1mb]',
          bytes_wanted: 1048666,
          bytes_limit: 1048576,
          durability: 'TRANSIENT',
        },
      ],
      type: 'circuit_breaking_exception',
      reason: '[request] Data too large, data for [<agg [t]>] would be [1048666/1mb], which is larger than the limit of [1048576/1mb]',
      bytes_wanted: 1048666,
      bytes_limit: 1048576,
      durability: 'TRANSIENT',
    });
    expect(request.used).toBe(MB - 10);
    expect(svc.stats()['request']).toEqual({
      limit_size_in_bytes: MB,
      limit_size: '1mb',
      estimated_size_in_bytes: MB - 10,
      estimated_size: '1024kb',
      overhead: 1,
      tripped: 1,
    });
    request.addWithoutBreaking(-(MB - 10));
    expect(request.used).toBe(0);
  });

  it('in-flight requests count with overhead 2; the parent sums children without real memory', () => {
    const svc = new HierarchyCircuitBreakerService({
      heapBytes: 100 * MB,
      settings: { 'indices.breaker.total.use_real_memory': 'false', 'indices.breaker.total.limit': '3mb' },
    });
    const inflight = svc.getBreaker(BreakerNames.IN_FLIGHT_REQUESTS);
    inflight.addEstimateBytesAndMaybeBreak(MB, '<http_request>');
    expect(svc.stats()['in_flight_requests']!.estimated_size_in_bytes).toBe(2 * MB);
    const e = catchErr(() => svc.getBreaker(BreakerNames.REQUEST).addEstimateBytesAndMaybeBreak(2 * MB, 'allocated_buckets'));
    expect(e.reason).toBe(
      '[parent] Data too large, data for [allocated_buckets] would be [4194304/4mb], which is larger than the limit of [3145728/3mb], usages [request=2097152/2mb, fielddata=0/0b, in_flight_requests=1048576/1mb, eql_sequence=0/0b, accounting=0/0b]',
    );
    // the child's estimate is rolled back after a parent trip
    expect(svc.getBreaker(BreakerNames.REQUEST).used).toBe(0);
    expect(svc.stats()['parent']!.tripped).toBe(1);
  });

  it('the parent checks the real heap in use by default, and limits follow cluster-settings updates', () => {
    let heap = 50 * MB;
    const svc = new HierarchyCircuitBreakerService({ heapBytes: 100 * MB, heapUsed: () => heap });
    const eql = svc.getBreaker(BreakerNames.EQL_SEQUENCE);
    eql.addEstimateBytesAndMaybeBreak(10 * MB, '<sequence>');
    heap = 96 * MB;
    const e = catchErr(() => eql.addEstimateBytesAndMaybeBreak(1, '<sequence>'));
    expect(e.reason).toMatch(/^\[parent\] Data too large, data for \[<sequence>\] would be \[100663297\/96mb\], which is larger than the limit of \[99614720\/95mb\], real usage: \[100663296\/96mb\], new bytes reserved: \[1\/1b\], usages \[/);
    svc.apply('indices.breaker.total.limit', '99%');
    eql.addEstimateBytesAndMaybeBreak(1, '<sequence>');
    svc.apply('breaker.eql_sequence.limit', '5mb');
    expect(catchErr(() => eql.addEstimateBytesAndMaybeBreak(1, '<sequence>')).reason).toMatch(/^\[eql_sequence\] Data too large/);
    svc.apply('breaker.eql_sequence.limit', undefined);
    expect(svc.stats()['eql_sequence']!.limit_size_in_bytes).toBe(50 * MB);
  });

  it('a request releases everything it reserved when it ends; batched reservations charge per batch', () => {
    const svc = new HierarchyCircuitBreakerService({ heapBytes: 100 * MB, heapUsed: () => 0, settings: { 'indices.breaker.request.limit': '1kb' } });
    const memory = new RequestMemory(svc);
    const rc: RequestContext = { id: 'r', method: 'GET', url: '/', startedAt: 0, warnings: [], memory };
    RequestContexts.run(rc, () => {
      const buckets = new BatchedReservation(BreakerNames.REQUEST, 1, 'allocated_buckets', 100);
      for (let i = 0; i < 99; i++) buckets.add();
      expect(svc.getBreaker(BreakerNames.REQUEST).used).toBe(0);
      buckets.add();
      expect(svc.getBreaker(BreakerNames.REQUEST).used).toBe(100);
      for (let i = 0; i < 900; i++) buckets.add();
      expect(catchErr(() => {
        for (let i = 0; i < 200; i++) buckets.add();
      }).type).toBe('circuit_breaking_exception');
    });
    memory.reserve(BreakerNames.IN_FLIGHT_REQUESTS, 10, '<http_request>');
    memory.close();
    expect(svc.getBreaker(BreakerNames.REQUEST).used).toBe(0);
    expect(svc.getBreaker(BreakerNames.IN_FLIGHT_REQUESTS).used).toBe(0);
    // outside a request nothing is charged
    const outside = new BatchedReservation(BreakerNames.REQUEST, 1000, 'allocated_buckets', 1);
    outside.add();
    expect(svc.getBreaker(BreakerNames.REQUEST).used).toBe(0);
  });
});
