/**
 * Circuit breakers as Elasticsearch has them (HierarchyCircuitBreakerService): child breakers that estimate
 * the memory of one kind of work (`request`: aggregation buckets and sort structures; `in_flight_requests`:
 * request bodies being handled; `eql_sequence`: EQL sequence state; `fielddata`, `accounting`), each with a
 * limit and an overhead, under a `parent` breaker that bounds the total (by default the real heap in use).
 * A trip throws 429 `circuit_breaking_exception` and changes nothing; the reservation of a request is
 * released when it ends, so the node keeps serving.
 *
 * Accounting from anywhere below the HTTP pipeline: `reserveRequestMemory(BreakerNames.REQUEST, bytes,
 * '<agg [name]>')` charges the current request (released with it). Work that outlives a request (a feature's
 * long-lived state) injects `Tokens.CircuitBreakerService` and pairs `addEstimateBytesAndMaybeBreak` with
 * `addWithoutBreaking(-bytes)` itself.
 */
import { getHeapStatistics } from 'node:v8';
import { EsError, Errors } from './errors.js';
import { RequestContexts } from './request-context.js';
import { setting, type SettingDef } from './settings.js';
import { formatByteSize, parseByteSize } from './units.js';

export type BreakerDurability = 'TRANSIENT' | 'PERMANENT';

export const BreakerNames = {
  REQUEST: 'request',
  FIELDDATA: 'fielddata',
  IN_FLIGHT_REQUESTS: 'in_flight_requests',
  EQL_SEQUENCE: 'eql_sequence',
  ACCOUNTING: 'accounting',
  PARENT: 'parent',
} as const;

export interface CircuitBreaker {
  readonly name: string;
  /** adds `bytes` (may be negative) and throws circuit_breaking_exception if this breaker or the parent would trip */
  addEstimateBytesAndMaybeBreak(bytes: number, label: string): void;
  /** adjusts the estimate without checking (releases are negative) */
  addWithoutBreaking(bytes: number): void;
  readonly used: number;
  readonly limit: number;
  readonly overhead: number;
  readonly trippedCount: number;
}

export interface BreakerStats {
  limit_size_in_bytes: number;
  limit_size: string;
  estimated_size_in_bytes: number;
  estimated_size: string;
  overhead: number;
  tripped: number;
}

export interface CircuitBreakerService {
  /** a child breaker by name (`request`, `in_flight_requests`, `eql_sequence`, `fielddata`, `accounting`) */
  getBreaker(name: string): CircuitBreaker;
  /** `_nodes/stats/breaker`: every child, then `parent` */
  stats(): Record<string, BreakerStats>;
}

/** the heap the breakers' percentages are taken of (V8's heap limit, Elasticsearch's max heap) */
export function heapLimitBytes(): number {
  return getHeapStatistics().heap_size_limit;
}

/** `60%` of the heap or an absolute size (`512mb`, `-1` for no limit), as Elasticsearch's memorySizeSetting parses */
export function parseMemorySize(raw: unknown, key: string, heap = heapLimitBytes()): number {
  const s = String(raw).trim();
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(s);
  if (pct) {
    const p = Number(pct[1]);
    if (p > 100) throw Errors.illegalArgument(`failed to parse [${s}] as a percentage: percentage should be in [0-100], got [${s}]`);
    return Math.floor((heap * p) / 100);
  }
  return parseByteSize(typeof raw === 'number' ? raw : s, key);
}

function parseOverhead(key: string) {
  return (raw: unknown): number => {
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
    if (!Number.isFinite(n)) throw Errors.illegalArgument(`Failed to parse value [${String(raw)}] for setting [${key}]`);
    if (n < 0) throw Errors.illegalArgument(`Failed to parse value [${n}] for setting [${key}] must be >= 0.0`);
    return n;
  };
}

/** a memory-size setting whose value is kept raw (`60%`) and resolved against the heap when applied */
/**
 * A memory-size setting (`60%` of the heap, `512mb`, bytes), validated with parseMemorySize and kept as
 * written: the breakers' limits (dynamic, cluster) and other node limits such as indexing pressure share it.
 */
