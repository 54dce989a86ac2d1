/** Small helpers shared by the data-streams feature: JSON shape checks and Elasticsearch-style parse errors. */
import { Errors, locateKey, nestSettings, type EsError, type RestRequest } from '@strata/core-common';

export type Json = Record<string, unknown>;

export function isObj(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** line/col (1-based) of the first `"key":` in a raw body, as Jackson reports the field name token */
function keyLocation(req: RestRequest | undefined, key: string): [number, number] {
  const at = req ? locateKey(req.rawBody(), key, 'key') : undefined;
  return at ? [at.line, at.col] : [1, 2];
}

/** `[l:c] [parser] unknown field [key]` (ObjectParser) */
export function unknownField(req: RestRequest | undefined, parser: string, key: string): EsError {
  const [l, c] = keyLocation(req, key);
  return Errors.xContentParse(`[${parser}] unknown field [${key}]`, l, c);
}

/** `[l:c] [parser] failed to parse field [key]` with a cause */
export function badField(req: RestRequest | undefined, parser: string, key: string, cause?: EsError | Error): EsError {
  const [l, c] = keyLocation(req, key);
  return Errors.xContentParse(`[${parser}] failed to parse field [${key}]`, l, c, cause);
}

/** settings as Elasticsearch renders them: nested (or flat) objects with string values */
export function renderSettings(flat: Json, asFlat = false): Json {
  const str: Json = {};
  for (const [k, v] of Object.entries(flat)) str[k] = Array.isArray(v) ? v.map((x) => String(x)) : v === null || typeof v === 'object' ? v : String(v);
  return asFlat ? str : nestSettings(str);
}

/** names matching a comma list of names / `*` wildcards */
export function expandNames(all: readonly string[], expr: string | undefined, matcher: (pattern: string, name: string) => boolean): { names: string[]; missing: string[] } {
  const parts = (expr ?? '*').split(',').map((s) => s.trim()).filter(Boolean);
  const out = new Set<string>();
  const missing: string[] = [];
  for (const p of parts.length ? parts : ['*']) {
    if (p === '_all' || p.includes('*')) {
      for (const n of all) if (p === '_all' || matcher(p, n)) out.add(n);
    } else if (all.includes(p)) out.add(p);
    else missing.push(p);
  }
  return { names: [...out].sort(), missing };
}
