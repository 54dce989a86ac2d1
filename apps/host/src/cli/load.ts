/**
 * `strata load <file> --index <name>`: bulk-loads NDJSON (one document per line, or `_bulk` action and
 * source pairs), a JSON array or CSV into an index, with a progress bar (bytes done, docs/s, ETA),
 * a resume point kept after every acknowledged batch, and every failed item written to a failures file.
 */
import { createReadStream, existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, appendFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { SingleBar } from 'cli-progress';
import { CliError, NodeClient, errorText, unreachable, type ConnectionOptions } from './connection.js';

export interface LoadOptions {
  file: string;
  index: string;
  pipeline?: string;
  /** documents per `_bulk` request (default 5000) */
  batch: number;
  /** `_bulk` requests in flight (default 2) */
  concurrency: number;
  /** continue from the resume point a stopped load left */
  resume: boolean;
  /** discard a resume point and load from the start */
  restart: boolean;
  /** use this field of each document as its `_id` (a re-sent batch then overwrites instead of duplicating) */
  idField?: string;
  /** where the resume point is kept (default `<file>.<index>.strata-load.json`) */
  stateFile?: string;
  /** where failed items go (default `<file>.<index>.failures.ndjson`) */
  failuresFile?: string;
  /** show the progress bar (on a terminal a live bar, otherwise a line every 2 s) */
  progress: boolean;
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
}

export interface LoadResult {
  indexed: number;
  failed: number;
  skipped: number;
  count?: number;
  seconds: number;
  docsPerSecond: number;
}

interface Item {
  /** 1-based line (NDJSON, CSV) or array position (JSON) of the document */
  line: number;
  action: string;
  source?: string;
  /** bytes of input this item ends at (for progress and the resume point) */
  endByte: number;
}

interface ResumeState {
  file: string;
  size: number;
  mtimeMs: number;
  index: string;
  items_done: number;
  bytes_done: number;
  indexed: number;
  failed: number;
}

const BULK_ACTIONS = new Set(['index', 'create', 'update', 'delete']);

function isActionLine(o: unknown): boolean {
  if (!o || typeof o !== 'object' || Array.isArray(o)) return false;
  const keys = Object.keys(o);
  return keys.length === 1 && BULK_ACTIONS.has(keys[0]!) && typeof (o as Record<string, unknown>)[keys[0]!] === 'object';
}

/** Splits a stream into lines with the byte offset each ends at. */
async function* lines(file: string, startByte = 0): AsyncGenerator<{ text: string; end: number; n: number }> {
  let rest = '';
  let offset = startByte;
  let n = 0;
  for await (const chunk of createReadStream(file, { start: startByte, highWaterMark: 1 << 20, encoding: 'utf8' }) as AsyncIterable<string>) {
    const text = rest + chunk;
    let from = 0;
    let nl: number;
    while ((nl = text.indexOf('\n', from)) >= 0) {
      const line = text.slice(from, nl);
      offset += Buffer.byteLength(line) + 1;
      n++;
      from = nl + 1;
      yield { text: line.endsWith('\r') ? line.slice(0, -1) : line, end: offset, n };
    }
    rest = text.slice(from);
  }
  if (rest.length > 0) {
    offset += Buffer.byteLength(rest);
    n++;
    yield { text: rest, end: offset, n };
  }
}

function docAction(source: string, idField: string | undefined, line: number): string {
  if (!idField) return '{"index":{}}';
  let doc: unknown;
  try {
    doc = JSON.parse(source);
  } catch {
    return '{"index":{}}';
  }
  const id = idField.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), doc);
  if (id === undefined || id === null) throw new CliError(`document at line ${line} has no [${idField}] for --id-field`, 65);
  return JSON.stringify({ index: { _id: String(id) } });
}

