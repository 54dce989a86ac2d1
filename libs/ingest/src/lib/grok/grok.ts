/**
 * Grok: expands `%{NAME:field:type}` references recursively into ONE pattern at compile time, run by
 * core's UserRegex (linear-time automaton; the guarded backtracking engine only for lookaheads, with
 * atomic groups and possessive quantifiers kept). Captures are renamed to `g<N>` groups (names must be
 * identifiers and unique) and mapped back to field names.
 */
import { UserRegex } from '@strata/core-common';
import { GROK_PATTERNS } from './grok-patterns.js';

export type GrokType = 'string' | 'int' | 'long' | 'float' | 'double' | 'boolean';

export interface GrokCapture {
  group: string;
  field: string;
  type: GrokType;
}

export class GrokCompileError extends Error {}

export interface GrokMatch {
  fields: Array<[string, unknown]>;
  /** index of the pattern that matched (for trace_match) */
  patternIndex: number;
}

export class Grok {
  readonly regex: UserRegex;
  readonly captures: GrokCapture[];

  constructor(patterns: string[], bank: Readonly<Record<string, string>> = GROK_PATTERNS) {
    const state = { n: 0, captures: [] as GrokCapture[] };
    const markers: string[] = [];
    const parts = patterns.map((p, i) => {
      const body = expand(p, bank, state, []);
      if (patterns.length === 1) return body;
      const marker = `m${i}`;
      markers.push(marker);
      return `(?<${marker}>${body})`;
    });
    try {
      this.regex = UserRegex.java(parts.length === 1 ? parts[0] : parts.join('|'));
    } catch (e) {
      throw new GrokCompileError((e as Error).message);
    }
    const indices = new Map<string, number>();
    this.regex.groupNames.forEach((name, k) => {
      if (name !== undefined) indices.set(name, k + 1);
    });
    this.captures = state.captures;
    this.captureIndex = state.captures.map((c) => indices.get(c.group)!);
    this.hasDuplicateFields = new Set(state.captures.map((c) => c.field)).size !== state.captures.length;
    this.markerIndex = markers.map((m) => indices.get(m)!);
  }

  private readonly captureIndex: number[];
  private readonly hasDuplicateFields: boolean;
  private readonly markerIndex: number[];

  match(text: string): GrokMatch | null {
    const r = this.regex.exec(text);
    if (!r) return null;
    const m = r.groups;
    const fields: Array<[string, unknown]> = [];
    const captures = this.captures;
    let seen: Map<string, number> | undefined;
    for (let i = 0; i < captures.length; i++) {
      const v = m[this.captureIndex[i]];
      if (v === undefined) continue;
      const c = captures[i];
      const value = c.type === 'string' ? v : convert(v, c.type);
      if (this.hasDuplicateFields) {
        // as ES >= 8.7: a name matched more than once yields the list of its matches
        seen ??= new Map();
        const at = seen.get(c.field);
        if (at !== undefined) {
          const prev = fields[at][1];
          fields[at][1] = Array.isArray(prev) ? [...prev, value] : [prev, value];
          continue;
        }
        seen.set(c.field, fields.length);
      }
      fields.push([c.field, value]);
    }
    let patternIndex = 0;
    for (let i = 0; i < this.markerIndex.length; i++) {
      if (m[this.markerIndex[i]] !== undefined) {
        patternIndex = i;
        break;
      }
    }
    return { fields, patternIndex };
  }
}

function convert(v: string, type: GrokType): unknown {
  switch (type) {
    case 'int':
    case 'long': {
      const n = Number.parseInt(v, 10);
      return Number.isNaN(n) ? v : n;
    }
    case 'float':
    case 'double': {
      const n = Number.parseFloat(v);
      return Number.isNaN(n) ? v : n;
    }
    case 'boolean':
      return v.toLowerCase() === 'true';
    default:
      return v;
  }
}

const REF = /%\{([A-Za-z0-9_]+)(?::([^:}]+))?(?::([A-Za-z]+))?\}/g;

function expand(
  pattern: string,
  bank: Readonly<Record<string, string>>,
  state: { n: number; captures: GrokCapture[] },
  stack: string[],
): string {
  let out = '';
  let last = 0;
  // first translate Oniguruma named groups and atomic groups in the literal parts
  for (const m of pattern.matchAll(REF)) {
    out += translateLiteral(pattern.slice(last, m.index), state);
    last = m.index + m[0].length;
    const name = m[1];
    const field = m[2];
    const type = (m[3] ?? 'string').toLowerCase();
    const def = bank[name];
    if (def === undefined) throw new GrokCompileError(`Unable to find pattern [${name}] in Grok's pattern dictionary`);
    if (stack.includes(name)) {
      throw new GrokCompileError(`circular reference in pattern [${name}][${[...stack, name].join('=>')}]`);
    }
    const inner = expand(def, bank, state, [...stack, name]);
    if (field) {
      if (!['string', 'int', 'long', 'float', 'double', 'boolean'].includes(type)) {
        throw new GrokCompileError(`Unsupported conversion type [${type}]`);
      }
      const group = `g${state.n++}`;
      state.captures.push({ group, field, type: type as GrokType });
      out += `(?<${group}>${inner})`;
    } else {
      out += `(?:${inner})`;
    }
  }
  out += translateLiteral(pattern.slice(last), state);
  return out;
}

function translateLiteral(s: string, state: { n: number; captures: GrokCapture[] }): string {
  if (!s.includes('(?')) return s;
  return s.replace(/\(\?<([A-Za-z_@][A-Za-z0-9_.@[\]-]*)>/g, (_m, name: string) => {
    const group = `g${state.n++}`;
    state.captures.push({ group, field: name, type: 'string' });
    return `(?<${group}>`;
  });
}
