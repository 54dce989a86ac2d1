import { Errors } from './errors.js';

const TIME_UNITS: Record<string, number> = {
  nanos: 1e-6,
  micros: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** Parses an Elasticsearch time value ("30s", "1m", "500ms", "-1", "0") into milliseconds. */
export function parseTimeValue(value: unknown, settingName: string): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value !== 'string') {
    throw Errors.illegalArgument(`failed to parse setting [${settingName}] with value [${String(value)}] as a time value`);
  }
  const v = value.trim();
  if (v === '-1') return -1;
  if (v === '0') return 0;
  const m = /^(\d+(?:\.\d+)?)\s*(nanos|micros|ms|s|m|h|d)$/.exec(v.toLowerCase());
  if (!m) {
    throw Errors.illegalArgument(
      `failed to parse setting [${settingName}] with value [${value}] as a time value: unit is missing or unrecognized`,
    );
  }
  return Number(m[1]) * TIME_UNITS[m[2]];
}

/** Renders milliseconds in Elasticsearch's short form ("1.5s", "30m"). */
export function formatTimeValue(ms: number): string {
  if (ms < 0) return '-1';
  if (ms >= 86_400_000) return `${+(ms / 86_400_000).toFixed(1)}d`;
  if (ms >= 3_600_000) return `${+(ms / 3_600_000).toFixed(1)}h`;
  if (ms >= 60_000) return `${+(ms / 60_000).toFixed(1)}m`;
  if (ms >= 1000) return `${+(ms / 1000).toFixed(1)}s`;
  return `${Math.round(ms)}ms`;
}

const BYTE_UNITS: Record<string, number> = {
  b: 1,
  kb: 1024,
  mb: 1024 ** 2,
  gb: 1024 ** 3,
  tb: 1024 ** 4,
  pb: 1024 ** 5,
};

/** Parses a byte size ("10mb", "1gb", "512b", "-1") into bytes. */
export function parseByteSize(value: unknown, settingName: string): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value !== 'string') {
    throw Errors.illegalArgument(`failed to parse setting [${settingName}] with value [${String(value)}] as a size in bytes`);
  }
  const v = value.trim().toLowerCase();
  if (v === '-1') return -1;
  if (v === '0') return 0;
  const m = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb|tb|pb)$/.exec(v);
  if (!m) {
    throw Errors.illegalArgument(
      `failed to parse setting [${settingName}] with value [${value}] as a size in bytes: unit is missing or unrecognized`,
    );
  }
  return Math.round(Number(m[1]) * BYTE_UNITS[m[2]]);
}

/** Renders bytes the way Elasticsearch's ByteSizeValue does for `human` output ("1.2mb", "512b"). */
export function formatByteSize(bytes: number): string {
  const units: Array<[string, number]> = [
    ['pb', 1024 ** 5],
    ['tb', 1024 ** 4],
    ['gb', 1024 ** 3],
    ['mb', 1024 ** 2],
    ['kb', 1024],
  ];
  for (const [u, n] of units) {
    if (bytes >= n) return `${+(bytes / n).toFixed(1)}${u}`;
  }
  return `${bytes}b`;
}

/** Parses a boolean the strict way Elasticsearch does ("true"/"false" only). */
export function parseBooleanStrict(value: unknown): boolean {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw Errors.illegalArgument(
    `Failed to parse value [${String(value)}] as only [true] or [false] are allowed.`,
  );
}