/** NDJSON: plain documents, or `_bulk` pairs when the first line is an action */
async function* ndjsonItems(file: string, idField: string | undefined): AsyncGenerator<Item> {
  let bulk: boolean | undefined;
  let pending: { action: string; line: number } | undefined;
  for await (const l of lines(file)) {
    if (l.text.trim().length === 0) continue;
    if (bulk === undefined) {
      let first: unknown;
      try {
        first = JSON.parse(l.text);
      } catch {
        first = undefined;
      }
      bulk = isActionLine(first);
    }
    if (!bulk) {
      yield { line: l.n, action: docAction(l.text, idField, l.n), source: l.text, endByte: l.end };
      continue;
    }
    if (pending) {
      yield { line: pending.line, action: pending.action, source: l.text, endByte: l.end };
      pending = undefined;
      continue;
    }
    let action: unknown;
    try {
      action = JSON.parse(l.text);
    } catch {
      throw new CliError(`line ${l.n}: not a _bulk action line`, 65);
    }
    if (!isActionLine(action)) throw new CliError(`line ${l.n}: expected a _bulk action line ({"index":{...}}, create, update or delete)`, 65);
    if ('delete' in (action as object)) yield { line: l.n, action: l.text, endByte: l.end };
    else pending = { action: l.text, line: l.n };
  }
  if (pending) throw new CliError(`line ${pending.line}: a _bulk action without its document`, 65);
}

async function* jsonItems(file: string, idField: string | undefined): AsyncGenerator<Item> {
  const text = readFileSync(file, 'utf8');
  if (!text.trimStart().startsWith('[')) {
    yield* ndjsonItems(file, idField);
    return;
  }
  let docs: unknown;
  try {
    docs = JSON.parse(text);
  } catch (e) {
    throw new CliError(`${file} is not valid JSON: ${e instanceof Error ? e.message : String(e)}`, 65);
  }
  const arr = docs as unknown[];
  const total = Buffer.byteLength(text);
  for (let k = 0; k < arr.length; k++) {
    const source = JSON.stringify(arr[k]);
    yield { line: k + 1, action: docAction(source, idField, k + 1), source, endByte: Math.round(((k + 1) / arr.length) * total) };
  }
}

/** RFC 4180 fields of one record (quotes, doubled quotes); a record never spans lines here */
export function csvFields(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let v = '';
      i++;
      while (i < line.length) {
        if (line[i] === '"' && line[i + 1] === '"') {
          v += '"';
          i += 2;
        } else if (line[i] === '"') {
          i++;
          break;
        } else v += line[i++];
      }
      out.push(v);
      if (line[i] === ',') i++;
      else break;
    } else {
      const next = line.indexOf(',', i);
      if (next < 0) {
        out.push(line.slice(i));
        break;
      }
      out.push(line.slice(i, next));
      i = next + 1;
      if (i === line.length) {
        out.push('');
        break;
      }
    }
  }
  return out;
}

/** CSV with a header row: numbers and booleans typed, empty cells left out, dotted headers nested */
export function csvDocument(header: string[], fields: string[]): Record<string, unknown> {
  const doc: Record<string, unknown> = {};
  header.forEach((h, k) => {
    const raw = fields[k];
    if (raw === undefined || raw === '') return;
    let v: unknown = raw;
    if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?$/.test(raw) && Number.isFinite(Number(raw))) v = Number(raw);
    else if (raw === 'true' || raw === 'false') v = raw === 'true';
    const path = h.split('.');
    let o = doc;
    for (const p of path.slice(0, -1)) o = (o[p] ??= {}) as Record<string, unknown>;
    o[path[path.length - 1]!] = v;
  });
  return doc;
}

async function* csvItems(file: string, idField: string | undefined): AsyncGenerator<Item> {
  let header: string[] | undefined;
  for await (const l of lines(file)) {
    if (l.text.trim().length === 0) continue;
    const fields = csvFields(l.text);
    if (!header) {
      header = fields.map((f) => f.trim().replace(/^\uFEFF/, ''));
      continue;
    }
    const source = JSON.stringify(csvDocument(header, fields));
    yield { line: l.n, action: docAction(source, idField, l.n), source, endByte: l.end };
  }
}

