import { Errors, RestResponses, formatByteSize, formatTimeValue, type RestRequest, type RestResponse, wildcardRegExp } from '@strata/core-common';

export interface CatColumn {
  name: string;
  aliases?: string[];
  /** shown without `h` */
  default?: boolean;
  /** right-aligned numbers / sizes */
  numeric?: boolean;
  /** size in bytes (rendered according to `bytes`) */
  bytes?: boolean;
  /** a duration in milliseconds (rendered according to `time`) */
  time?: boolean;
  desc?: string;
}

export type CatRow = Record<string, string | number | null | undefined>;

/** the query parameters every _cat endpoint accepts */
export const CAT_PARAMS = ['format', 'h', 'help', 'v', 's', 'bytes', 'time', 'local', 'master_timeout', 'pri', 'health', 'expand_wildcards', 'include_unloaded_segments'];

const BYTE_DIV: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3, tb: 1024 ** 4, pb: 1024 ** 5 };
/** milliseconds per `time` unit */
const TIME_DIV: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000, ms: 1, micros: 1e-3, nanos: 1e-6 };

function cell(col: CatColumn, v: CatRow[string], bytes: string | undefined, time?: string): string | null {
  if (v === undefined || v === null) return null;
  if (col.time && typeof v === 'number') {
    if (time) {
      const div = TIME_DIV[time];
      if (!div) throw Errors.illegalArgument(`failed to parse [time] with value [${time}]`);
      return String(Math.floor(v / div));
    }
    return formatTimeValue(v);
  }
  if (col.bytes && typeof v === 'number') {
    if (bytes) {
      const div = BYTE_DIV[bytes];
      if (!div) throw Errors.illegalArgument(`failed to parse [bytes] with value [${bytes}]`);
      return String(Math.floor(v / div));
    }
    return formatByteSize(v);
  }
  return String(v);
}

/**
 * Renders a _cat table: `v` (headers), `h` (columns, wildcards), `s` (sort, `:desc`), `bytes`,
 * `format=json`, `help`.
 */
export function renderCat(req: RestRequest, columns: CatColumn[], rows: CatRow[]): RestResponse {
  const bytes = req.param('bytes');
  const time = req.param('time');
  if (req.boolParam('help', false)) {
    const w = Math.max(...columns.map((c) => c.name.length));
    const text = columns
      .map((c) => `${c.name.padEnd(w)} | ${(c.aliases ?? []).join(',')} | ${c.desc ?? c.name}`)
      .join('\n');
    return RestResponses.text(200, text + '\n');
  }
  const byName = (n: string): CatColumn | undefined => columns.find((c) => c.name === n || c.aliases?.includes(n));
  let selected: CatColumn[];
  const h = req.listParam('h');
  if (h && h.length > 0) {
    selected = [];
    for (const name of h) {
      if (name.includes('*')) {
        const re = wildcardRegExp(name);
        for (const c of columns) if (re.test(c.name) && !selected.includes(c)) selected.push(c);
      } else {
        const c = byName(name);
        if (c) selected.push(c);
      }
    }
  } else selected = columns.filter((c) => c.default !== false);

  const sorted = [...rows];
  const s = req.listParam('s');
  if (s && s.length > 0) {
    const keys = s.map((k) => {
      const [n, dir] = k.split(':');
      const col = byName(n);
      if (!col) throw Errors.unsupportedOperation(`Unable to sort by unknown sort key \`${n}\``);
      return { col, desc: dir === 'desc' };
    });
    sorted.sort((a, b) => {
      for (const { col, desc } of keys) {
        const x = a[col.name];
        const y = b[col.name];
        let c: number;
        if (x === y) c = 0;
        else if (x === undefined || x === null) c = 1;
        else if (y === undefined || y === null) c = -1;
        else if (typeof x === 'number' && typeof y === 'number') c = x - y;
        else c = String(x).localeCompare(String(y));
        if (c !== 0) return desc ? -c : c;
      }
      return 0;
    });
  }

  const format = req.param('format');
  // json and yaml: an array of objects (the pipeline renders `format=yaml` as YAML)
  if (format === 'json' || format === 'yaml') {
    return RestResponses.ok(
      sorted.map((r) => {
        const o: Record<string, string | null> = {};
        for (const c of selected) o[c.name] = cell(c, r[c.name], bytes, time);
        return o;
      }),
    );
  }
  if (format !== undefined && format !== 'txt' && format !== 'text') {
    throw Errors.illegalArgument(`Unsupported format [${format}]`);
  }
  const table: string[][] = sorted.map((r) => selected.map((c) => cell(c, r[c.name], bytes, time) ?? ''));
  const v = req.boolParam('v', false);
  if (v) table.unshift(selected.map((c) => c.name));
  const widths = selected.map((_, i) => Math.max(0, ...table.map((row) => row[i].length)));
  const lines = table.map((row, ri) =>
    row
      .map((val, i) => (selected[i].numeric && !(v && ri === 0) ? val.padStart(widths[i]) : val.padEnd(widths[i])))
      .join(' ')
      .trimEnd(),
  );
  return RestResponses.text(200, lines.length ? lines.join('\n') + '\n' : '');
}
