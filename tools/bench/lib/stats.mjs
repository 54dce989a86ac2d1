// Latency statistics and formatting helpers.

/** Percentile by the nearest-rank method on a copy of `values` (p in [0,100]). */
export function percentile(values, p) {
  if (!values.length) return NaN;
  const s = Float64Array.from(values).sort();
  const rank = Math.ceil((p / 100) * s.length);
  return s[Math.min(s.length - 1, Math.max(0, rank - 1))];
}

export function summarize(values) {
  if (!values.length) return { n: 0 };
  const sum = values.reduce((a, b) => a + b, 0);
  return {
    n: values.length,
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    mean: sum / values.length,
    min: Math.min(...values),
    max: Math.max(...values),
  };
}

export const median = (values) => percentile(values, 50);

export function fmtMs(v) {
  if (v === undefined || v === null || Number.isNaN(v)) return '-';
  if (v >= 100) return v.toFixed(0);
  if (v >= 10) return v.toFixed(1);
  return v.toFixed(2);
}

export function fmtInt(v) {
  if (v === undefined || v === null || Number.isNaN(v)) return '-';
  return Math.round(v).toLocaleString('en-US');
}

export function fmtMB(bytes) {
  if (bytes === undefined || bytes === null || Number.isNaN(bytes)) return '-';
  return (bytes / 1048576).toFixed(1) + ' MB';
}

/** Markdown table from a header array and rows of cells. */
export function markdownTable(header, rows) {
  const esc = (c) => String(c ?? '').replace(/\|/g, '\\|');
  const lines = ['| ' + header.map(esc).join(' | ') + ' |', '|' + header.map(() => '---').join('|') + '|'];
  for (const r of rows) lines.push('| ' + r.map(esc).join(' | ') + ' |');
  return lines.join('\n');
}
