#!/usr/bin/env node
// Deterministic generator of web-access-log documents for the Strata benchmark.
//
// Same options (seed, docs, days, start) => byte-identical output. Documents are produced one bulk body at a
// time, never all in memory. Library use:
//
//   import { createGenerator } from './generate.mjs';
//   const gen = createGenerator({ seed: 42, docs: 1_000_000, days: 7, onDoc: (rec) => {...} });
//   for (let body; (body = gen.nextBulk(5000)) !== null; ) send(body);   // NDJSON _bulk bodies
//
// CLI (writes NDJSON bulk lines to stdout, or only source lines with --sources):
//   node tools/bench/generate.mjs --docs 1000 [--seed 42] [--days 7] [--start 2026-01-01T00:00:00Z] [--sources]
import { createAliasTable, createRng, zipfWeights } from './lib/prng.mjs';

export const DEFAULTS = Object.freeze({ seed: 42, days: 7, start: '2026-01-01T00:00:00.000Z' });

// ---------------------------------------------------------------------------------------------------------
// Fixed vocabularies (independent of the document seed, so query words are stable across runs).

export const VOCABULARY_SIZE = 5000;
export const MIN_WORDS = 8;
export const MAX_WORDS = 20;

function buildVocabulary(n) {
  const rng = createRng('strata-vocabulary-v1');
  const onsets = ['b', 'c', 'd', 'f', 'g', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'w', 'z',
    'br', 'ch', 'cl', 'dr', 'fl', 'gr', 'pl', 'pr', 'sh', 'st', 'th', 'tr'];
  const vowels = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'ou', 'io'];
  const codas = ['', '', '', 'n', 'r', 's', 't', 'l', 'm', 'x', 'nd', 'st'];
  const seen = new Set();
  const words = [];
  while (words.length < n) {
    const syllables = 1 + rng.int(3) + (rng.next() < 0.3 ? 1 : 0);
    let w = '';
    for (let s = 0; s < syllables; s++) w += onsets[rng.int(onsets.length)] + vowels[rng.int(vowels.length)];
    w += codas[rng.int(codas.length)];
    if (w.length < 3 || w.length > 14 || seen.has(w)) continue;
    seen.add(w);
    words.push(w);
  }
  return Object.freeze(words);
}

/** VOCABULARY[rank - 1] is the word of Zipf rank `rank` (rank 1 = most frequent). */
export const VOCABULARY = buildVocabulary(VOCABULARY_SIZE);

