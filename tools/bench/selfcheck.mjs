#!/usr/bin/env node
// Self-check of the data generator (jest does not pick up .mjs files in tools/): determinism, shapes,
// distributions and throughput. Exits non-zero on the first failed check.
//   node tools/bench/selfcheck.mjs
import { createHash } from 'node:crypto';
import {
  COUNTRIES, createGenerator, MAX_WORDS, METHODS, MIN_WORDS, STATUS_CODES, USER_AGENTS, VOCABULARY, VOCABULARY_SIZE,
} from './generate.mjs';
import { createAliasTable, createRng } from './lib/prng.mjs';

let failures = 0;
let checks = 0;
function check(cond, what) {
  checks++;
  if (!cond) {
    failures++;
    console.error(`FAIL: ${what}`);
  }
}

function digest(opts, bulk = 777) {
  const h = createHash('sha256');
  const gen = createGenerator(opts);
  let bodies = 0;
  for (let b; (b = gen.nextBulk(bulk)) !== null; bodies++) h.update(b);
  return { hash: h.digest('hex'), bodies, generated: gen.generated };
}

// 1. PRNG determinism and range.
{
  const a = createRng(7), b = createRng(7), c = createRng(8);
  const sa = Array.from({ length: 5 }, () => a.u32());
  const sb = Array.from({ length: 5 }, () => b.u32());
  const sc = Array.from({ length: 5 }, () => c.u32());
  check(JSON.stringify(sa) === JSON.stringify(sb), 'same seed gives the same PRNG stream');
  check(JSON.stringify(sa) !== JSON.stringify(sc), 'different seeds give different PRNG streams');
  const r = createRng('x');
  let min = 1, max = 0;
  for (let k = 0; k < 100000; k++) { const v = r.next(); if (v < min) min = v; if (v > max) max = v; }
  check(min >= 0 && max < 1 && min < 0.001 && max > 0.999, `next() in [0,1): min=${min} max=${max}`);
  // Alias table reproduces its weights.
  const t = createAliasTable([1, 2, 7]);
  const counts = [0, 0, 0];
  for (let k = 0; k < 100000; k++) counts[t.sample(r)]++;
  check(Math.abs(counts[0] / 1e5 - 0.1) < 0.01 && Math.abs(counts[2] / 1e5 - 0.7) < 0.01, `alias table 1:2:7 -> ${counts}`);
}

// 2. Vocabulary.
check(VOCABULARY.length === VOCABULARY_SIZE, `vocabulary has ${VOCABULARY_SIZE} words`);
check(new Set(VOCABULARY).size === VOCABULARY_SIZE, 'vocabulary words are unique');
check(VOCABULARY.every((w) => /^[a-z]{3,14}$/.test(w)), 'vocabulary words are 3-14 lowercase letters');

// 3. Determinism of the byte stream: same seed => same bytes, also with a different bulk size.
{
  const o = { seed: 42, docs: 20000, days: 3 };
  const d1 = digest(o, 777), d2 = digest(o, 777), d3 = digest(o, 5000), d4 = digest({ ...o, seed: 43 }, 777);
  check(d1.hash === d2.hash, 'same seed => identical bytes');
  check(d1.hash === d3.hash, 'bulk size does not change the byte stream');
  check(d1.hash !== d4.hash, 'different seed => different bytes');
  check(d1.bodies === Math.ceil(20000 / 777) && d1.generated === 20000, `bodies=${d1.bodies} generated=${d1.generated}`);
  // Known digest of the reference stream: catches accidental format or distribution changes. If you change
  // the generator on purpose, update this value (and say so: results before/after are not comparable).
  const REFERENCE = '66904f5247e947fb8161831a7137ab4eb7e3511eedf9cdba31e9d899f3d67d30';
  check(d1.hash === REFERENCE, `reference digest (seed 42, 20000 docs, 3 days) is ${d1.hash}, expected ${REFERENCE}`);
}

