/** date and date_index_name processors. */
import { Errors } from '@strata/core-common';
import { compileTemplate, renderValue, type Template } from '../template.js';
import { defineProcessor, type ConfigReader, type ProcessorFactory } from '../processor.js';
import {
  compileDateFormatter,
  compileDateParser,
  DateParseError,
  roundDownDate,
  validateZone,
  type DateParser,
} from '../date/date-formats.js';

export const DEFAULT_OUTPUT_FORMAT = "yyyy-MM-dd'T'HH:mm:ss.SSSXXX";

function zoneTemplate(r: ConfigReader): Template | undefined {
  const tz = r.optionalString('timezone');
  if (tz === undefined) return undefined;
  const t = compileTemplate(tz);
  if (t.isConstant) {
    try {
      validateZone(tz);
    } catch (e) {
      throw r.error('timezone', (e as Error).message);
    }
  }
  return t;
}

function renderZone(t: Template | undefined, doc: Parameters<Template['render']>[0]): string {
  if (!t) return 'UTC';
  const z = t.isConstant ? t.source : t.render(doc);
  try {
    return validateZone(z);
  } catch (e) {
    throw Errors.illegalArgument((e as Error).message);
  }
}

function readLocale(r: ConfigReader): void {
  const l = r.optionalString('locale');
  if (l !== undefined && !compileTemplate(l).isConstant) return;
  if (l !== undefined && !/^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})*$|^ROOT$/i.test(l)) {
    throw r.error('locale', `Unknown language: ${l}`);
  }
}

function parsers(r: ConfigReader, formats: string[], prop: string): DateParser[] {
  return formats.map((f) => {
    try {
      return compileDateParser(f);
    } catch (e) {
      throw r.error(prop, `Invalid format: [${f}]: ${(e as Error).message}`);
    }
  });
}

function parseWithAny(ps: DateParser[], value: unknown, zone: string, now: number): number {
  const text = typeof value === 'string' ? value : renderValue(value);
  let last: Error | undefined;
  for (const p of ps) {
    try {
      const ms = p.parse(text, zone, now);
      if (Number.isFinite(ms)) return ms;
    } catch (e) {
      last = e as Error;
    }
  }
  throw Errors.illegalArgument(`unable to parse date [${text}]`, last instanceof DateParseError ? Errors.illegalArgument(last.message) : undefined);
}

export const dateProcessor: ProcessorFactory = defineProcessor('date', (r) => {
  const field = compileTemplate(r.requiredString('field'));
  const target = compileTemplate(r.optionalString('target_field', '@timestamp')!);
  const zone = zoneTemplate(r);
  readLocale(r);
  const formats = r.requiredList('formats');
  if (!formats.every((f) => typeof f === 'string')) throw r.error('formats', "property isn't a list of strings");
  const ps = parsers(r, formats as string[], 'formats');
  const outputFormat = r.optionalString('output_format', DEFAULT_OUTPUT_FORMAT)!;
  let formatter;
  try {
    formatter = compileDateFormatter(outputFormat);
  } catch (e) {
    throw r.error('output_format', `invalid output format [${outputFormat}]: ${(e as Error).message}`);
  }
  return {
    execute(doc, ctx) {
      const path = field.isConstant ? field.source : field.render(doc);
      const v = doc.getFieldValue(path);
      // as ES: the value's toString() is parsed (null → "unable to parse date [null]")
      if (v === null || v === undefined) throw Errors.illegalArgument('unable to parse date [null]');
      const z = renderZone(zone, doc);
      const ms = parseWithAny(ps, v, z, ctx.now());
      doc.setFieldValue(target.isConstant ? target.source : target.render(doc), formatter(ms, z));
      return doc;
    },
  };
});

const ROUNDING = ['y', 'M', 'w', 'd', 'h', 'm', 's'];

export const dateIndexNameProcessor: ProcessorFactory = defineProcessor('date_index_name', (r) => {
  const field = r.requiredString('field');
  const prefix = compileTemplate(r.optionalString('index_name_prefix', '')!);
  const rounding = compileTemplate(r.requiredString('date_rounding'));
  if (rounding.isConstant && !ROUNDING.includes(rounding.source)) {
    throw r.error('date_rounding', `date rounding [${rounding.source}] not supported`);
  }
  const zone = zoneTemplate(r);
  readLocale(r);
  const indexNameFormat = compileTemplate(r.optionalString('index_name_format', 'yyyy-MM-dd')!);
  if (indexNameFormat.isConstant) {
    try {
      compileDateFormatter(indexNameFormat.source);
    } catch (e) {
      throw r.error('index_name_format', `invalid date format [${indexNameFormat.source}]: ${(e as Error).message}`);
    }
  }
  const formats = r.optionalList('date_formats') ?? ['ISO8601'];
  const ps = parsers(r, formats as string[], 'date_formats');
  const fmt = compileDateFormatter("uuuu-MM-dd'T'HH:mm:ss.SSSXX");
  return {
    execute(doc, ctx) {
      const v = doc.getFieldValue(field);
      if (v === null || v === undefined) throw Errors.illegalArgument(`field [${field}] is null, cannot parse date.`);
      const z = renderZone(zone, doc);
      const ms = parseWithAny(ps, v, z, ctx.now());
      const round = rounding.render(doc);
      if (!ROUNDING.includes(round)) throw Errors.illegalArgument(`date rounding [${round}] not supported`);
      const name = `<${prefix.render(doc)}{${fmt(ms, z)}||/${round}{${indexNameFormat.render(doc)}|${z}}}>`;
      doc.meta['_index'] = name;
      return doc;
    },
  };
});

/**
 * Resolves a date-math index name of the single-expression form the date_index_name processor writes:
 * `<prefix{DATE||/UNIT{FORMAT|ZONE}}>`. Returns the input unchanged when it is not date math.
 */
export function resolveDateMathIndexName(name: string, now: number): string {
  const m = /^<(.*)\{([^{}|]*)\|\|\/([yMwdhms])\{([^|}]*)\|([^}]*)\}\}(.*)>$/.exec(name);
  if (!m) {
    const simple = /^<(.*)\{now\/([yMwdhms])(?:\{([^|}]*)(?:\|([^}]*))?\})?\}(.*)>$/.exec(name);
    if (!simple) return name;
    const zone = simple[4] ?? 'UTC';
    const ms = roundDownDate(now, simple[2], zone);
    return simple[1] + compileDateFormatter(simple[3] ?? 'yyyy.MM.dd')(ms, zone) + simple[5];
  }
  const [, prefix, date, unit, format, zone, suffix] = m;
  const ms = compileDateParser('ISO8601').parse(date, zone, now);
  return prefix + compileDateFormatter(format)(roundDownDate(ms, unit, zone), zone) + suffix;
}
