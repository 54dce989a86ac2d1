// The sustained bulk load of "search_during_indexing", in a worker thread of its own: generating a 5,000-doc
// bulk body and reading its response take milliseconds of JavaScript, which on the thread that times the
// searches would be counted in their latency (a search answered while the loader generates waits for it).
// Log shippers are separate processes too. workerData: { baseUrl, index, clients, bulkDocs, seed }.
// Posts { loaded } after each bulk, { failure } on the first bad response; stops on the message 'stop'.
import { parentPort, workerData } from 'node:worker_threads';
import { createGenerator } from '../generate.mjs';
import { createClient } from '../lib/http.mjs';

const { baseUrl, index, clients, bulkDocs, seed } = workerData;
const client = createClient(baseUrl, { maxSockets: clients + 1 });
const gen = createGenerator({ seed, docs: 50_000_000 });
let stop = false;
let loaded = 0;
parentPort.on('message', (m) => {
  if (m === 'stop') stop = true;
});

async function loader() {
  while (!stop) {
    const body = gen.nextBulk(bulkDocs);
    const res = await client.request('POST', `/${index}/_bulk`, Buffer.from(body), { contentType: 'application/x-ndjson' });
    if (res.status === 429) continue;
    if (res.status !== 200 || res.json?.errors !== false) {
      parentPort.postMessage({ failure: `_bulk -> HTTP ${res.status} ${res.text.slice(0, 300)}` });
      stop = true;
      return;
    }
    loaded += res.json.items.length;
    parentPort.postMessage({ loaded });
  }
}

await Promise.all(Array.from({ length: clients }, loader));
client.close();
parentPort.postMessage({ done: true, loaded });