export const METHODS = Object.freeze(['GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'PATCH']);
const METHOD_WEIGHTS = [80, 12, 3, 2, 1.5, 1, 0.5];

export const STATUS_CODES = Object.freeze([200, 201, 204, 301, 302, 304, 400, 401, 403, 404, 500, 502, 503]);
const STATUS_WEIGHTS = [82, 2, 1, 1.5, 1.5, 4, 1, 0.8, 0.7, 4, 0.8, 0.3, 0.4];

export const COUNTRIES = Object.freeze(['US', 'CN', 'IN', 'DE', 'GB', 'FR', 'BR', 'JP', 'RU', 'CA', 'IT', 'ES',
  'KR', 'AU', 'NL', 'MX', 'ID', 'TR', 'PL', 'SE', 'CH', 'BE', 'AR', 'ZA', 'UA', 'NO', 'AT', 'DK', 'FI', 'IE', 'PT',
  'CZ', 'RO', 'NG', 'EG', 'VN', 'TH', 'PH', 'IL', 'NZ']);

export const USER_AGENTS = Object.freeze([
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0',
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.43 Mobile Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.0.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0',
  'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
  'curl/8.4.0',
  'python-requests/2.31.0',
  'Go-http-client/1.1',
  'Apache-HttpClient/4.5.14 (Java/17.0.9)',
  'okhttp/4.12.0',
  'Wget/1.21.4',
  'PostmanRuntime/7.36.0',
  'Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Mobile Safari/537.36',
]);

const STATIC_ASSETS = Object.freeze(Array.from({ length: 40 }, (_, i) => {
  const kinds = ['js', 'css', 'png', 'svg', 'woff2'];
  const hash = ((i * 2654435761) >>> 0).toString(16).padStart(8, '0');
  return `/static/${kinds[i % kinds.length]}/asset-${i}.${hash}.${kinds[i % kinds.length]}`;
}));
const PAGES = Object.freeze(['/', '/index.html', '/login', '/logout', '/cart', '/checkout', '/about', '/contact',
  '/search', '/favicon.ico', '/robots.txt', '/health', '/api/v1/status', '/api/v1/session', '/blog', '/pricing']);

// JSON-escaped string pools (escaped once, not per document).
const J_METHODS = METHODS.map((s) => JSON.stringify(s));
const J_COUNTRIES = COUNTRIES.map((s) => JSON.stringify(s));
const J_USER_AGENTS = USER_AGENTS.map((s) => JSON.stringify(s));

// ---------------------------------------------------------------------------------------------------------

/**
 * The mutable record handed to `onDoc` for every generated document (reused: copy what you keep).
 * words holds the vocabulary indexes (rank - 1) of the message words, nwords of them.
 */
function newRecord() {
  return {
    i: 0, ts: 0, ip: '', method: 0, path: '', status: 0, bytes: 0, ua: 0, country: 0, duration: 0,
    words: new Int32Array(MAX_WORDS), nwords: 0,
  };
}

/**
 * @param {{seed?: number|string, docs: number, days?: number, start?: string, onDoc?: (rec) => void}} options
 */
export function createGenerator(options) {
  const seed = options.seed ?? DEFAULTS.seed;
  const docs = options.docs;
  const days = options.days ?? DEFAULTS.days;
  const startMs = Date.parse(options.start ?? DEFAULTS.start);
  if (!Number.isInteger(docs) || docs < 0) throw new Error(`docs must be a non-negative integer, got ${docs}`);
  if (!(days > 0)) throw new Error(`days must be > 0, got ${days}`);
  if (Number.isNaN(startMs)) throw new Error(`bad start date ${options.start}`);
  const onDoc = options.onDoc;

  const rng = createRng(seed);
  // Pools that depend on the seed.
  const ipPool = Array.from({ length: 50_000 }, () => {
    const a = 1 + rng.int(223);
    return `${a === 10 || a === 127 ? a + 1 : a}.${rng.int(256)}.${rng.int(256)}.${1 + rng.int(254)}`;
  });
  const J_IPS = ipPool.map((s) => JSON.stringify(s));

  const wordTable = createAliasTable(zipfWeights(VOCABULARY_SIZE, 1));
  const ipTable = createAliasTable(zipfWeights(ipPool.length, 0.9));
  const methodTable = createAliasTable(METHOD_WEIGHTS);
  const statusTable = createAliasTable(STATUS_WEIGHTS);
  const countryTable = createAliasTable(zipfWeights(COUNTRIES.length, 1.1));
  const uaTable = createAliasTable(zipfWeights(USER_AGENTS.length, 0.8));

  const stepMs = (days * 86_400_000) / Math.max(docs, 1);
  const rec = newRecord();
  let i = 0;

  function nextPath() {
    const r = rng.next();
    if (r < 0.35) return PAGES[Math.floor(rng.next() * PAGES.length)];
    if (r < 0.6) return STATIC_ASSETS[rng.int(STATIC_ASSETS.length)];
    if (r < 0.78) return `/products/${1 + rng.int(5000)}`;
    if (r < 0.92) return `/api/v1/users/${1 + rng.int(20000)}/orders`;
    return `/blog/${2020 + rng.int(6)}/post-${1 + rng.int(800)}`;
  }

  /** Generates the next document; returns its JSON source line (no newline). */
  function nextDoc() {
    rec.i = i;
    rec.ts = startMs + Math.floor((i + rng.next()) * stepMs); // increasing, with jitter inside the step
    const ipIdx = ipTable.sample(rng);
    rec.ip = ipPool[ipIdx];
    rec.method = methodTable.sample(rng);
    rec.path = nextPath();
    rec.status = STATUS_CODES[statusTable.sample(rng)];
    rec.bytes = rec.status === 304 || rec.status === 204 || rec.method === 4 /* HEAD */
      ? 0
      : Math.max(1, Math.round(Math.exp(8.5 + 1.2 * rng.normal())));
    rec.ua = uaTable.sample(rng);
    rec.country = countryTable.sample(rng);
    rec.duration = Math.max(50_000, Math.round(Math.exp(17.5 + 0.9 * rng.normal()))); // ns, median ~40 ms
    const n = MIN_WORDS + rng.int(MAX_WORDS - MIN_WORDS + 1);
    rec.nwords = n;
    let msg = '';
    for (let k = 0; k < n; k++) {
      const w = wordTable.sample(rng);
      rec.words[k] = w;
      msg += k === 0 ? VOCABULARY[w] : ' ' + VOCABULARY[w];
    }
    i++;
    if (onDoc) onDoc(rec);
    // Hand-built JSON: every interpolated string is either pre-escaped or made of [a-z0-9./-] only.
    return `{"@timestamp":"${new Date(rec.ts).toISOString()}","client":{"ip":${J_IPS[ipIdx]}},` +
      `"http":{"request":{"method":${J_METHODS[rec.method]}},"response":{"status_code":${rec.status},` +
      `"body":{"bytes":${rec.bytes}}}},"url":{"path":"${rec.path}"},` +
      `"user_agent":{"original":${J_USER_AGENTS[rec.ua]}},"source":{"geo":{"country_iso_code":${J_COUNTRIES[rec.country]}}},` +
      `"event":{"duration":${rec.duration}},"message":"${msg}"}`;
  }

  return {
    docs,
    days,
    startMs,
    endMs: startMs + days * 86_400_000,
    get generated() { return i; },
    get done() { return i >= docs; },
    nextDoc,
    /**
     * Returns the next NDJSON _bulk body (action line `{"index":{}}` + source line per document, trailing
     * newline) with up to maxDocs documents, or null when all documents were generated.
     */
    nextBulk(maxDocs, actionLine = '{"index":{}}') {
      if (i >= docs) return null;
      const end = Math.min(docs, i + maxDocs);
      const parts = [];
      while (i < end) {
        parts.push(actionLine, '\n', nextDoc(), '\n');
      }
      return parts.join('');
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// CLI

function parseCli(argv) {
  const o = { docs: 1000, seed: DEFAULTS.seed, days: DEFAULTS.days, start: DEFAULTS.start, sources: false, bulk: 1000 };
  for (let k = 0; k < argv.length; k++) {
    const a = argv[k];
    const val = () => {
      if (k + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++k];
    };
    if (a === '--docs') o.docs = Number(val());
    else if (a === '--seed') { const v = val(); o.seed = /^\d+$/.test(v) ? Number(v) : v; }
    else if (a === '--days') o.days = Number(val());
    else if (a === '--start') o.start = val();
    else if (a === '--bulk') o.bulk = Number(val());
    else if (a === '--sources') o.sources = true;
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

async function main() {
  const o = parseCli(process.argv.slice(2));
  const gen = createGenerator(o);
  const out = process.stdout;
  const write = (s) => (out.write(s) ? Promise.resolve() : new Promise((r) => out.once('drain', r)));
  if (o.sources) {
    let batch = [];
    while (!gen.done) {
      batch.push(gen.nextDoc());
      if (batch.length === o.bulk || gen.done) {
        await write(batch.join('\n') + '\n');
        batch = [];
      }
    }
  } else {
    for (let body; (body = gen.nextBulk(o.bulk)) !== null; ) await write(body);
  }
}

const invokedDirectly = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (invokedDirectly) {
  main().catch((e) => {
    console.error(e.message);
    process.exit(2);
  });
}
