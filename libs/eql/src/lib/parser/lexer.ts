/**
 * EQL tokenizer. Token kinds and their display names follow Elasticsearch's EQL grammar, so parse errors
 * read the same ("mismatched input 'x' expecting {...}", "token recognition error at: '...'").
 */
import { EqlParsingException } from '../errors.js';

export type TokenType =
  | 'AND' | 'ANY' | 'BY' | 'FALSE' | 'IN' | 'IN_INSENSITIVE' | 'JOIN' | 'LIKE' | 'LIKE_INSENSITIVE' | 'MAXSPAN'
  | 'NOT' | 'NULL' | 'OF' | 'OR' | 'REGEX' | 'REGEX_INSENSITIVE' | 'SAMPLE' | 'SEQUENCE' | 'TRUE' | 'UNTIL'
  | 'WHERE' | 'WITH' | 'SEQ' | 'ASGN' | 'EQ' | 'NEQ' | 'LT' | 'LTE' | 'GT' | 'GTE' | 'PLUS' | 'MINUS'
  | 'ASTERISK' | 'SLASH' | 'PERCENT' | 'DOT' | 'COMMA' | 'LB' | 'RB' | 'LP' | 'RP' | 'PIPE' | 'OPTIONAL'
  | 'MISSING_EVENT_OPEN' | 'STRING' | 'INTEGER_VALUE' | 'DECIMAL_VALUE' | 'IDENTIFIER' | 'ESCAPED_IDENTIFIER'
  | 'TILDE_IDENTIFIER' | 'EOF';

export interface Token {
  type: TokenType;
  /** the raw text */
  text: string;
  /** decoded value (strings: unquoted; identifiers: unescaped) */
  value: string;
  line: number;
  col: number;
  start: number;
  end: number;
}

/** literal display names, in the grammar's token order (used to build "expecting {...}" sets) */
export const TOKEN_ORDER: readonly TokenType[] = [
  'AND', 'ANY', 'BY', 'FALSE', 'IN', 'IN_INSENSITIVE', 'JOIN', 'LIKE', 'LIKE_INSENSITIVE', 'MAXSPAN', 'NOT', 'NULL',
  'OF', 'OR', 'REGEX', 'REGEX_INSENSITIVE', 'SAMPLE', 'SEQUENCE', 'TRUE', 'UNTIL', 'WHERE', 'WITH', 'SEQ', 'ASGN',
  'EQ', 'NEQ', 'LT', 'LTE', 'GT', 'GTE', 'PLUS', 'MINUS', 'ASTERISK', 'SLASH', 'PERCENT', 'DOT', 'COMMA', 'LB',
  'RB', 'LP', 'RP', 'PIPE', 'OPTIONAL', 'MISSING_EVENT_OPEN', 'STRING', 'INTEGER_VALUE', 'DECIMAL_VALUE',
  'IDENTIFIER', 'ESCAPED_IDENTIFIER', 'TILDE_IDENTIFIER',
];

export const TOKEN_DISPLAY: Record<TokenType, string> = {
  AND: "'and'", ANY: "'any'", BY: "'by'", FALSE: "'false'", IN: "'in'", IN_INSENSITIVE: "'in~'", JOIN: "'join'",
  LIKE: "'like'", LIKE_INSENSITIVE: "'like~'", MAXSPAN: "'maxspan'", NOT: "'not'", NULL: "'null'", OF: "'of'",
  OR: "'or'", REGEX: "'regex'", REGEX_INSENSITIVE: "'regex~'", SAMPLE: "'sample'", SEQUENCE: "'sequence'",
  TRUE: "'true'", UNTIL: "'until'", WHERE: "'where'", WITH: "'with'", SEQ: "':'", ASGN: "'='", EQ: "'=='",
  NEQ: "'!='", LT: "'<'", LTE: "'<='", GT: "'>'", GTE: "'>='", PLUS: "'+'", MINUS: "'-'", ASTERISK: "'*'",
  SLASH: "'/'", PERCENT: "'%'", DOT: "'.'", COMMA: "','", LB: "'['", RB: "']'", LP: "'('", RP: "')'", PIPE: "'|'",
  OPTIONAL: "'?'", MISSING_EVENT_OPEN: "'!['", STRING: 'STRING', INTEGER_VALUE: 'INTEGER_VALUE',
  DECIMAL_VALUE: 'DECIMAL_VALUE', IDENTIFIER: 'IDENTIFIER', ESCAPED_IDENTIFIER: 'ESCAPED_IDENTIFIER',
  TILDE_IDENTIFIER: 'TILDE_IDENTIFIER', EOF: '<EOF>',
};

