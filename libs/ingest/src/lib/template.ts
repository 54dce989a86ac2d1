/**
 * Mustache templates as ingest uses them (content type text/plain: no escaping). Compiled once into parts:
 * literals and variable lookups (`{{field}}`, `{{{field}}}`, `{{_ingest.timestamp}}`, `{{_source.x}}`),
 * plus simple sections `{{#field}}...{{/field}}` / inverted sections `{{^field}}...{{/field}}`.
 */
import type { TemplateModel } from './ingest-document.js';
import { isObject } from './ingest-document.js';

type Part =
  | { kind: 'text'; text: string }
  | { kind: 'var'; path: string; raw: boolean }
  | { kind: 'section'; path: string; inverted: boolean; body: Part[] };

export interface Template {
  readonly source: string;
  readonly isConstant: boolean;
  render(model: TemplateModel): string;
}

export function renderValue(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return '[' + v.map(renderValue).join(', ') + ']';
  if (isObject(v)) {
    return '{' + Object.entries(v).map(([k, x]) => `${k}=${renderValue(x)}`).join(', ') + '}';
  }
  return String(v);
}

function parse(src: string, pos: { i: number }, closing?: string): Part[] {
  const parts: Part[] = [];
  let text = '';
  while (pos.i < src.length) {
    const open = src.indexOf('{{', pos.i);
    if (open < 0) {
      text += src.slice(pos.i);
      pos.i = src.length;
      break;
    }
    text += src.slice(pos.i, open);
    const triple = src.startsWith('{{{', open);
    const end = src.indexOf(triple ? '}}}' : '}}', open);
    if (end < 0) {
      throw new Error(`Improperly closed variable in template at position ${open}`);
    }
    const tag = src.slice(open + (triple ? 3 : 2), end).trim();
    pos.i = end + (triple ? 3 : 2);
    if (text) parts.push({ kind: 'text', text });
    text = '';
    if (!triple && (tag.startsWith('#') || tag.startsWith('^'))) {
      const name = tag.slice(1).trim();
      const body = parse(src, pos, name);
      parts.push({ kind: 'section', path: name, inverted: tag.startsWith('^'), body });
    } else if (!triple && tag.startsWith('/')) {
      const name = tag.slice(1).trim();
      if (name !== closing) throw new Error(`Mismatched start/end tags: ${closing ?? 'none'} != ${name}`);
      return parts;
    } else if (!triple && tag.startsWith('!')) {
      // comment
    } else {
      const raw = triple || tag.startsWith('&');
      parts.push({ kind: 'var', path: tag.startsWith('&') ? tag.slice(1).trim() : tag, raw });
    }
  }
  if (closing !== undefined) throw new Error(`Failed to close '${closing}' tag`);
  if (text) parts.push({ kind: 'text', text });
  return parts;
}

export type Escaper = (s: string) => string;

/** JSON string escaping (mustache with content type application/json) */
export const jsonEscape: Escaper = (s) => {
  const j = JSON.stringify(s);
  return j.slice(1, -1);
};

/** application/x-www-form-urlencoded escaping */
export const urlEscape: Escaper = (s) => encodeURIComponent(s).replace(/%20/g, '+');

export function escaperFor(mediaType: string | undefined): Escaper | undefined {
  if (mediaType === 'application/json') return jsonEscape;
  if (mediaType === 'application/x-www-form-urlencoded') return urlEscape;
  return undefined;
}

function renderParts(parts: Part[], model: TemplateModel, scope: unknown[], esc: Escaper | undefined): string {
  let out = '';
  for (const p of parts) {
    if (p.kind === 'text') out += p.text;
    else if (p.kind === 'var') {
      const v = renderValue(lookup(p.path, model, scope));
      out += esc && !p.raw ? esc(v) : v;
    }
    else {
      const v = lookup(p.path, model, scope);
      const truthy = !(v === undefined || v === null || v === false || v === '' || (Array.isArray(v) && v.length === 0));
      if (p.inverted) {
        if (!truthy) out += renderParts(p.body, model, scope, esc);
      } else if (truthy) {
        if (Array.isArray(v)) for (const item of v) out += renderParts(p.body, model, [item, ...scope], esc);
        else out += renderParts(p.body, model, [v, ...scope], esc);
      }
    }
  }
  return out;
}

function lookup(path: string, model: TemplateModel, scope: unknown[]): unknown {
  if (path === '.') return scope[0];
  for (const s of scope) {
    if (isObject(s)) {
      const parts = path.split('.');
      let cur: unknown = s;
      let ok = true;
      for (const part of parts) {
        if (isObject(cur) && Object.prototype.hasOwnProperty.call(cur, part)) cur = cur[part];
        else {
          ok = false;
          break;
        }
      }
      if (ok) return cur;
    }
  }
  return model.resolve(path.startsWith('ctx.') ? path.slice(4) : path);
}

export function compileTemplate(src: string, esc?: Escaper): Template {
  if (!src.includes('{{')) {
    return { source: src, isConstant: true, render: () => src };
  }
  const parts = parse(src, { i: 0 });
  if (parts.length === 1 && parts[0].kind === 'var') {
    const path = parts[0].path;
    const e = parts[0].raw ? undefined : esc;
    return {
      source: src,
      isConstant: false,
      render: e ? (m) => e(renderValue(lookup(path, m, []))) : (m) => renderValue(lookup(path, m, [])),
    };
  }
  return { source: src, isConstant: false, render: (m) => renderParts(parts, m, [], esc) };
}

/** A value that may contain templates in its strings (ES ValueSource). */
export interface ValueSource {
  copy(model: TemplateModel): unknown;
}

export function compileValueSource(value: unknown, esc?: Escaper): ValueSource {
  if (typeof value === 'string') {
    const t = compileTemplate(value, esc);
    if (t.isConstant) return { copy: () => value };
    return { copy: (m) => t.render(m) };
  }
  if (Array.isArray(value)) {
    const items = value.map((v) => compileValueSource(v, esc));
    return { copy: (m) => items.map((i) => i.copy(m)) };
  }
  if (isObject(value)) {
    const entries = Object.entries(value).map(([k, v]) => [compileTemplate(k), compileValueSource(v, esc)] as const);
    return {
      copy: (m) => {
        const o: Record<string, unknown> = {};
        for (const [k, v] of entries) {
          const key = k.render(m);
          if (key === '__proto__') Object.defineProperty(o, key, { value: v.copy(m), enumerable: true, writable: true, configurable: true });
          else o[key] = v.copy(m);
        }
        return o;
      },
    };
  }
  return { copy: () => value };
}
