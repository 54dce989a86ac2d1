/**
 * The date and date_index_name processors' formats on the service's one date-time implementation
 * (core-common: DateFormatter, zones, date math). Only the ingest-specific format names live here:
 * ISO8601 (also takes a space for 'T'), UNIX (epoch seconds, fractions allowed), UNIX_MS and TAI64N.
 * Java patterns and named Elasticsearch formats go to the shared DateFormatter; a pattern without a year takes
 * the current year (as Elasticsearch's date processor does).
 */
import { DateFormatter, evalDateMath, parseIsoDateOptionalTime, resolveParts, zonedFields, zoneOf, type ZoneRules } from '@strata/core-common';

export class DateParseError extends Error {}

/** validates a time zone id (IANA, offset, UTC); returns it unchanged, throws DateParseError when unknown */
export function validateZone(zone: string): string {
  rules(zone);
  return zone;
}

function rules(zone: string): ZoneRules {
  if (zone.trim() === '') throw new DateParseError(`Unknown time-zone ID: ${zone}`);
  try {
    return zoneOf(zone);
  } catch (e) {
    throw new DateParseError((e as Error).message);
  }
}

/** offset (ms east of UTC) of `zone` at the instant `utcMs` */
export function zoneOffsetMs(zone: string, utcMs: number): number {
  return rules(zone).offsetAt(utcMs);
}

export interface DateParser {
  readonly format: string;
  /** epoch millis; throws DateParseError */
  parse(text: string, zone: string, nowMs: number): number;
}

function compileError(e: unknown, format: string): DateParseError {
  const msg = (e as Error).message;
  const prefix = `Invalid format: [${format}]: `;
  return new DateParseError(msg.startsWith(prefix) ? msg.slice(prefix.length) : msg);
}

function parseIso8601(text: string, zone: string): number {
  const p = parseIsoDateOptionalTime(text.trim(), false, true);
  const r = p && resolveParts(p, rules(zone), false);
  if (!r) throw new DateParseError(`failed to parse date field [${text}] with format [iso8601]`);
  return r.millis;
}

export function compileDateParser(format: string): DateParser {
  switch (format) {
    case 'ISO8601':
      return { format, parse: (t, z) => parseIso8601(t, z) };
    case 'UNIX':
      return {
        format,
        parse: (t) => {
          const s = t.trim();
          if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) throw new DateParseError(`failed to parse [${t}] as UNIX`);
          return Math.round(Number(s) * 1000);
        },
      };
    case 'UNIX_MS':
      return {
        format,
        parse: (t) => {
          const s = t.trim();
          if (!/^[+-]?\d+$/.test(s)) throw new DateParseError(`failed to parse [${t}] as UNIX_MS`);
          return Number(s);
        },
      };
    case 'TAI64N':
      return {
        format,
        parse: (t) => {
          const s = t.startsWith('@') ? t.slice(1) : t;
          if (!/^[0-9a-fA-F]{24}$/.test(s)) throw new DateParseError(`failed to parse [${t}] as TAI64N`);
          const base = Number.parseInt(s.slice(1, 16), 16);
          const rest = Number.parseInt(s.slice(16, 24), 16);
          return base * 1000 - 10000 + Math.floor(rest / 1000000);
        },
      };
  }
  let f: DateFormatter;
  try {
    f = DateFormatter.of(format);
  } catch (e) {
    throw compileError(e, format);
  }
  return {
    format,
    parse(text, zone, now) {
      const z = rules(zone);
      const r = f.tryParse(text, z, false, zonedFields(now, z).year);
      if (!r) throw new DateParseError(`failed to parse date field [${text}] with format [${format}]`);
      return r.millis;
    },
  };
}

export type DateFormatterFn = (epochMs: number, zone: string) => string;

/** yyyy-MM-dd'T'HH:mm:ss.SSSXXX, the date processor's default output, is what strict_date_optional_time prints */
const ISO_OUTPUT = new Set(['ISO8601', "yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "uuuu-MM-dd'T'HH:mm:ss.SSSXXX"]);

export function compileDateFormatter(format: string): DateFormatterFn {
  if (format === 'UNIX_MS') return (ms) => String(ms);
  if (format === 'UNIX') return (ms) => String(Math.floor(ms / 1000));
  let f: DateFormatter;
  try {
    f = DateFormatter.of(ISO_OUTPUT.has(format) ? 'strict_date_optional_time' : format);
  } catch (e) {
    throw compileError(e, format);
  }
  return (ms, zone) => f.format(ms, rules(zone));
}

/** rounds an instant down to the start of a unit (y, M, w, d, h, m, s) in a zone (date math `/unit`) */
export function roundDownDate(ms: number, unit: string, zone: string): number {
  return evalDateMath(`/${unit}`, ms, false, rules(zone));
}
