/** The Porter stemming algorithm (M.F. Porter, 1980), as Lucene's PorterStemFilter applies it. */

function isCons(w: string, i: number): boolean {
  const c = w.charCodeAt(i);
  if (c === 97 || c === 101 || c === 105 || c === 111 || c === 117) return false;
  if (c === 121) return i === 0 ? true : !isCons(w, i - 1);
  return true;
}

/** m() measures the number of consonant sequences in w[0..j]. */
function measure(w: string, j: number): number {
  let n = 0;
  let i = 0;
  for (;;) {
    if (i > j) return n;
    if (!isCons(w, i)) break;
    i++;
  }
  i++;
  for (;;) {
    for (;;) {
      if (i > j) return n;
      if (isCons(w, i)) break;
      i++;
    }
    i++;
    n++;
    for (;;) {
      if (i > j) return n;
      if (!isCons(w, i)) break;
      i++;
    }
    i++;
  }
}

function vowelInStem(w: string, j: number): boolean {
  for (let i = 0; i <= j; i++) if (!isCons(w, i)) return true;
  return false;
}

function doubleC(w: string, j: number): boolean {
  if (j < 1) return false;
  if (w[j] !== w[j - 1]) return false;
  return isCons(w, j);
}

function cvc(w: string, i: number): boolean {
  if (i < 2 || !isCons(w, i) || isCons(w, i - 1) || !isCons(w, i - 2)) return false;
  const ch = w[i];
  return !(ch === 'w' || ch === 'x' || ch === 'y');
}

export function porterStem(word: string): string {
  if (word.length <= 2) return word;
  let w = word;
  // step 1a
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ies')) w = w.slice(0, -2);
  else if (w.endsWith('ss')) {
    /* keep */
  } else if (w.endsWith('s')) w = w.slice(0, -1);
  // step 1b
  let step1bExtra = false;
  if (w.endsWith('eed')) {
    if (measure(w, w.length - 4) > 0) w = w.slice(0, -1);
  } else if (w.endsWith('ed') && vowelInStem(w, w.length - 3)) {
    w = w.slice(0, -2);
    step1bExtra = true;
  } else if (w.endsWith('ing') && vowelInStem(w, w.length - 4)) {
    w = w.slice(0, -3);
    step1bExtra = true;
  }
  if (step1bExtra) {
    if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) w += 'e';
    else if (doubleC(w, w.length - 1)) {
      const ch = w[w.length - 1];
      if (ch !== 'l' && ch !== 's' && ch !== 'z') w = w.slice(0, -1);
    } else if (measure(w, w.length - 1) === 1 && cvc(w, w.length - 1)) w += 'e';
  }
  // step 1c
  if (w.endsWith('y') && vowelInStem(w, w.length - 2)) w = w.slice(0, -1) + 'i';
  // step 2
  w = replaceSuffix(w, STEP2, 0);
  // step 3
  w = replaceSuffix(w, STEP3, 0);
  // step 4
  for (const s of STEP4) {
    if (w.endsWith(s)) {
      const j = w.length - s.length - 1;
      if (measure(w, j) > 1) {
        if (s === 'ion') {
          const c = w[j];
          if (c === 's' || c === 't') w = w.slice(0, j + 1);
        } else w = w.slice(0, j + 1);
      }
      break;
    }
  }
  // step 5
  if (w.endsWith('e')) {
    const a = measure(w, w.length - 2);
    if (a > 1 || (a === 1 && !cvc(w, w.length - 2))) w = w.slice(0, -1);
  }
  if (w.endsWith('ll') && measure(w, w.length - 1) > 1) w = w.slice(0, -1);
  return w;
}

const STEP2: Array<[string, string]> = [
  ['ational', 'ate'], ['tional', 'tion'], ['enci', 'ence'], ['anci', 'ance'], ['izer', 'ize'], ['bli', 'ble'],
  ['alli', 'al'], ['entli', 'ent'], ['eli', 'e'], ['ousli', 'ous'], ['ization', 'ize'], ['ation', 'ate'],
  ['ator', 'ate'], ['alism', 'al'], ['iveness', 'ive'], ['fulness', 'ful'], ['ousness', 'ous'], ['aliti', 'al'],
  ['iviti', 'ive'], ['biliti', 'ble'], ['logi', 'log'],
];
const STEP3: Array<[string, string]> = [
  ['icate', 'ic'], ['ative', ''], ['alize', 'al'], ['iciti', 'ic'], ['ical', 'ic'], ['ful', ''], ['ness', ''],
];
const STEP4 = [
  'al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ion', 'ou', 'ism', 'ate', 'iti',
  'ous', 'ive', 'ize',
].sort((a, b) => b.length - a.length);

function replaceSuffix(w: string, rules: Array<[string, string]>, minM: number): string {
  let best: [string, string] | undefined;
  for (const r of rules) if (w.endsWith(r[0]) && (!best || r[0].length > best[0].length)) best = r;
  if (best && measure(w, w.length - best[0].length - 1) > minM) return w.slice(0, w.length - best[0].length) + best[1];
  return w;
}