export function memorySizeSetting(
  key: string,
  defaultRaw: string,
  opts: { scope?: 'cluster' | 'node'; dynamic?: boolean } = {},
): SettingDef<string> {
  return setting<string>({
    key,
    scope: opts.scope ?? 'cluster',
    dynamic: opts.dynamic ?? true,
    defaultValue: defaultRaw,
    defaultRaw,
    parse: (raw: unknown): string => {
      parseMemorySize(raw, key);
      return String(raw).trim();
    },
  });
}

function overheadSetting(key: string, defaultValue: number): SettingDef<number> {
  return setting<number>({ key, scope: 'cluster', dynamic: true, defaultValue, parse: parseOverhead(key) });
}

export const BREAKER_USE_REAL_MEMORY = setting<boolean>({
  key: 'indices.breaker.total.use_real_memory',
  scope: 'node',
  dynamic: false,
  defaultValue: true,
  parse: (raw: unknown): boolean => {
    if (raw === true || raw === 'true') return true;
    if (raw === false || raw === 'false') return false;
    throw Errors.illegalArgument(`Failed to parse value [${String(raw)}] as only [true] or [false] are allowed.`);
  },
});

interface ChildDef {
  name: string;
  limit: SettingDef<string>;
  overhead?: SettingDef<number>;
  fixedOverhead?: number;
  durability: BreakerDurability;
}

const CHILDREN: readonly ChildDef[] = [
  {
    name: BreakerNames.REQUEST,
    limit: memorySizeSetting('indices.breaker.request.limit', '60%'),
    overhead: overheadSetting('indices.breaker.request.overhead', 1),
    durability: 'TRANSIENT',
  },
  {
    name: BreakerNames.FIELDDATA,
    limit: memorySizeSetting('indices.breaker.fielddata.limit', '40%'),
    overhead: overheadSetting('indices.breaker.fielddata.overhead', 1.03),
    durability: 'PERMANENT',
  },
  {
    name: BreakerNames.IN_FLIGHT_REQUESTS,
    limit: memorySizeSetting('network.breaker.inflight_requests.limit', '100%'),
    overhead: overheadSetting('network.breaker.inflight_requests.overhead', 2),
    durability: 'TRANSIENT',
  },
  {
    name: BreakerNames.EQL_SEQUENCE,
    limit: memorySizeSetting('breaker.eql_sequence.limit', '50%'),
    overhead: overheadSetting('breaker.eql_sequence.overhead', 1),
    durability: 'TRANSIENT',
  },
  {
    name: BreakerNames.ACCOUNTING,
    limit: memorySizeSetting('indices.breaker.accounting.limit', '100%'),
    overhead: overheadSetting('indices.breaker.accounting.overhead', 1),
    durability: 'PERMANENT',
  },
];

/** `indices.breaker.total.limit`: 95% of the heap with real-memory accounting, else 70% */
export const BREAKER_TOTAL_LIMIT = memorySizeSetting('indices.breaker.total.limit', '95%');

/** every breaker setting (register through ExtensionPoints.Setting) */
export const BREAKER_SETTINGS: readonly SettingDef[] = [
  BREAKER_USE_REAL_MEMORY as SettingDef,
  BREAKER_TOTAL_LIMIT as SettingDef,
  ...CHILDREN.flatMap((c) => [c.limit as SettingDef, ...(c.overhead ? [c.overhead as SettingDef] : [])]),
];

/** Elasticsearch's CircuitBreakingException: 429 with bytes_wanted, bytes_limit and durability */
export function circuitBreakingException(reason: string, bytesWanted: number, bytesLimit: number, durability: BreakerDurability): EsError {
  return new EsError('circuit_breaking_exception', 429, reason, {
    metadata: { bytes_wanted: bytesWanted, bytes_limit: bytesLimit, durability },
  });
}

const sized = (n: number): string => `${n}/${formatByteSize(Math.max(0, n))}`;

class ChildBreaker implements CircuitBreaker {
  used = 0;
  trippedCount = 0;
  constructor(
    readonly name: string,
    public limit: number,
    public overhead: number,
    readonly durability: BreakerDurability,
    private readonly parent: HierarchyCircuitBreakerService,
  ) {}

