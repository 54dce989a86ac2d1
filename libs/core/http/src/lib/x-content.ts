/**
 * JSON rendering the way Elasticsearch's pretty printer does it: two-space indentation,
 * `"key" : value`, empty containers as `{ }` / `[ ]`, and a trailing newline.
 */
export function prettyJson(value: unknown): string {
  return render(value, '') + '\n';
}

function render(value: unknown, indent: string): string {
  if (value === null || value === undefined) return 'null';
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

/** Line and column (1-based) of a character offset, as Jackson reports them. */
export function lineCol(text: string, offset: number): [number, number] {
  let line = 1;
  let col = 1;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      col = 1;
    } else col++;
  }
  return [line, col];
}
