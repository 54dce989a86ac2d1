/**
 * The shared Painless engine: compile once (parse -> closure tree), run many times with the context's variables.
 * `PainlessScriptService` is the `ScriptService` of core-common: it parses request `script` objects, resolves
 * stored scripts, caches compiled scripts by lang + context + source, and enforces
 * `script.max_compilations_rate`.
 */
import { EsError, type CompiledScript, type ScriptContext, type ScriptRef, type ScriptService } from '@strata/core-common';
import { LRUCache } from 'lru-cache';
import { type CompileOptions, Compiler, type Frame, type Program } from './compiler.js';
import { runtimeError } from './errors.js';
import { unbox } from './runtime.js';

export interface PainlessOptions {
  /** painless max_loop_counter (default 1,000,000) */
  maxLoopCounter?: number;
  /** script.painless.regex.enabled (default true) */
  regexEnabled?: boolean;
}

export class PainlessScript implements CompiledScript {
  private readonly program: Program;
  constructor(
    readonly source: string,
    opts: CompileOptions,
    private readonly boxedResult = false,
  ) {
    this.program = Compiler.compile(source, opts);
  }

  run(vars: Record<string, unknown>): unknown {
    const p = this.program;
    const s = new Array<unknown>(p.slots);
    const g = p.globals;
    for (let i = 0; i < g.length; i++) s[i] = vars[g[i]!] ?? null;
    const f: Frame = { s, ret: null, loops: 0, pos: 0 };
    try {
      p.body(f);
    } catch (e) {
      if (e instanceof EsError && e.type === 'script_exception') throw e;
      throw runtimeError(this.source, f.pos, e);
    }
    return (this.boxedResult ? f.ret : unbox(f.ret)) ?? null;
  }
}

/** compiles a script for the given context variables and functions; throws script_exception "compile error" */
export function compilePainless(source: string, context: Pick<ScriptContext, 'globals' | 'functions' | 'boxedResult'>, opts: PainlessOptions = {}): PainlessScript {
  return new PainlessScript(source, { globals: context.globals, functions: context.functions, maxLoopCounter: opts.maxLoopCounter, regexEnabled: opts.regexEnabled }, context.boxedResult ?? false);
}

/** parses a request's `script` value: `"source"` or `{source|id, params, lang, options}` */
export function parseScriptRef(json: unknown, where = 'script'): ScriptRef {
  if (typeof json === 'string') return { source: json, lang: 'painless', params: {} };
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new EsError('parsing_exception', 400, `[${where}] expected a script object or a string, got ${json === null ? 'VALUE_NULL' : Array.isArray(json) ? 'START_ARRAY' : typeof json === 'number' ? 'VALUE_NUMBER' : 'VALUE_BOOLEAN'}`, { metadata: { line: 1, col: 1 } });
  }
  const o = json as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (!['source', 'inline', 'id', 'lang', 'params', 'options'].includes(k)) throw new EsError('parsing_exception', 400, `[script] unknown field [${k}]`, { metadata: { line: 1, col: 1 } });
  }
  const source = o['source'] ?? o['inline'];
  const id = o['id'];
  if (source !== undefined && id !== undefined) throw new EsError('parsing_exception', 400, 'must specify either [source] for an inline script or [id] for a stored script', { metadata: { line: 1, col: 1 } });
  if (source === undefined && id === undefined) throw new EsError('parsing_exception', 400, 'must specify either [source] for an inline script or [id] for a stored script', { metadata: { line: 1, col: 1 } });
  if (source !== undefined && typeof source !== 'string') throw new EsError('parsing_exception', 400, '[script] source must be a string', { metadata: { line: 1, col: 1 } });
  if (id !== undefined && typeof id !== 'string') throw new EsError('parsing_exception', 400, '[script] id must be a string', { metadata: { line: 1, col: 1 } });
  if (id !== undefined && o['lang'] !== undefined) {
    throw new EsError('illegal_argument_exception', 400, `illegal compiler options [${String(o['lang'])}] specified for stored script [${id}]`);
  }
  const lang = o['lang'] === undefined ? 'painless' : String(o['lang']);
  const params = o['params'];
  if (params !== undefined && params !== null && (typeof params !== 'object' || Array.isArray(params))) {
    throw new EsError('parsing_exception', 400, `[script] params must be an object`, { metadata: { line: 1, col: 1 } });
  }
  return {
    ...(typeof source === 'string' ? { source } : {}),
    ...(typeof id === 'string' ? { id } : {}),
    lang,
    params: (params as Record<string, unknown> | undefined) ?? {},
    ...(o['options'] && typeof o['options'] === 'object' ? { options: o['options'] as Record<string, string> } : {}),
  };
}