const KEYWORDS: Record<string, TokenType> = {
  and: 'AND', any: 'ANY', by: 'BY', false: 'FALSE', in: 'IN', join: 'JOIN', like: 'LIKE', maxspan: 'MAXSPAN',
  not: 'NOT', null: 'NULL', of: 'OF', or: 'OR', regex: 'REGEX', sample: 'SAMPLE', sequence: 'SEQUENCE',
  true: 'TRUE', until: 'UNTIL', where: 'WHERE', with: 'WITH',
};
const TILDE_KEYWORDS: Record<string, TokenType> = { in: 'IN_INSENSITIVE', like: 'LIKE_INSENSITIVE', regex: 'REGEX_INSENSITIVE' };

const isLetter = (c: string | undefined): boolean => c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9a-fA-F]$/.test(c);

export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const colOf = (p: number): number => p - lineStart + 1;
  const advanceLines = (from: number, to: number): void => {
    for (let k = from; k < to; k++) {
      if (src[k] === '\n') {
        line++;
        lineStart = k + 1;
      }
    }
  };
  const recognitionError = (start: number, end: number): never => {
    throw new EqlParsingException(line, colOf(start), `token recognition error at: '${src.substring(start, end)}'`);
  };
  const push = (type: TokenType, start: number, end: number, value?: string): void => {
    tokens.push({ type, text: src.substring(start, end), value: value ?? src.substring(start, end), line, col: colOf(start), start, end });
  };

  while (i < src.length) {
    const c = src[i]!;
    // whitespace and comments
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') {
      advanceLines(i, i + 1);
      i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '/') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '*') {
      const end = blockCommentEnd(src, i);
      if (end < 0) {
        // an unterminated comment lexes as '/' then '*'
        push('SLASH', i, i + 1);
        i++;
        continue;
      }
      advanceLines(i, end);
      i = end;
      continue;
    }
    const start = i;
    // strings
    if (c === '"') {
      if (src.startsWith('"""', i)) {
        const close = src.indexOf('"""', i + 3);
        if (close < 0) recognitionError(start, src.length);
        let end = close + 3;
        while (src[end] === '"') end++;
        const value = src.substring(i + 3, end - 3);
        push('STRING', start, end, value);
        advanceLines(start, end);
        i = end;
        continue;
      }
      const { end, value } = lexQuoted(src, i, line, colOf(start), recognitionError);
      push('STRING', start, end, value);
      i = end;
      continue;
    }
    if (c === "'") {
      throw new EqlParsingException(line, colOf(start) + 1, `Use double quotes ["] to define string literals, not single quotes [']`);
    }
    if (c === '?' && (src[i + 1] === '"' || src[i + 1] === "'")) {
      throw new EqlParsingException(
        line,
        colOf(start) + 1,
        `Use triple double quotes ["""] to define unescaped string literals, not [?${src[i + 1]}]`,
      );
    }
    // escaped identifier
    if (c === '`') {
      let j = i + 1;
      let value = '';
      for (;;) {
        if (j >= src.length) recognitionError(start, src.length);
        if (src[j] === '`') {
          if (src[j + 1] === '`') {
            value += '`';
            j += 2;
            continue;
          }
          break;
        }
        value += src[j];
        j++;
      }
      push('ESCAPED_IDENTIFIER', start, j + 1, value);
      advanceLines(start, j + 1);
      i = j + 1;
      continue;
    }
    // numbers
    if (isDigit(c) || (c === '.' && isDigit(src[i + 1]) && !isIdentTail(tokens))) {
      let j = i;
      while (isDigit(src[j])) j++;
      let decimal = false;
      if (src[j] === '.' && (j > i || isDigit(src[j + 1]))) {
        // DIGIT+ DOT DIGIT* | DOT DIGIT+ (but `1.field` after a name is a dereference, handled by the caller)
        decimal = true;
        j++;
        while (isDigit(src[j])) j++;
      }
      if ((src[j] === 'e' || src[j] === 'E') && (isDigit(src[j + 1]) || ((src[j + 1] === '+' || src[j + 1] === '-') && isDigit(src[j + 2])))) {
        decimal = true;
        j += src[j + 1] === '+' || src[j + 1] === '-' ? 2 : 1;
        while (isDigit(src[j])) j++;
      }
      push(decimal ? 'DECIMAL_VALUE' : 'INTEGER_VALUE', start, j);
      i = j;
      continue;
    }
    // identifiers and keywords
    if (isLetter(c) || c === '_' || c === '@') {
      let j = i + 1;
      while (isLetter(src[j]) || isDigit(src[j]) || src[j] === '_') j++;
      const word = src.substring(i, j);
      if (src[j] === '~' && isLetter(c) && /^[A-Za-z][A-Za-z0-9_]*$/.test(word)) {
        const kw = TILDE_KEYWORDS[word];
        push(kw ?? 'TILDE_IDENTIFIER', start, j + 1, kw ? word + '~' : word + '~');
        i = j + 1;
        continue;
      }
      push(KEYWORDS[word] ?? 'IDENTIFIER', start, j);
      i = j;
      continue;
    }
    // operators
    const two = src.substring(i, i + 2);
    const op2: Record<string, TokenType> = { '==': 'EQ', '!=': 'NEQ', '<=': 'LTE', '>=': 'GTE', '![': 'MISSING_EVENT_OPEN' };
    if (op2[two]) {
      push(op2[two]!, start, i + 2);
      i += 2;
      continue;
    }
    const op1: Record<string, TokenType> = {
      ':': 'SEQ', '=': 'ASGN', '<': 'LT', '>': 'GT', '+': 'PLUS', '-': 'MINUS', '*': 'ASTERISK', '/': 'SLASH', '%': 'PERCENT',
      '.': 'DOT', ',': 'COMMA', '[': 'LB', ']': 'RB', '(': 'LP', ')': 'RP', '|': 'PIPE', '?': 'OPTIONAL',
    };
    if (op1[c]) {
      push(op1[c]!, start, i + 1);
      i++;
      continue;
    }
    recognitionError(start, i + 1);
  }
  tokens.push({ type: 'EOF', text: '<EOF>', value: '', line, col: colOf(src.length), start: src.length, end: src.length });
  return tokens;
}