  addEstimateBytesAndMaybeBreak(bytes: number, label: string): void {
    const newUsed = this.used + bytes;
    const withOverhead = Math.floor(newUsed * this.overhead);
    if (bytes > 0 && this.limit >= 0 && withOverhead > this.limit) {
      this.trippedCount++;
      throw circuitBreakingException(
        `[${this.name}] Data too large, data for [${label}] would be [${sized(withOverhead)}], which is larger than the limit of [${sized(this.limit)}]`,
        withOverhead,
        this.limit,
        this.durability,
      );
    }
    this.used = newUsed;
    if (bytes <= 0) return;
    try {
      this.parent.checkParentLimit(Math.floor(bytes * this.overhead), label);
    } catch (e) {
      this.used -= bytes;
      throw e;
    }
  }

  addWithoutBreaking(bytes: number): void {
    this.used = Math.max(0, this.used + bytes);
  }
}

export interface BreakerServiceOptions {
  /** flat node settings (the breaker settings may be given there too) */
  settings?: Record<string, unknown>;
  /** the heap the percentages apply to (default V8's heap limit) */
  heapBytes?: number;
  /** current heap in use (default V8's used heap size); only with real-memory accounting */
  heapUsed?: () => number;
}

export class HierarchyCircuitBreakerService implements CircuitBreakerService {
  private readonly children = new Map<string, ChildBreaker>();
  private readonly raw = new Map<string, unknown>();
  private readonly heap: number;
  private readonly heapUsed: () => number;
  readonly useRealMemory: boolean;
  private parentLimit = 0;
  private parentTripped = 0;

  constructor(opts: BreakerServiceOptions = {}) {
    const settings = opts.settings ?? {};
    this.heap = opts.heapBytes ?? heapLimitBytes();
    this.heapUsed = opts.heapUsed ?? (() => getHeapStatistics().used_heap_size);
    const real = settings[BREAKER_USE_REAL_MEMORY.key];
    this.useRealMemory = real === undefined ? true : BREAKER_USE_REAL_MEMORY.parse(real);
    for (const c of CHILDREN) {
      const breaker = new ChildBreaker(c.name, 0, c.fixedOverhead ?? 1, c.durability, this);
      this.children.set(c.name, breaker);
      this.apply(c.limit.key, settings[c.limit.key]);
      if (c.overhead) this.apply(c.overhead.key, settings[c.overhead.key]);
    }
    this.apply(BREAKER_TOTAL_LIMIT.key, settings[BREAKER_TOTAL_LIMIT.key]);
  }

  /** the setting keys this service follows (subscribe them to cluster-settings updates) */
  static readonly dynamicKeys: readonly string[] = BREAKER_SETTINGS.filter((s) => s.dynamic).map((s) => s.key);

  /** applies a (cluster or node) setting value; undefined/null restores the default */
  apply(key: string, value: unknown): void {
    if (value === undefined || value === null) this.raw.delete(key);
    else this.raw.set(key, value);
    if (key === BREAKER_TOTAL_LIMIT.key) {
      const v = this.raw.get(key) ?? (this.useRealMemory ? '95%' : '70%');
      this.parentLimit = parseMemorySize(v, key, this.heap);
      return;
    }
    for (const c of CHILDREN) {
      const breaker = this.children.get(c.name)!;
      if (c.limit.key === key) breaker.limit = parseMemorySize(this.raw.get(key) ?? c.limit.defaultValue, key, this.heap);
      if (c.overhead?.key === key) breaker.overhead = c.overhead.parse(this.raw.get(key) ?? c.overhead.defaultValue);
    }
  }

  getBreaker(name: string): CircuitBreaker {
    const b = this.children.get(name);
    if (!b) throw Errors.illegalArgument(`no circuit breaker named [${name}]`);
    return b;
  }

  /** total usage the parent compares against its limit */
  private parentUsed(newBytesReserved: number): number {
    if (this.useRealMemory) return this.heapUsed() + newBytesReserved;
    let total = 0;
    for (const b of this.children.values()) total += Math.floor(b.used * b.overhead);
    return total;
  }