function itemsOf(file: string, idField: string | undefined): AsyncGenerator<Item> {
  const ext = extname(file).toLowerCase();
  if (ext === '.csv') return csvItems(file, idField);
  if (ext === '.json') return jsonItems(file, idField);
  return ndjsonItems(file, idField);
}

function fmtRate(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export async function load(conn: ConnectionOptions, o: LoadOptions): Promise<LoadResult> {
  if (!existsSync(o.file)) throw new CliError(`no such file [${o.file}]`, 66);
  if (!o.index) throw new CliError('--index is required', 64);
  if (!(o.batch > 0) || !(o.concurrency > 0)) throw new CliError('--batch and --concurrency must be positive', 64);
  const st = statSync(o.file);
  const stateFile = o.stateFile ?? `${o.file}.${o.index}.strata-load.json`;
  const failuresFile = o.failuresFile ?? `${o.file}.${o.index}.failures.ndjson`;
  let state: ResumeState = { file: basename(o.file), size: st.size, mtimeMs: st.mtimeMs, index: o.index, items_done: 0, bytes_done: 0, indexed: 0, failed: 0 };
  if (existsSync(stateFile) && !o.restart) {
    const prev = JSON.parse(readFileSync(stateFile, 'utf8')) as ResumeState;
    if (!o.resume) {
      throw new CliError(
        `a previous load of ${o.file} into [${o.index}] stopped after ${prev.items_done} items (${stateFile}); ` + 'pass --resume to continue it or --restart to load from the start',
        64,
      );
    }
    if (prev.size !== st.size || prev.mtimeMs !== st.mtimeMs || prev.index !== o.index) {
      throw new CliError(`${o.file} changed since the load recorded in ${stateFile}; pass --restart to load it from the start`, 64);
    }
    state = prev;
  }
  if (o.restart) {
    rmSync(stateFile, { force: true });
    rmSync(failuresFile, { force: true });
  }
  const client = new NodeClient(conn, o.concurrency + 1);
  try {
    try {
      const probe = await client.json('GET', '/');
      if (probe.status === 401 || probe.status === 403) throw new CliError(`${conn.url} refused the credentials: ${errorText(probe.body)}`, 77);
    } catch (e) {
      if (e instanceof CliError) throw e;
      throw unreachable(conn, e);
    }
    const skipped = state.items_done;
    const bar = o.progress
      ? new SingleBar({
          format: 'loading [{bar}] {percentage}% | {docs} docs | {rate} docs/s | ETA {eta_formatted}',
          stream: o.err,
          noTTYOutput: true,
          notTTYSchedule: 2000,
          etaBuffer: 50,
          hideCursor: true,
          barsize: 30,
        })
      : undefined;
    bar?.start(Math.max(1, st.size), state.bytes_done, { docs: '0', rate: '0' });
    const path = `/${encodeURIComponent(o.index)}/_bulk${o.pipeline ? `?pipeline=${encodeURIComponent(o.pipeline)}` : ''}`;
    const t0 = performance.now();
    let firstSent = 0;
    let lastAnswered = 0;
    let sentDocs = 0;
    // batches complete out of order: the resume point is the end of the contiguous prefix of done batches
    let nextBatch = 0;
    let contiguous = 0;
    const done = new Map<number, { items: number; endByte: number; indexed: number; failed: number }>();
    const inflight = new Set<Promise<void>>();
    let fatal: unknown;

    const saveState = (): void => {
      const tmp = `${stateFile}.tmp`;
      writeFileSync(tmp, JSON.stringify(state));
      renameSync(tmp, stateFile);
    };

    const send = async (id: number, batch: Item[]): Promise<void> => {
      const body = batch.map((it) => (it.source === undefined ? it.action + '\n' : it.action + '\n' + it.source + '\n')).join('');
      let res: { status: number; body: string } | undefined;
      for (let attempt = 0; ; attempt++) {
        try {
          if (!firstSent) firstSent = performance.now();
          res = await client.request('POST', path, body, 'application/x-ndjson');
          if ((res.status === 429 || res.status === 502 || res.status === 503 || res.status === 504) && attempt < 5) {
            await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
            continue;
          }
          break;
        } catch (e) {
          if (attempt >= 5) throw unreachable(conn, e);
          await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
        }
      }
      lastAnswered = performance.now();
      let parsed: any;
      try {
        parsed = JSON.parse(res.body);
      } catch {
        parsed = res.body;
      }
      if (res.status !== 200) throw new CliError(`_bulk failed with ${res.status}: ${errorText(parsed)}`, 1);
      let failed = 0;
      if (parsed.errors) {
        const failures: string[] = [];
        (parsed.items as Array<Record<string, { status: number; error?: { type: string; reason: string } }>>).forEach((item, k) => {
          const r = Object.values(item)[0]!;
          if (!r.error) return;
          failed++;
          const it = batch[k]!;
          failures.push(JSON.stringify({ line: it.line, status: r.status, error: r.error, action: it.action, ...(it.source !== undefined ? { document: it.source } : {}) }));
        });
        appendFileSync(failuresFile, failures.join('\n') + '\n');
      }
      done.set(id, { items: batch.length, endByte: batch[batch.length - 1]!.endByte, indexed: batch.length - failed, failed });
      while (done.has(contiguous)) {
        const d = done.get(contiguous)!;
        done.delete(contiguous);
        state.items_done += d.items;
        state.bytes_done = d.endByte;
        state.indexed += d.indexed;
        state.failed += d.failed;
        contiguous++;
      }
      saveState();
      sentDocs += batch.length;
      const secs = (performance.now() - t0) / 1000;
      bar?.update(state.bytes_done, { docs: (state.items_done).toLocaleString('en-US'), rate: fmtRate(sentDocs / Math.max(secs, 1e-3)) });
    };

    let batch: Item[] = [];
    let seen = 0;
    const flush = async (): Promise<void> => {
      const b = batch;
      batch = [];
      const id = nextBatch++;
      const p = send(id, b).catch((e) => {
        fatal ??= e;
      });
      const tracked = p.finally(() => inflight.delete(tracked));
      inflight.add(tracked);
      while (inflight.size >= o.concurrency) await Promise.race(inflight);
    };
    for await (const it of itemsOf(o.file, o.idField)) {
      if (fatal) break;
      if (seen++ < skipped) continue;
      batch.push(it);
      if (batch.length >= o.batch) await flush();
    }
    if (batch.length > 0 && !fatal) await flush();
    await Promise.all(inflight);
    if (fatal) {
      bar?.stop();
      throw fatal;
    }
    bar?.update(st.size, { docs: state.items_done.toLocaleString('en-US') });
    bar?.stop();
    const seconds = sentDocs > 0 ? (lastAnswered - firstSent) / 1000 : 0;
    const rate = seconds > 0 ? sentDocs / seconds : 0;
    rmSync(stateFile, { force: true });
    let count: number | undefined;
    const refresh = await client.json('POST', `/${encodeURIComponent(o.index)}/_refresh`);
    if (refresh.status === 200) {
      const c = await client.json('GET', `/${encodeURIComponent(o.index)}/_count`);
      if (c.status === 200) count = c.body.count;
    }
    o.out.write(
      `loaded ${o.file} into [${o.index}]: ${state.indexed} indexed, ${state.failed} failed` +
        (skipped ? ` (${skipped} items done before resuming)` : '') +
        ` in ${seconds.toFixed(1)}s (${fmtRate(rate)} docs/s); _count: ${count ?? 'unavailable'}\n`,
    );
    if (state.failed > 0) o.out.write(`failed items (line, status, error, document): ${failuresFile}\n`);
    return { indexed: state.indexed, failed: state.failed, skipped, count, seconds, docsPerSecond: rate };
  } finally {
    client.close();
  }
}
