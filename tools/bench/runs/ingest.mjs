// "ingest_pipeline": the cost of a 5-processor ingest pipeline (set with a template, grok on a log line,
// convert, date, rename) against plain indexing of the same documents. Loads the same generated documents
// (up to 100,000) into two fresh indices, alternately with and without ?pipeline=, twice each, and reports
// the pipeline's extra time as a share of plain indexing time (target: below 50%). The plain run indexes
// the documents already in the pipeline's output shape (transformed here, before timing), so both runs index
// the same fields and the difference is the pipeline's own cost. Checks counts and one processed document.
import { createGenerator } from '../generate.mjs';
import { loadBulk } from '../lib/bulk-load.mjs';
import { assert } from './checks.mjs';

const PIPELINE = {
  description: 'bench: 5 common processors',
  processors: [
    { set: { field: 'log.line', value: '{{client.ip}} {{http.request.method}} {{url.path}} {{http.response.status_code}}' } },
    { grok: { field: 'log.line', patterns: ['%{IP:source.address} %{WORD:http.verb} %{URIPATHPARAM:url.original} %{NUMBER:status}'] } },
    { convert: { field: 'status', type: 'integer' } },
    { date: { field: '@timestamp', formats: ['ISO8601'], target_field: 'event.created' } },
    { rename: { field: 'user_agent.original', target_field: 'user_agent.raw' } },
  ],
};

/** what the pipeline does, done in the benchmark process (for the plain run's documents) */
function transform(line) {
  const d = JSON.parse(line);
  const logLine = `${d.client.ip} ${d.http.request.method} ${d.url.path} ${d.http.response.status_code}`;
  d.log = { line: logLine };
  d.source = { ...(d.source ?? {}), address: d.client.ip };
  d.http.verb = d.http.request.method;
  d.url.original = d.url.path;
  d.status = d.http.response.status_code;
  d.event = { ...(d.event ?? {}), created: new Date(d['@timestamp']).toISOString() };
  d.user_agent = { raw: d.user_agent.original };
  return JSON.stringify(d);
}

function transformBulk(body) {
  const lines = body.split('\n');
  for (let i = 1; i < lines.length; i += 2) if (lines[i]) lines[i] = transform(lines[i]);
  return lines.join('\n');
}

async function load(ctx, index, docs, pipeline) {
  const gen = createGenerator({ seed: 7, docs });
  const bodies = [];
  for (let b; (b = gen.nextBulk(5000)) !== null; ) bodies.push(Buffer.from(pipeline ? b : transformBulk(b)));
  const body = { settings: { number_of_shards: 1, number_of_replicas: 0, refresh_interval: '-1' } };
  const { ms } = await loadBulk(ctx, { index, body, bodies, path: `/${index}/_bulk${pipeline ? '?pipeline=bench-5' : ''}`, expectCount: docs });
  return ms;
}

async function run(ctx) {
  const docs = Math.min(ctx.gen.docs, 100_000);
  const row = {
    group: 'ingest', name: 'ingest_pipeline', status: 'ok', notes: [],
    description: `${docs} docs loaded plain and with a 5-processor pipeline (set, grok, convert, date, rename), twice each`,
  };
  try {
    const put = await ctx.client.request('PUT', '/_ingest/pipeline/bench-5', PIPELINE);
    assert(put.status === 200, `PUT pipeline -> HTTP ${put.status} ${put.text.slice(0, 200)}`);
    const plain = [];
    const piped = [];
    for (let round = 0; round < 2; round++) {
      plain.push(await load(ctx, 'bench-plain', docs, false));
      piped.push(await load(ctx, 'bench-pipeline', docs, true));
    }
    const sample = await ctx.client.request('POST', '/bench-pipeline/_search', { size: 1 });
    const src = sample.json?.hits?.hits?.[0]?._source;
    assert(src && typeof src.status === 'number' && src.event?.created && src.user_agent?.raw && src.source?.address, `pipeline output missing fields: ${JSON.stringify(src).slice(0, 300)}`);
    const p = Math.min(...plain);
    const q = Math.min(...piped);
    const overhead = (q - p) / p;
    row.p50 = q;
    row.result = `+${(overhead * 100).toFixed(0)}% vs plain`;
    row.notes.push(`best of 2: plain ${(docs / (p / 1000)).toFixed(0)} docs/s, with pipeline ${(docs / (q / 1000)).toFixed(0)} docs/s`);
    row.overhead = overhead;
    if (overhead >= 0.5) row.notes.push('ABOVE the 50% target');
    for (const i of ['bench-plain', 'bench-pipeline']) await ctx.client.request('DELETE', `/${i}`);
  } catch (e) {
    row.status = 'failed';
    row.error = e.message;
  }
  return [row];
}

export default { name: 'ingest', runs: [{ name: 'ingest_pipeline', description: 'pipeline cost vs plain indexing', custom: run }] };