export interface StoredScriptSource {
  lang: string;
  source: string;
}

export interface ScriptServiceOptions extends PainlessOptions {
  /** script.max_compilations_rate, e.g. "150/5m" ("unlimited" to disable) */
  maxCompilationsRate?: string;
  /** script.cache.max_size */
  cacheMaxSize?: number;
  /** looks up a stored script by id */
  storedScript?: (id: string) => StoredScriptSource | undefined;
  /** clock for the compilation rate */
  now?: () => number;
}

function parseRate(rate: string): { count: number; perMillis: number } | null {
  if (rate === 'unlimited') return null;
  if (rate === 'use-context') return { count: 150, perMillis: 300_000 };
  const m = /^(\d+)\/(\d+)(ms|s|m|h|d)$/.exec(rate.trim());
  if (!m) throw new EsError('illegal_argument_exception', 400, `failed to parse [${rate}]`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[3] as 'ms' | 's' | 'm' | 'h' | 'd'];
  return { count: Number(m[1]), perMillis: Number(m[2]) * unit };
}

export class PainlessScriptService implements ScriptService {
  private readonly cache: LRUCache<string, PainlessScript>;
  private rate: { count: number; perMillis: number } | null;
  private rateText: string;
  private tokens: number;
  private last: number;
  /** number of compilations and cache evictions (for _nodes/stats script) */
  compilations = 0;
  cacheEvictions = 0;
  compilationLimitTriggered = 0;

  constructor(private readonly opts: ScriptServiceOptions = {}) {
    this.cache = new LRUCache({ max: opts.cacheMaxSize ?? 3000, dispose: () => void this.cacheEvictions++ });
    this.rateText = opts.maxCompilationsRate ?? 'use-context';
    this.rate = parseRate(this.rateText);
    if (this.rateText === 'use-context') this.rateText = '150/5m';
    this.tokens = this.rate?.count ?? 0;
    this.last = (opts.now ?? Date.now)();
  }

  setMaxCompilationsRate(rate: string): void {
    this.rate = parseRate(rate);
    this.rateText = rate === 'use-context' ? '150/5m' : rate;
    this.tokens = this.rate?.count ?? 0;
  }

  setStoredScriptLookup(fn: (id: string) => StoredScriptSource | undefined): void {
    this.opts.storedScript = fn;
  }

  parse(json: unknown, where?: string): ScriptRef {
    return parseScriptRef(json, where);
  }

  compile(script: ScriptRef | string, context: ScriptContext): CompiledScript {
    const ref: ScriptRef = typeof script === 'string' ? { source: script, lang: 'painless', params: {} } : script;
    let source = ref.source;
    let lang = ref.lang;
    if (source === undefined) {
      const stored = ref.id !== undefined ? this.opts.storedScript?.(ref.id) : undefined;
      if (!stored) throw new EsError('resource_not_found_exception', 404, `unable to find script [${ref.id ?? ''}] in cluster state`);
      source = stored.source;
      lang = stored.lang;
    }
    if (lang !== 'painless') {
      if (lang === 'mustache' || lang === 'expression') throw new EsError('illegal_argument_exception', 400, `cannot execute scripts using [${context.name}] context`);
      throw new EsError('illegal_argument_exception', 400, `script_lang not supported [${lang}]`);
    }
    const key = `${context.name}\u0000${context.globals.join(',')}\u0000${(context.functions ?? []).join(',')}\u0000${source}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    if (ref.id === undefined) this.checkCompilationRate();
    const compiled = compilePainless(source, context, this.opts);
    this.compilations++;
    this.cache.set(key, compiled);
    return compiled;
  }

  private checkCompilationRate(): void {
    const rate = this.rate;
    if (!rate) return;
    const now = (this.opts.now ?? Date.now)();
    this.tokens = Math.min(rate.count, this.tokens + ((now - this.last) * rate.count) / rate.perMillis);
    this.last = now;
    if (this.tokens < 1) {
      this.compilationLimitTriggered++;
      throw new EsError(
        'circuit_breaking_exception',
        429,
        `[script] Too many dynamic script compilations within, max: [${this.rateText}]; please use indexed, or scripts with parameters instead; this limit can be changed by the [script.max_compilations_rate] setting`,
        { metadata: { bytes_wanted: 0, bytes_limit: 0, durability: 'TRANSIENT' } },
      );
    }
    this.tokens -= 1;
  }
}
