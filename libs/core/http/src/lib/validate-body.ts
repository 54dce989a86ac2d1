import { validate, type ValidationError } from 'class-validator';
import { Errors } from '@strata/core-common';

type Ctor<T> = new () => T;

function flatten(errors: ValidationError[], prefix = ''): Array<{ path: string; constraints: Record<string, string> }> {
  const out: Array<{ path: string; constraints: Record<string, string> }> = [];
  for (const e of errors) {
    const path = prefix ? `${prefix}.${e.property}` : e.property;
    if (e.constraints) out.push({ path, constraints: e.constraints });
    if (e.children?.length) out.push(...flatten(e.children, path));
  }
  return out;
}

/**
 * Validates a JSON body against a class-validator DTO (properties mirror the wire names).
 * - not an object, unknown fields, wrong value types → x_content_parse_exception
 *   (`[1:1] [name] unknown field [x]`, `[1:1] [name] failed to parse field [x]`)
 * - missing required values and other constraint violations → action_request_validation_exception
 * The DTO's static `NAME` (or the class name) is used as the object name in messages.
 */
export async function validateBody<T extends object>(dto: Ctor<T>, json: unknown): Promise<T> {
  const name = (dto as unknown as { NAME?: string }).NAME ?? dto.name;
  if (json === undefined || json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw Errors.xContentParse(`[${name}] expected an object but found [${json === undefined ? 'nothing' : Array.isArray(json) ? 'array' : typeof json}]`);
  }
  const instance = Object.assign(new dto(), json) as T;
  const errors = flatten(
    await validate(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: false, validationError: { target: false } }),
  );
  if (errors.length === 0) return instance;
  const unknown = errors.find((e) => 'whitelistValidation' in e.constraints);
  if (unknown) throw Errors.xContentParse(`[${name}] unknown field [${unknown.path}]`);
  const missing: string[] = [];
  const typeErrors: string[] = [];
  const other: string[] = [];
  for (const e of errors) {
    const kinds = Object.keys(e.constraints);
    if (kinds.includes('isDefined') || kinds.includes('isNotEmpty')) missing.push(`[${e.path}] is missing`);
    else if (kinds.some((k) => /^is(String|Number|Int|Boolean|Object|Array)$/.test(k))) typeErrors.push(e.path);
    else other.push(...Object.values(e.constraints));
  }
  if (typeErrors.length > 0 && missing.length === 0) {
    throw Errors.xContentParse(`[${name}] failed to parse field [${typeErrors[0]}]`);
  }
  throw Errors.actionRequestValidation([...missing, ...typeErrors.map((p) => `[${p}] has an invalid value`), ...other]);
}
