/**
 * Word-break character classes (an approximation of Unicode UAX#29 as used by Lucene's StandardTokenizer).
 * A lazily filled lookup table keeps the per-char cost to one array read.
 */
export enum WB {
  Unknown = 0,
  Other = 1,
  ALetter = 2,
  Numeric = 3,
  ExtendNumLet = 4,
  MidLetter = 5,
  MidNumLet = 6,
  MidNum = 7,
  SingleQuote = 8,
  Ideographic = 9,
  Hiragana = 10,
  Extend = 11,
  Katakana = 12,
  Hangul = 13,
  SoutheastAsian = 14,
}

const table = new Uint8Array(0x10000);

const reLetter = /\p{L}/u;
const reDigit = /\p{Nd}/u;
const reMark = /[\p{M}\u200d\u200c\p{Cf}]/u;
const reHan = /\p{Script=Han}/u;
const reHiragana = /\p{Script=Hiragana}/u;
const reKatakana = /\p{Script=Katakana}/u;
const reHangul = /\p{Script=Hangul}/u;
const reSea = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Myanmar}\p{Script=Khmer}]/u;

function classify(cp: number): WB {
  switch (cp) {
    case 0x27:
      return WB.SingleQuote;
    case 0x2e: // .
    case 0x2018:
    case 0x2019:
    case 0x2024:
    case 0xfe52:
    case 0xff07:
    case 0xff0e:
      return WB.MidNumLet;
    case 0x3a: // :
    case 0xb7:
    case 0x387:
    case 0x5f4:
    case 0x2027:
    case 0xfe13:
    case 0xfe55:
    case 0xff1a:
      return WB.MidLetter;
    case 0x2c: // ,
    case 0x3b: // ;
    case 0x37e:
    case 0x589:
    case 0x60c:
    case 0x60d:
    case 0x66c:
    case 0x7f8:
    case 0x2044:
    case 0xfe10:
    case 0xfe14:
    case 0xfe50:
    case 0xfe54:
    case 0xff0c:
    case 0xff1b:
      return WB.MidNum;
    case 0x5f:
    case 0x203f:
    case 0x2040:
    case 0x2054:
    case 0xfe33:
    case 0xfe34:
    case 0xfe4d:
    case 0xfe4e:
    case 0xfe4f:
    case 0xff3f:
      return WB.ExtendNumLet;
  }
  const s = String.fromCodePoint(cp);
  if (reDigit.test(s)) return WB.Numeric;
  if (reMark.test(s)) return WB.Extend;
  if (reHan.test(s)) return WB.Ideographic;
  if (reHiragana.test(s)) return WB.Hiragana;
  if (reKatakana.test(s)) return WB.Katakana;
  if (reHangul.test(s)) return WB.Hangul;
  if (reSea.test(s)) return WB.SoutheastAsian;
  if (reLetter.test(s)) return WB.ALetter;
  return WB.Other;
}

for (let c = 0; c < 128; c++) table[c] = classify(c);

/** Word-break class of a code point. */
export function wordBreakClass(cp: number): WB {
  if (cp < 0x10000) {
    const v = table[cp];
    if (v !== 0) return v as WB;
    const k = classify(cp);
    table[cp] = k;
    return k;
  }
  return classify(cp);
}

const letterTable = new Uint8Array(0x10000);
/** Unicode letter test (Lucene's LetterTokenizer uses Character.isLetter). */
export function isLetter(cp: number): boolean {
  if (cp < 128) return (cp >= 0x61 && cp <= 0x7a) || (cp >= 0x41 && cp <= 0x5a);
  if (cp < 0x10000) {
    let v = letterTable[cp];
    if (v === 0) {
      v = reLetter.test(String.fromCharCode(cp)) ? 1 : 2;
      letterTable[cp] = v;
    }
    return v === 1;
  }
  return reLetter.test(String.fromCodePoint(cp));
}

/** Java's Character.isWhitespace (used by the whitespace tokenizer). */
export function isWhitespace(cp: number): boolean {
  return (
    cp === 0x20 ||
    (cp >= 0x09 && cp <= 0x0d) ||
    (cp >= 0x1c && cp <= 0x1f) ||
    cp === 0x1680 ||
    (cp >= 0x2000 && cp <= 0x2006) ||
    (cp >= 0x2008 && cp <= 0x200a) ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    cp === 0x205f ||
    cp === 0x3000
  );
}