/** `.5` right after an identifier is a dereference, not a number */
function isIdentTail(tokens: Token[]): boolean {
  const last = tokens[tokens.length - 1];
  return last !== undefined && (last.type === 'IDENTIFIER' || last.type === 'ESCAPED_IDENTIFIER' || last.type === 'RB');
}

function blockCommentEnd(src: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < src.length) {
    if (src.startsWith('/*', i)) {
      depth++;
      i += 2;
    } else if (src.startsWith('*/', i)) {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else i++;
  }
  return -1;
}

/** a `"..."` string: escapes \b \t \n \f \r \" \' \\ and \u{hex}; other backslashes stay as written */
function lexQuoted(
  src: string,
  start: number,
  line: number,
  col: number,
  recognitionError: (start: number, end: number) => never,
): { end: number; value: string } {
  let i = start + 1;
  let value = '';
  for (;;) {
    const c = src[i];
    if (c === undefined || c === '\n' || c === '\r') recognitionError(start, i);
    if (c === '"') return { end: i + 1, value };
    if (c !== '\\') {
      value += c;
      i++;
      continue;
    }
    const e = src[i + 1];
    if (e === undefined || e === '\n' || e === '\r') recognitionError(start, i + 1);
    if (e === 'u') {
      if (src[i + 2] !== '{') recognitionError(start, i + 3);
      let j = i + 3;
      while (isHex(src[j])) j++;
      if (src[j] !== '}') recognitionError(start, j + 1);
      const hex = src.substring(i + 3, j);
      if (hex.length === 0) recognitionError(start, j + 1);
      if (hex.length < 2 || hex.length > 8) {
        throw new EqlParsingException(line, col + 1, `Unicode sequence should use [2-8] hex digits, [${src.substring(i, j + 1)}] has [${hex.length}]`);
      }
      const code = parseInt(hex, 16);
      if (code > 0x10ffff) throw new EqlParsingException(line, col + 1, `Invalid unicode character code [${hex}]`);
      if (code >= 0xd800 && code <= 0xdfff) {
        throw new EqlParsingException(line, col + 1, `Invalid unicode character code, [${hex}] is a surrogate code`);
      }
      value += String.fromCodePoint(code);
      i = j + 1;
      continue;
    }
    const simple: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', "'": "'", '\\': '\\' };
    if (simple[e] !== undefined) value += simple[e];
    else value += '\\' + e;
    i += 2;
  }
}