  checkParentLimit(newBytesReserved: number, label: string): void {
    const realUsage = this.useRealMemory ? this.heapUsed() : 0;
    const total = this.useRealMemory ? realUsage + newBytesReserved : this.parentUsed(newBytesReserved);
    if (this.parentLimit < 0 || total <= this.parentLimit) return;
    this.parentTripped++;
    let reason = `[parent] Data too large, data for [${label}] would be [${sized(total)}], which is larger than the limit of [${sized(this.parentLimit)}]`;
    if (this.useRealMemory) reason += `, real usage: [${sized(realUsage)}], new bytes reserved: [${sized(newBytesReserved)}]`;
    const usages = [...this.children.values()].map((b) => `${b.name}=${sized(b.used)}`).join(', ');
    reason += `, usages [${usages}]`;
    let transientBytes = 0;
    let permanentBytes = 0;
    for (const b of this.children.values()) {
      if (b.durability === 'TRANSIENT') transientBytes += b.used;
      else permanentBytes += b.used;
    }
    throw circuitBreakingException(reason, total, this.parentLimit, transientBytes >= permanentBytes ? 'TRANSIENT' : 'PERMANENT');
  }

  stats(): Record<string, BreakerStats> {
    const out: Record<string, BreakerStats> = {};
    const one = (limit: number, used: number, overhead: number, tripped: number): BreakerStats => ({
      limit_size_in_bytes: limit,
      limit_size: formatByteSize(Math.max(0, limit)),
      estimated_size_in_bytes: used,
      estimated_size: formatByteSize(Math.max(0, used)),
      overhead,
      tripped,
    });
    for (const b of this.children.values()) out[b.name] = one(b.limit, Math.floor(b.used * b.overhead), b.overhead, b.trippedCount);
    out[BreakerNames.PARENT] = one(this.parentLimit, this.parentUsed(0), 1, this.parentTripped);
    return out;
  }
}

/**
 * The memory one request holds in the breakers; everything reserved is released by `close()` when the
 * request ends (the HTTP pipeline opens one per request and puts it on the RequestContext).
 */
export class RequestMemory {
  private readonly held = new Map<CircuitBreaker, number>();
  private closed = false;

  constructor(readonly service: CircuitBreakerService) {}

  /** charges `bytes` (checked unless `canTrip` is false) until close() */
  reserve(breakerName: string, bytes: number, label: string, canTrip = true): void {
    if (this.closed || bytes === 0) return;
    const b = this.service.getBreaker(breakerName);
    if (canTrip) b.addEstimateBytesAndMaybeBreak(bytes, label);
    else b.addWithoutBreaking(bytes);
    this.held.set(b, (this.held.get(b) ?? 0) + bytes);
  }

  release(breakerName: string, bytes: number): void {
    if (this.closed) return;
    const b = this.service.getBreaker(breakerName);
    const have = this.held.get(b) ?? 0;
    const n = Math.min(have, bytes);
    b.addWithoutBreaking(-n);
    this.held.set(b, have - n);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const [b, n] of this.held) b.addWithoutBreaking(-n);
    this.held.clear();
  }
}

/**
 * Charges `bytes` of the current request to a breaker (released when the request ends); a no-op outside a
 * request or without breakers. Throws circuit_breaking_exception on a trip.
 */
export function reserveRequestMemory(breakerName: string, bytes: number, label: string): void {
  RequestContexts.current()?.memory?.reserve(breakerName, bytes, label);
}

/**
 * Counts units (buckets, entries) of the current request and charges the request breaker once per `batch`
 * of them, so hot loops pay one counter increment per unit (Elasticsearch's MultiBucketConsumer checks the
 * breaker every 1024 buckets the same way).
 */
export class BatchedReservation {
  private pending = 0;
  private readonly memory: RequestMemory | undefined;

  constructor(
    private readonly breakerName: string,
    private readonly bytesPerUnit: number,
    private readonly label: string,
    private readonly batch = 1024,
  ) {
    this.memory = RequestContexts.current()?.memory;
  }

  /** one more unit */
  add(): void {
    if (this.memory === undefined) return;
    if (++this.pending >= this.batch) this.flush();
  }

  /** charges what is pending */
  flush(): void {
    if (this.memory === undefined || this.pending === 0) return;
    const n = this.pending;
    this.pending = 0;
    this.memory.reserve(this.breakerName, n * this.bytesPerUnit, this.label);
  }
}
