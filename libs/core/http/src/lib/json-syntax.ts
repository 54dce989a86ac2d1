import { MAX_JSON_NESTING_DEPTH, nestingDepthMessage } from '@strata/core-common';

/**
 * Locates the first JSON syntax error of a text (only used after JSON.parse failed) and describes it
 * the way Jackson does, so x_content_parse_exception reasons carry `[line:col]` like Elasticsearch's.
 */
export function findJsonSyntaxError(text: string): { offset: number; message: string } {
  let i = 0;
  // nesting is bounded (Jackson's limit) before it can exhaust the stack of this recursive descent
  let depth = 0;
  const enter = (): void => {
    if (++depth > MAX_JSON_NESTING_DEPTH) fail(nestingDepthMessage(depth));
  };
  const n = text.length;
  const ws = (): void => {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const describe = (c: string | undefined): string =>
    c === undefined ? 'end-of-input' : `character ('${c}' (code ${c.codePointAt(0)}))`;
  class Fail extends Error {
    constructor(readonly offset: number, message: string) {
      super(message);
    }
  }
  const fail = (msg: string): never => {
    throw new Fail(i, msg);
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') return object();
    if (c === '[') return array();
    if (c === '"') return string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return number();
    for (const lit of ['true', 'false', 'null']) {
      if (text.startsWith(lit, i)) {
        i += lit.length;
        return;
      }
    }
    if (c === undefined) fail('Unexpected end-of-input: expected a value');
    fail(
      `Unexpected ${describe(c)}: expected a valid value (JSON String, Number, Array, Object or token 'null', 'true' or 'false')`,
    );
  };
  const string = (): void => {
    i++;
    while (i < n) {
      const c = text[i];
      if (c === '"') {
        i++;
        return;
      }
      if (c === '\\') i += 2;
      else if (c.charCodeAt(0) < 0x20) fail(`Illegal unquoted character ((CTRL-CHAR, code ${c.charCodeAt(0)})): has to be escaped using backslash to be included in string value`);
      else i++;
    }
    fail('Unexpected end-of-input: was expecting closing quote for a string value');
  };
  const number = (): void => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) fail(`Unexpected ${describe(text[i])}: expected digit`);
    i += m![0].length;
  };
  const object = (): void => {
    enter();
    i++;
    ws();
    if (text[i] === '}') {
      i++;
      depth--;
      return;
    }
    for (;;) {
      ws();
      if (text[i] !== '"') fail(`Unexpected ${describe(text[i])}: was expecting double-quote to start field name`);
      string();
      ws();
      if (text[i] !== ':') fail(`Unexpected ${describe(text[i])}: was expecting a colon to separate field name and value`);
      i++;
      value();
      ws();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '}') {
        i++;
        depth--;
        return;
      }
      if (i >= n) fail('Unexpected end-of-input: expected close marker for OBJECT');
      fail(`Unexpected ${describe(text[i])}: was expecting comma to separate Object entries`);
    }
  };
  const array = (): void => {
    enter();
    i++;
    ws();
    if (text[i] === ']') {
      i++;
      depth--;
      return;
    }
    for (;;) {
      value();
      ws();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === ']') {
        i++;
        depth--;
        return;
      }
      if (i >= n) fail('Unexpected end-of-input: expected close marker for ARRAY');
      fail(`Unexpected ${describe(text[i])}: was expecting comma to separate Array entries`);
    }
  };
  try {
    value();
    ws();
    if (i < n) fail(`Unexpected ${describe(text[i])}: expected end of input`);
    return { offset: n, message: 'Unexpected end-of-input' };
  } catch (e) {
    if (e instanceof Fail) return { offset: e.offset, message: e.message };
    throw e;
  }
}
