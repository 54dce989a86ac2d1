import { RawJson } from '@strata/core-common';

/**
 * JSON rendering the way Elasticsearch's pretty printer does it: two-space indentation,
 * `"key" : value`, empty containers as `{ }` / `[ ]`, and a trailing newline.
 */
export function prettyJson(value: unknown): string {
  return render(value, '') + '\n';
}

function render(value: unknown, indent: string): string {
  if (value === null || value === undefined) return 'null';
  if (value instanceof RawJson) return reindentJson(value.json, indent);
  if (typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return render((value as { toJSON(): unknown }).toJSON(), indent);
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return '[ ]';
    const inner = indent + '  ';
    const items = value.map((v) => inner + render(v === undefined ? null : v, inner));
    return '[\n' + items.join(',\n') + '\n' + indent + ']';
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(
      ([, v]) => v !== undefined && typeof v !== 'function',
    );
    if (entries.length === 0) return '{ }';
    const inner = indent + '  ';
    const items = entries.map(([k, v]) => `${inner}${JSON.stringify(k)} : ${render(v, inner)}`);
    return '{\n' + items.join(',\n') + '\n' + indent + '}';
  }
  if (typeof value === 'bigint') return value.toString();
  const s = JSON.stringify(value);
  return s === undefined ? 'null' : s;
}


/**
 * Re-indents JSON text in the pretty style above without parsing it: strings and numbers are copied token
 * for token (so `1.0`, `1e3` and integers above 2^53 keep their digits). `text` must be valid JSON.
 */
export function reindentJson(text: string, indent: string): string {
  let out = '';
  let cur = indent;
  let i = 0;
  const n = text.length;
  const skipWs = (): void => {
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      else return;
    }
  };
  while (i < n) {
    const c = text[i]!;
    if (c === ' ' || c === '\n' || c === '\r' || c === '\t') {
      i++;
    } else if (c === '{' || c === '[') {
      i++;
      skipWs();
      const close = c === '{' ? '}' : ']';
      if (text[i] === close) {
        out += c + ' ' + close;
        i++;
      } else {
        cur += '  ';
        out += c + '\n' + cur;
      }
    } else if (c === '}' || c === ']') {
      cur = cur.slice(0, -2);
      out += '\n' + cur + c;
      i++;
    } else if (c === ',') {
      out += ',\n' + cur;
      i++;
    } else if (c === ':') {
      out += ' : ';
      i++;
    } else if (c === '"') {
      let e = i + 1;
      for (;;) {
        const q = text.indexOf('"', e);
        if (q === -1) {
          e = n;
          break;
        }
        let b = q - 1;
        let slashes = 0;
        while (text.charCodeAt(b) === 92) {
          slashes++;
          b--;
        }
        e = q + 1;
        if ((slashes & 1) === 0) break;
      }
      out += text.slice(i, e);
      i = e;
    } else {
      // number / true / false / null: copied up to the next delimiter
      let e = i + 1;
      while (e < n) {
        const d = text[e]!;
        if (d === ',' || d === '}' || d === ']' || d === ' ' || d === '\n' || d === '\r' || d === '\t') break;
        e++;
      }
      out += text.slice(i, e);
      i = e;
    }
  }
  return out;
}
