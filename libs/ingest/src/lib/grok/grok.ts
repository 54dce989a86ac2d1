/**
 * Grok: expands `%{NAME:field:type}` references recursively into ONE JavaScript RegExp at compile time.
 * Captures are renamed to `g<N>` groups (JS group names must be identifiers and unique) and mapped back to
 * field names; `(?>...)` atomic groups become `(?:...)`.
 */
import { GROK_PATTERNS } from './grok-patterns.js';
import { javaRegexParts } from '../java-regex.js';

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
  readonly regex: RegExp;
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
    const java = javaRegexParts(parts.length === 1 ? parts[0] : parts.join('|'));
    try {
      new RegExp(java.source, java.flags);
    } catch (e) {
      throw new GrokCompileError((e as Error).message);
    }
    // V8 builds a `groups` object per match for named groups: use numbered groups instead
    const { source, indices } = numberGroups(java.source);
    this.regex = new RegExp(source, java.flags);
    this.captures = state.captures;
    this.captureIndex = state.captures.map((c) => indices.get(c.group)!);
    this.hasDuplicateFields = new Set(state.captures.map((c) => c.field)).size !== state.captures.length;
    this.markerIndex = markers.map((m) => indices.get(m)!);
  }

  private readonly captureIndex: number[];
  private readonly hasDuplicateFields: boolean;
  private readonly markerIndex: number[];

  match(text: string): GrokMatch | null {
    const m = this.regex.exec(text);
    if (!m) return null;
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
  let r = s.replace(/\(\?>/g, '(?:');
  r = r.replace(/\(\?<([A-Za-z_@][A-Za-z0-9_.@[\]-]*)>/g, (_m, name: string) => {
    const group = `g${state.n++}`;
    state.captures.push({ group, field: name, type: 'string' });
    return `(?<${group}>`;
  });
  return r;
}

/** Replaces `(?<name>` by `(` and returns each name's capture-group number. */
function numberGroups(src: string): { source: string; indices: Map<string, number> } {
  const indices = new Map<string, number>();
  let out = '';
  let group = 0;
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') {
      out += c + (src[i + 1] ?? '');
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      continue;
    }
    if (c === '(') {
      if (src[i + 1] !== '?') {
        group++;
        out += c;
        continue;
      }
      if (src[i + 2] === '<' && src[i + 3] !== '=' && src[i + 3] !== '!') {
        const end = src.indexOf('>', i + 3);
        const name = src.slice(i + 3, end);
        group++;
        indices.set(name, group);
        out += '(';
        i = end;
        continue;
      }
    }
    out += c;
  }
  return { source: out, indices };
}
