/**
 * The JSON of a response body with a large array — a bulk response's `items`, a search or scroll page's
 * `hits.hits` — made a slice of elements at a time, the event loop turning between slices: a 5,000-item bulk
 * response is about 1 MB of JSON, 3–11 ms of stringify in one piece, during which no search that arrives is
 * read. The text is the one `stringifyJson` gives for the whole body, byte for byte: the body is stringified
 * with the array replaced by a marker, and the marker by the array's elements, joined as JSON joins them.
 */
import { randomBytes } from 'node:crypto';
import { stringifyJson } from '@strata/core-common';

/** arrays at least this long are rendered in slices */
export const SLICED_ARRAY_MIN = 1000;
/** elements per slice */
export const SLICE_ELEMENTS = 250;

const MARKER = `\u0000array-${randomBytes(8).toString('hex')}\u0000`;
const QUOTED_MARKER = JSON.stringify(MARKER);

/** the body with its large array replaced by the marker, and that array; null when it has none */
function splitLargeArray(body: unknown): { shell: Record<string, unknown>; array: unknown[] } | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const b = body as Record<string, unknown>;
  const items = b['items'];
  if (Array.isArray(items) && items.length >= SLICED_ARRAY_MIN) return { shell: { ...b, items: MARKER }, array: items };
  const hits = b['hits'];
  if (hits && typeof hits === 'object' && !Array.isArray(hits)) {
    const h = hits as Record<string, unknown>;
    const inner = h['hits'];
    if (Array.isArray(inner) && inner.length >= SLICED_ARRAY_MIN) return { shell: { ...b, hits: { ...h, hits: MARKER } }, array: inner };
  }
  return null;
}

/** whether `renderSliced` would render the body in slices */
export function hasLargeArray(body: unknown): boolean {
  return splitLargeArray(body) !== null;
}

/** `stringifyJson(body)`, made a slice of the large array at a time (see the file's comment) */
export async function stringifySliced(body: unknown): Promise<string> {
  const split = splitLargeArray(body);
  if (!split) return stringifyJson(body);
  const shell = stringifyJson(split.shell);
  const at = shell.indexOf(QUOTED_MARKER);
  if (at < 0 || shell.indexOf(QUOTED_MARKER, at + 1) >= 0) return stringifyJson(body);
  const parts: string[] = [shell.slice(0, at), '['];
  const a = split.array;
  for (let i = 0; i < a.length; i += SLICE_ELEMENTS) {
    if (i > 0) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      parts.push(',');
    }
    const s = stringifyJson(a.slice(i, i + SLICE_ELEMENTS));
    parts.push(s.slice(1, -1));
  }
  parts.push(']', shell.slice(at + QUOTED_MARKER.length));
  return parts.join('');
}
