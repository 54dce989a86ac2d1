/**
 * Translates the Java (and Oniguruma) regex constructs people use in ingest configs to JavaScript:
 * a leading inline flag group `(?i)`/`(?s)`/`(?m)`/`(?x)`-free combos become RegExp flags, atomic groups
 * `(?>...)` become `(?:...)`, possessive quantifiers become greedy ones, `\A` → `^`, `\Z`/`\z` → `$`.
 */
export function javaRegex(pattern: string, flags = ''): RegExp {
  const t = javaRegexParts(pattern, flags);
  return new RegExp(t.source, t.flags);
}

export function javaRegexParts(pattern: string, flags = ''): { source: string; flags: string } {
  let src = pattern;
  let f = flags;
  const lead = /^\(\?([imsu]+)\)/.exec(src);
  if (lead) {
    for (const c of lead[1]) if (!f.includes(c)) f += c;
    src = src.slice(lead[0].length);
  }
  return { source: translate(src), flags: f };
}

function translate(src: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') {
      const n = src[i + 1] ?? '';
      if (!inClass && n === 'A') out += '^';
      else if (!inClass && (n === 'Z' || n === 'z')) out += '$';
      else out += c + n;
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      continue;
    }
    if (c === '(' && src[i + 1] === '?' && src[i + 2] === '>') {
      out += '(?:';
      i += 2;
      continue;
    }
    if (c === '+' && i > 0 && (src[i - 1] === '*' || src[i - 1] === '+' || src[i - 1] === '?' || src[i - 1] === '}') && src[i - 2] !== '\\') {
      // possessive quantifier → greedy
      continue;
    }
    out += c;
  }
  return out;
}