// 4. Shapes and distributions over 100k docs.
{
  const docs = 100000, days = 7;
  const start = Date.parse('2026-01-01T00:00:00.000Z');
  const statusSeen = new Map(), countrySeen = new Map(), methodSeen = new Map(), wordDf = new Int32Array(VOCABULARY_SIZE);
  let prevTs = -Infinity, monotonic = true, wordsOk = true, recs = 0;
  const gen = createGenerator({ seed: 1, docs, days, onDoc: (rec) => {
    recs++;
    if (rec.ts <= prevTs) monotonic = false;
    prevTs = rec.ts;
    statusSeen.set(rec.status, (statusSeen.get(rec.status) ?? 0) + 1);
    countrySeen.set(rec.country, (countrySeen.get(rec.country) ?? 0) + 1);
    methodSeen.set(rec.method, (methodSeen.get(rec.method) ?? 0) + 1);
    if (rec.nwords < MIN_WORDS || rec.nwords > MAX_WORDS) wordsOk = false;
    for (let k = 0; k < rec.nwords; k++) wordDf[rec.words[k]]++;
  } });
  let lines = 0, parsedOk = true, firstTs = 0, lastTs = 0, shapeOk = true, msgMatchesRec = true;
  for (let body; (body = gen.nextBulk(5000)) !== null; ) {
    check(body.endsWith('\n'), 'bulk body ends with a newline');
    const ls = body.split('\n');
    ls.pop();
    for (let k = 0; k < ls.length; k += 2) {
      if (ls[k] !== '{"index":{}}') parsedOk = false;
      let d;
      try { d = JSON.parse(ls[k + 1]); } catch { parsedOk = false; continue; }
      lines++;
      const ts = Date.parse(d['@timestamp']);
      if (lines === 1) firstTs = ts;
      lastTs = ts;
      if (!/^\d+\.\d+\.\d+\.\d+$/.test(d.client.ip) || d.client.ip.split('.').some((p) => Number(p) > 255)) shapeOk = false;
      if (!METHODS.includes(d.http.request.method)) shapeOk = false;
      if (!STATUS_CODES.includes(d.http.response.status_code)) shapeOk = false;
      if (!Number.isInteger(d.http.response.body.bytes) || d.http.response.body.bytes < 0) shapeOk = false;
      if (!USER_AGENTS.includes(d.user_agent.original)) shapeOk = false;
      if (!COUNTRIES.includes(d.source.geo.country_iso_code)) shapeOk = false;
      if (!Number.isInteger(d.event.duration) || d.event.duration <= 0) shapeOk = false;
      if (typeof d.url.path !== 'string' || !d.url.path.startsWith('/')) shapeOk = false;
      const n = d.message.split(' ').length;
      if (n < MIN_WORDS || n > MAX_WORDS) msgMatchesRec = false;
    }
  }
  check(recs === docs && lines === docs, `generated ${lines} docs, onDoc called ${recs} times`);
  check(parsedOk, 'every source line parses as JSON and action lines are {"index":{}}');
  check(shapeOk, 'every field has the expected type and value range');
  check(msgMatchesRec && wordsOk, `messages have ${MIN_WORDS}-${MAX_WORDS} words`);
  check(monotonic, '@timestamp strictly increases');
  check(firstTs >= start && firstTs < start + 86_400_000 / 24, `first timestamp near start: ${new Date(firstTs).toISOString()}`);
  check(lastTs < start + days * 86_400_000 && lastTs > start + days * 86_400_000 - 3_600_000,
    `last timestamp near end: ${new Date(lastTs).toISOString()}`);
  const s200 = statusSeen.get(200) / docs, s404 = statusSeen.get(404) / docs;
  check(s200 > 0.78 && s200 < 0.86 && s404 > 0.03 && s404 < 0.05, `status mix 200=${s200} 404=${s404}`);
  check(countrySeen.size === COUNTRIES.length, `all ${COUNTRIES.length} countries occur (${countrySeen.size})`);
  check((methodSeen.get(0) ?? 0) / docs > 0.75, 'GET dominates');
  // Zipf: frequency of rank r ~ 1/r; rank 1 vs rank 10 ~ 10x.
  const ratio = wordDf[0] / wordDf[9];
  check(ratio > 8 && ratio < 12, `zipf rank1/rank10 frequency ratio ${ratio.toFixed(2)} ~ 10`);
  check(wordDf[VOCABULARY_SIZE - 1] > 0, 'the rarest word still occurs in 100k docs');
}

// 5. Throughput.
{
  const t0 = process.hrtime.bigint();
  const gen = createGenerator({ seed: 9, docs: 200000 });
  let bytes = 0;
  for (let b; (b = gen.nextBulk(5000)) !== null; ) bytes += b.length;
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  console.log(`generator throughput: ${Math.round(200000 / s)} docs/s, ${(bytes / s / 1e6).toFixed(1)} MB/s, avg ${Math.round(bytes / 200000)} bytes/doc (bulk format)`);
}

console.log(`${checks - failures}/${checks} checks passed`);
process.exit(failures ? 1 : 0);
