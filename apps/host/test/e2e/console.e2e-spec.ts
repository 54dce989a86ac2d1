/// <reference lib="dom" />
/**
 * The web console in a real headless Chromium (Debian's `chromium`, driven by playwright-core):
 * a search from the editor (with autocomplete), an EQL sequence timeline, stepping through a failing
 * pipeline, closing a PIT from the live view, the indices overview, and logging in with security on.
 * Screenshots of every page go to artifacts/console/ (git-ignored) for a reviewer to open.
 *
 * Without /usr/bin/chromium (or STRATA_CHROMIUM) the suite is skipped with a message, except under
 * CI=true, where `.ci/run` installs chromium and a missing browser fails the run.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { ELASTIC_AUTH, ELASTIC_PASSWORD, http, repoRoot, startE2eHost, type E2eHost } from './helpers.js';

const CHROMIUM = process.env['STRATA_CHROMIUM'] ?? '/usr/bin/chromium';
const ARTIFACTS = join(repoRoot, 'artifacts', 'console');
const available = existsSync(CHROMIUM);
if (!available && process.env['CI']) throw new Error(`console e2e: no Chromium at ${CHROMIUM} (apt-get install chromium)`);
if (!available) process.stderr.write(`console e2e: skipped, no Chromium at ${CHROMIUM} (apt-get install chromium)\n`);
const suite = available ? describe : describe.skip;

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

async function launch(): Promise<{ context: BrowserContext; page: Page; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'strata-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1360, height: 860 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  return {
    context,
    page,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
      if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
    },
  };
}

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

const json = (body: unknown) => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

suite('console in headless Chromium (security off)', () => {
  let host: E2eHost;
  let browser: Awaited<ReturnType<typeof launch>>;
  let page: Page;

  beforeAll(async () => {
    host = await startE2eHost();
    const lines: string[] = [];
    for (let i = 0; i < 30; i++) {
      lines.push(JSON.stringify({ index: { _index: 'logs', _id: `d${i}` } }));
      lines.push(JSON.stringify({ msg: i % 2 ? 'error in payment' : 'all good', status: i % 2 ? 500 : 200, n: i }));
    }
    const bulk = await http(`${host.url}/_bulk?refresh=true`, { method: 'POST', headers: { 'Content-Type': 'application/x-ndjson' }, body: lines.join('\n') + '\n' });
    expect(bulk.json.errors).toBe(false);
    browser = await launch();
    page = browser.page;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await host?.close();
  });

  it('serves the page with its own files only (no CDN) and lists the routes for autocomplete', async () => {
    const res = await http(`${host.url}/_console`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=UTF-8');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    const external = [...res.text.matchAll(/(?:src|href)="([^"#]+)"/g)].map((m) => m[1]);
    expect(external).toEqual(['/_console/console.css', '/_console/console.js']);
    const spec = await http(`${host.url}/_console/api/spec`);
    expect(spec.json.routes).toContainEqual(expect.objectContaining({ method: 'POST', path: '/{index}/_search', action: 'indices:data/read/search' }));
    expect(spec.json.query_clauses).toEqual(expect.arrayContaining(['bool', 'match', 'term']));
    expect(spec.json.processors).toEqual(expect.arrayContaining(['set', 'rename']));
    expect((await http(`${host.url}/_console/nope.js`)).status).toBe(404);
  });

  it('runs a search from the editor, completing the endpoint and a body key', async () => {
    await page.goto(`${host.url}/_console#console`);
    await page.waitForSelector('#editor');
    await page.evaluate(() => localStorage.clear());
    await page.reload();
    const editor = page.locator('#editor');
    await editor.fill('');
    await editor.pressSequentially('POST /logs/_se');
    await page.waitForSelector('#suggest:not([hidden]) li');
    expect(await page.locator('#suggest li').first().textContent()).toContain('/logs/_search');
    await editor.press('Enter');
    await editor.press('End');
    await editor.press('Enter');
    await editor.pressSequentially('{\n  "');
    await editor.press('Control+Space');
    await page.waitForSelector('#suggest:not([hidden]) li');
    const keys = await page.locator('#suggest li').allTextContents();
    expect(keys).toEqual(expect.arrayContaining(['query', 'aggs', 'size', 'sort', 'track_total_hits']));
    await page.locator('#suggest li', { hasText: /^query$/ }).click();
    await editor.pressSequentially('{ "match": { "msg": "error" } },\n  "size": 2\n}');
    expect(await editor.inputValue()).toBe('POST /logs/_search\n{\n  "query": { "match": { "msg": "error" } },\n  "size": 2\n}');
    await editor.press('Control+Enter');
    await page.waitForFunction(() => document.querySelector('#response')!.textContent!.includes('"hits"'));
    const body = JSON.parse((await page.locator('#response').textContent())!);
    expect(body.hits.total).toEqual({ value: 15, relation: 'eq' });
    expect(body.hits.hits).toHaveLength(2);
    expect(await page.locator('#resp-status .code').textContent()).toBe('200');
    expect(await page.locator('#resp-status').textContent()).toMatch(/200 OK — \d+ ms — POST \/logs\/_search/);
    // the request went into the history, kept in the browser
    expect(await page.locator('#history li').first().textContent()).toContain('POST /logs/_search');
    const saved = await page.evaluate(() => JSON.parse(localStorage.getItem('strata.console.history')!));
    expect(saved[0]).toMatchObject({ method: 'POST', path: '/logs/_search', status: 200 });
    await shot(page, '1-console-search');
  });

  it('runs the request under the cursor among several, and NDJSON for _bulk', async () => {
    const editor = page.locator('#editor');
    await editor.fill('GET /_cat/indices?format=json\n\nPOST /_bulk?refresh=true\n{"index":{"_index":"more","_id":"1"}}\n{"a":1}\n\nGET /more/_count\n');
    await editor.evaluate((ta: HTMLTextAreaElement) => ta.setSelectionRange(40, 40));
    await page.click('#run');
    await page.waitForFunction(() => document.querySelector('#response')!.textContent!.includes('"items"'));
    expect(JSON.parse((await page.locator('#response').textContent())!).errors).toBe(false);
    const end = (await editor.inputValue()).length;
    await editor.evaluate((ta: HTMLTextAreaElement, e: number) => ta.setSelectionRange(e, e), end);
    await page.click('#run');
    await page.waitForFunction(() => document.querySelector('#response')!.textContent!.includes('"count"'));
    expect(JSON.parse((await page.locator('#response').textContent())!).count).toBe(1);
  });

  it('steps through a failing pipeline: statuses, before/after diff, the error', async () => {
    await page.goto(`${host.url}/_console#pipelines`);
    await page.locator('#pl-def').fill(
      JSON.stringify({
        processors: [
          { set: { field: 'env', value: 'prod', tag: 'set-env' } },
          { lowercase: { field: 'user' } },
          { rename: { field: 'missing_field', target_field: 'x', tag: 'broken' } },
          { set: { field: 'never', value: true } },
        ],
      }),
    );
    await page.locator('#pl-docs').fill(JSON.stringify([{ _source: { user: 'ALICE' } }]));
    await page.click('#pl-form button[type=submit]');
    await page.waitForSelector('.steps button.error');
    const steps = await page.locator('.doc-block .steps button').allTextContents();
    expect(steps).toEqual(['◀ Prev', '1. set', '2. lowercase', '3. rename', 'Next ▶']);
    expect(await page.locator('#pl-status').textContent()).toMatch(/1 document\(s\), 1 failed/);
    // step 1: env added
    expect(await page.locator('.step-detail .badge').textContent()).toBe('success');
    expect(await page.locator('.diff .after .add').allTextContents()).toEqual(['env: "prod"']);
    await page.click('.steps button:text("Next ▶")');
    expect(await page.locator('.diff .after .chg').allTextContents()).toEqual(['user: "alice"']);
    await page.click('.steps button:text("Next ▶")');
    expect(await page.locator('.step-detail .badge').textContent()).toBe('error');
    expect(await page.locator('.step-detail strong').textContent()).toBe('rename');
    expect(await page.locator('.step-error').textContent()).toBe("illegal_argument_exception: field [missing_field] doesn't exist");
    await shot(page, '3-pipeline-debugger');
  });

  it('lists an open PIT in the live view and closes it with its button', async () => {
    const pit = await http(`${host.url}/logs/_pit?keep_alive=5m`, { method: 'POST', headers: { 'X-Opaque-Id': 'report-42' } });
    expect(pit.status).toBe(200);
    const scroll = await http(`${host.url}/logs/_search?scroll=1m`, json({ size: 3 }));
    expect(scroll.status).toBe(200);
    await page.goto(`${host.url}/_console#contexts`);
    await page.waitForSelector(`#ctx-table tr[data-kind=point_in_time]`);
    const row = page.locator(`#ctx-table tr[data-id="${pit.json.id}"]`);
    expect(await row.locator('td').nth(0).textContent()).toBe('point_in_time');
    expect(await row.locator('td').nth(2).textContent()).toBe('logs');
    expect(await row.locator('td').nth(6).textContent()).toBe('POST /logs/_pit?keep_alive=5m');
    expect(await page.locator('#ctx-table tr[data-kind=scroll]').count()).toBe(1);
    await shot(page, '4-search-contexts');
    await row.locator('button:text("Close")').click();
    await page.waitForSelector(`#ctx-table tr[data-id="${pit.json.id}"]`, { state: 'detached' });
    // the PIT is really gone
    const after = await http(`${host.url}/_search`, json({ pit: { id: pit.json.id } }));
    expect(after.status).toBe(404);
    expect(after.json.error.root_cause[0].type).toBe('search_context_missing_exception');
    expect((await http(`${host.url}/_strata/search_contexts?kind=point_in_time`)).json.total).toBe(0);
  });

  it('shows indices with document counts and sizes', async () => {
    await page.goto(`${host.url}/_console#indices`);
    await page.waitForSelector('#idx-table tr[data-index=logs]');
    const cells = await page.locator('#idx-table tr[data-index=logs] td').allTextContents();
    expect(cells.slice(1, 6)).toEqual(['open', 'logs', '1', '1', '30']);
    expect(cells[7]).toMatch(/^\d+(\.\d)?(b|kb|mb)$/);
    expect(await page.locator('#idx-table tfoot td').first().textContent()).toBe('2 indices');
    await shot(page, '5-indices');
  });

  it('draws real EQL sequences as lanes per join key: maxspan bands, event markers, the until cut-off, missing events', async () => {
    const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 10, 0, s)).toISOString();
    const ev = (host: string, cat: string, name: string, s: number) => ({ '@timestamp': t(s), host: { name: host }, event: { category: cat }, process: { name } });
    const docs = [
      ev('a', 'process', 'cmd.exe', 0),
      ev('a', 'network', 'cmd.exe', 20),
      ev('a', 'process', 'logoff.exe', 40),
      ev('b', 'process', 'cmd.exe', 5),
      ev('b', 'file', 'cmd.exe', 30),
      ev('b', 'network', 'cmd.exe', 50),
      ev('c', 'process', 'cmd.exe', 10),
      ev('c', 'process', 'logoff.exe', 15),
      ev('c', 'network', 'cmd.exe', 30),
      ev('d', 'process', 'cmd.exe', 0),
      ev('d', 'network', 'cmd.exe', 70),
    ];
    const lines = docs.flatMap((d) => [JSON.stringify({ index: { _index: 'events' } }), JSON.stringify(d)]);
    const bulk = await http(`${host.url}/_bulk?refresh=true`, { method: 'POST', headers: { 'Content-Type': 'application/x-ndjson' }, body: lines.join('\n') + '\n' });
    expect(bulk.json.errors).toBe(false);
    await page.goto(`${host.url}/_console#eql`);
    await page.locator('#eql-index').fill('events');
    // c: its pending match is dropped by the until event at 15s; d: the network event is 70s after, beyond maxspan
    await page.locator('#eql-query').fill('sequence by host.name with maxspan=1m [process where process.name == "cmd.exe"] [network where true] until [process where process.name == "logoff.exe"]');
    await page.click('#eql-form button[type=submit]');
    await page.waitForSelector('#eql-timeline svg');
    expect(await page.locator('#eql-status').textContent()).toContain('2 sequence(s) of 2 · maxspan 1.0m · until [process where process.name == "logoff.exe"]');
    expect(await page.locator('#eql-timeline g.lane').evaluateAll((gs) => gs.map((g) => g.getAttribute('data-key')))).toEqual(['a', 'b']);
    // per lane: the maxspan band starts at the first event and is 60 s wide; markers at 0/20 s (a) and 5/50 s (b)
    const geometry = await page.locator('#eql-timeline g.lane').evaluateAll((gs) =>
      gs.map((g) => ({
        band: [...g.querySelectorAll('rect.maxspan')].map((r) => [Number(r.getAttribute('x')), Number(r.getAttribute('width'))]),
        events: [...g.querySelectorAll('circle.event')].map((c) => Number(c.getAttribute('cx'))),
        untils: [...g.querySelectorAll('line.until')].map((l) => Number(l.getAttribute('x1'))),
        missing: g.querySelectorAll('g.event.missing').length,
      })),
    );
    const [a, b] = geometry;
    expect(a!.band).toHaveLength(1);
    expect(b!.band).toHaveLength(1);
    const pxPerSec = a!.band[0]![1]! / 60;
    expect(b!.band[0]![1]).toBeCloseTo(a!.band[0]![1]!, 3);
    expect(a!.band[0]![0]).toBeCloseTo(a!.events[0]!, 3);
    expect(a!.events.map((x) => Math.round((x - a!.events[0]!) / pxPerSec))).toEqual([0, 20]);
    expect(b!.events.map((x) => Math.round((x - a!.events[0]!) / pxPerSec))).toEqual([5, 50]);
    // the until cut-off of host a (logoff.exe at 40 s) is drawn on its lane; b has none
    expect(a!.untils.map((x) => Math.round((x - a!.events[0]!) / pxPerSec))).toEqual([40]);
    expect(b!.untils).toEqual([]);
    expect(a!.missing + b!.missing).toBe(0);
    expect(await page.locator('#eql-legend').textContent()).toBe('step 1step 2maxspan windowuntil cut-off');
    await shot(page, '2-eql-timeline');

    // missing events: b has a file event between its two events, so only a, c and d (no maxspan here) match
    await page.locator('#eql-query').fill('sequence by host.name [process where process.name == "cmd.exe"] ![file where true] [network where true]');
    await page.click('#eql-form button[type=submit]');
    await page.waitForFunction(() => /3 sequence\(s\)/.test(document.querySelector('#eql-status')!.textContent!));
    expect(await page.locator('#eql-timeline g.lane').evaluateAll((gs) => gs.map((g) => g.getAttribute('data-key')))).toEqual(['a', 'c', 'd']);
    expect(await page.locator('#eql-timeline rect.maxspan').count()).toBe(0);
    expect(await page.locator('#eql-timeline circle.event').count()).toBe(6);
    const missing = await page.locator('#eql-timeline g.lane').evaluateAll((gs) =>
      gs.map((g) => {
        const real = [...g.querySelectorAll('circle.event')].map((c) => Number(c.getAttribute('cx')));
        const m = [...g.querySelectorAll('g.event.missing circle')].map((c) => Number(c.getAttribute('cx')));
        return { real, m, title: g.querySelector('g.event.missing title')?.textContent };
      }),
    );
    for (const lane of missing) {
      // the missing step is drawn halfway between its neighbours
      expect(lane.m).toHaveLength(1);
      expect(lane.m[0]).toBeCloseTo((lane.real[0]! + lane.real[1]!) / 2, 3);
      expect(lane.title).toBe('missing event (step 2)');
    }
    expect(await page.locator('#eql-legend').textContent()).toBe('step 1step 2step 3missing event');
    await shot(page, '2b-eql-missing-events');
  });
});

// ------------------------------------------------------------------ security on

/** Security on with the auth library: the elastic user (`bootstrap.password`) and a real API key it creates. */
suite('console in headless Chromium (security on)', () => {
  let host: E2eHost;
  let browser: Awaited<ReturnType<typeof launch>>;
  let page: Page;
  let apiKey = '';

  beforeAll(async () => {
    host = await startE2eHost({ 'xpack.security.enabled': true });
    const key = await http(`${host.url}/_security/api_key`, {
      method: 'POST',
      headers: { ...ELASTIC_AUTH, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'console-e2e' }),
    });
    apiKey = `${key.json.id}:${key.json.api_key}`;
    browser = await launch();
    page = browser.page;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await host?.close();
  });

  it('serves the page without credentials but no API call', async () => {
    expect((await http(`${host.url}/_console`)).status).toBe(200);
    expect((await http(`${host.url}/_console/console.js`)).status).toBe(200);
    expect((await http(`${host.url}/_console/api/spec`)).status).toBe(401);
    expect((await http(`${host.url}/_strata/search_contexts`)).status).toBe(401);
    expect((await http(`${host.url}/_strata/search_contexts`, { headers: ELASTIC_AUTH })).status).toBe(200);
  });

  it('asks for a login, refuses a wrong password, logs in with basic credentials and runs a request', async () => {
    await page.goto(`${host.url}/_console#console`);
    await page.waitForSelector('#login:not([hidden])');
    await shot(page, '6-login');
    await page.locator('#login-user').fill('elastic');
    await page.locator('#login-pass').fill('wrong');
    await page.click('#login-form button[type=submit]');
    await page.waitForFunction(() => document.querySelector('#login-error')!.textContent !== '');
    expect(await page.locator('#login-error').textContent()).toMatch(/^Login failed: security_exception: unable to authenticate user \[elastic\]/);
    await page.locator('#login-pass').fill(ELASTIC_PASSWORD);
    await page.click('#login-form button[type=submit]');
    await page.waitForSelector('#login', { state: 'hidden' });
    expect(await page.locator('#who').textContent()).toBe('Logged in as elastic');
    await page.locator('#editor').fill('GET /_cluster/health');
    await page.locator('#editor').press('Control+Enter');
    await page.waitForFunction(() => document.querySelector('#response')!.textContent!.includes('cluster_name'));
    expect(await page.locator('#resp-status .code').textContent()).toBe('200');
    await shot(page, '7-logged-in');
    await page.click('#logout');
    await page.waitForSelector('#login:not([hidden])');
  });

  it('logs in with an API key; the live view shows who opened a PIT and closes it', async () => {
    await http(`${host.url}/secure-logs/_doc/1?refresh=true`, { method: 'PUT', headers: { ...ELASTIC_AUTH, 'Content-Type': 'application/json' }, body: '{"a":1}' });
    const pit = await http(`${host.url}/secure-logs/_pit?keep_alive=1m`, { method: 'POST', headers: ELASTIC_AUTH });
    expect(pit.status).toBe(200);
    await page.goto(`${host.url}/_console#contexts`);
    await page.waitForSelector('#login:not([hidden])');
    await page.check('input[name=mode][value=apikey]');
    await page.locator('#login-key').fill(apiKey);
    await page.click('#login-form button[type=submit]');
    await page.waitForSelector('#login', { state: 'hidden' });
    await page.waitForFunction(() => document.querySelector('#ctx-status')!.textContent!.includes('open search context'));
    expect(await page.locator('#ctx-status').textContent()).toMatch(/^1 open search context\(s\)/);
    const row = page.locator(`#ctx-table tr[data-id="${pit.json.id}"]`);
    expect(await row.locator('td').nth(3).textContent()).toBe('elastic');
    expect(await page.locator('#who').textContent()).toBe('Logged in as elastic');
    await row.locator('button:text("Close")').click();
    await page.waitForSelector(`#ctx-table tr[data-id="${pit.json.id}"]`, { state: 'detached' });
    expect((await http(`${host.url}/_strata/search_contexts`, { headers: ELASTIC_AUTH })).json.total).toBe(0);
  });
});
