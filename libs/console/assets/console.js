/* Strata console: plain browser JavaScript, no framework, no CDN. Served by the host at /_console. */
(function () {
  'use strict';

  // ------------------------------------------------------------------ helpers

  const $ = (sel, root) => (root || document).querySelector(sel);
  const store = {
    get(key, dflt) {
      try {
        const v = localStorage.getItem(key);
        return v === null ? dflt : JSON.parse(v);
      } catch (e) {
        return dflt;
      }
    },
    set(key, value) {
      try {
        localStorage.setItem(key, JSON.stringify(value));
      } catch (e) {
        /* storage full or disabled: keep working without it */
      }
    },
  };

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k === 'style') e.style.cssText = v; // CSSOM: allowed by the page's CSP, unlike a style attribute
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else if (k === 'text') e.textContent = v;
      else e.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of children.flat()) {
      if (c === undefined || c === null || c === false) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }

  const SVG = 'http://www.w3.org/2000/svg';
  function svg(tag, attrs, text) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function fmtBytes(n) {
    if (n === null || n === undefined || n === '') return '';
    n = Number(n);
    const units = ['b', 'kb', 'mb', 'gb', 'tb'];
    let i = 0;
    while (n >= 1024 && i < units.length - 1) {
      n /= 1024;
      i++;
    }
    return (i === 0 ? String(n) : n.toFixed(1)) + units[i];
  }

  function fmtMs(ms) {
    if (ms < 1000) return Math.round(ms) + 'ms';
    const s = ms / 1000;
    if (s < 60) return s.toFixed(1) + 's';
    const m = s / 60;
    if (m < 60) return m.toFixed(1) + 'm';
    const h = m / 60;
    if (h < 24) return h.toFixed(1) + 'h';
    return (h / 24).toFixed(1) + 'd';
  }

  function reasonOf(res) {
    const e = res.json && res.json.error;
    if (!e) return res.text.slice(0, 300);
    if (typeof e === 'string') return e;
    return (e.type ? e.type + ': ' : '') + (e.reason || '');
  }

  function statusLine(target, res, extra) {
    target.replaceChildren(
      el('span', { class: 'code' + (res.status >= 400 ? ' err' : ''), text: String(res.status) }),
      ' ',
      res.statusText || '',
      ' — ',
      Math.round(res.ms) + ' ms',
      extra ? ' — ' + extra : '',
    );
  }

  // ------------------------------------------------------------------ HTTP with credentials

  const auth = { header: sessionStorage.getItem('strata.auth') || null, user: sessionStorage.getItem('strata.user') || null };

  /** Sends a request with the session's credentials; a 401 opens the login form. */
  async function api(method, path, body, opts) {
    opts = opts || {};
    const headers = {};
    if (auth.header) headers['Authorization'] = auth.header;
    let payload;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      headers['Content-Type'] = opts.ndjson ? 'application/x-ndjson' : 'application/json';
    }
    const t0 = performance.now();
    let res;
    try {
      res = await fetch(path, { method, headers, body: payload, credentials: 'omit' });
    } catch (e) {
      return { status: 0, statusText: 'network error', ms: performance.now() - t0, text: String(e), json: undefined };
    }
    const text = method === 'HEAD' ? '' : await res.text();
    const ms = performance.now() - t0;
    let json;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch (e) {
      json = undefined;
    }
    const out = { status: res.status, statusText: res.statusText, ms, text, json, headers: res.headers };
    if (res.status === 401 && !opts.noLogin) showLogin(reasonOf(out));
    return out;
  }

  // ------------------------------------------------------------------ login

  function showLogin(message) {
    $('#login').hidden = false;
    $('#login-error').textContent = message && auth.header ? message : '';
    ($('#login-user').value ? $('#login-pass') : $('#login-user')).focus();
  }

  function loginMode() {
    return document.querySelector('input[name=mode]:checked').value;
  }

  function setupLogin() {
    for (const r of document.querySelectorAll('input[name=mode]')) {
      r.addEventListener('change', () => {
        $('#login-basic').hidden = loginMode() !== 'basic';
        $('#login-apikey').hidden = loginMode() !== 'apikey';
      });
    }
    $('#login-form').addEventListener('submit', async (ev) => {
      ev.preventDefault();
      let header;
      let user;
      if (loginMode() === 'basic') {
        user = $('#login-user').value;
        const bytes = new TextEncoder().encode(user + ':' + $('#login-pass').value);
        header = 'Basic ' + btoa(String.fromCharCode(...bytes));
      } else {
        const key = $('#login-key').value.trim();
        header = 'ApiKey ' + (key.includes(':') ? btoa(key) : key);
        user = 'API key';
      }
      const prev = auth.header;
      auth.header = header;
      const res = await api('GET', '/', undefined, { noLogin: true });
      if (res.status !== 200) {
        auth.header = prev;
        $('#login-error').textContent = res.status === 401 || res.status === 403 ? 'Login failed: ' + reasonOf(res) : 'Unexpected answer ' + res.status;
        return;
      }
      const who = await api('GET', '/_security/_authenticate', undefined, { noLogin: true });
      if (who.status === 200 && who.json && who.json.username) user = who.json.username;
      auth.user = user;
      sessionStorage.setItem('strata.auth', header);
      sessionStorage.setItem('strata.user', user);
      $('#login-pass').value = '';
      $('#login').hidden = true;
      showUser();
      route();
    });
    $('#logout').addEventListener('click', () => {
      auth.header = null;
      auth.user = null;
      sessionStorage.removeItem('strata.auth');
      sessionStorage.removeItem('strata.user');
      showUser();
      checkAccess();
    });
  }

  function showUser() {
    $('#who').textContent = auth.user ? 'Logged in as ' + auth.user : '';
    $('#logout').hidden = !auth.header;
  }

  async function checkAccess() {
    const res = await api('GET', '/', undefined, { noLogin: true });
    if (res.status === 401) showLogin();
    else route();
  }

  // ------------------------------------------------------------------ router

  const pages = {};
  let current;

  function route() {
    const name = (location.hash || '#console').slice(1) || 'console';
    const page = pages[name] ? name : 'console';
    for (const s of document.querySelectorAll('.page')) s.hidden = s.id !== 'page-' + page;
    for (const a of document.querySelectorAll('#nav a')) a.classList.toggle('active', a.dataset.page === page);
    if (current && current !== page && pages[current].leave) pages[current].leave();
    current = page;
    if (pages[page].enter) pages[page].enter();
  }

  // ------------------------------------------------------------------ console: parsing

  const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'HEAD'];
  const REQUEST_LINE = /^\s*(GET|POST|PUT|DELETE|HEAD)\s+(\S+)\s*$/i;

  /** The requests of a buffer: [{method, path, body, startLine, endLine}] */
  function parseRequests(text) {
    const lines = text.split('\n');
    const out = [];
    let cur;
    lines.forEach((line, i) => {
      const m = REQUEST_LINE.exec(line);
      if (m) {
        if (cur) out.push(cur);
        cur = { method: m[1].toUpperCase(), path: m[2], bodyLines: [], startLine: i, endLine: i };
      } else if (cur) {
        cur.bodyLines.push(line);
        if (line.trim()) cur.endLine = i;
      }
    });
    if (cur) out.push(cur);
    for (const r of out) {
      r.body = r.bodyLines
        .filter((l) => !/^\s*(#|\/\/)/.test(l))
        .join('\n')
        .trim();
      if (!r.path.startsWith('/')) r.path = '/' + r.path;
    }
    return out;
  }

  /** NDJSON when the endpoint takes it (_bulk, _msearch) or when the body is several one-line JSON values */
  function bodyFor(req) {
    if (!req.body) return { payload: undefined, ndjson: false };
    const ndjsonEndpoint = /\/_(bulk|msearch|msearch\/template)(\?|$|\/)/.test(req.path) || /^\/_(bulk|msearch)/.test(req.path);
    if (ndjsonEndpoint) {
      const lines = req.body.split('\n').map((l) => l.trim()).filter(Boolean);
      return { payload: lines.join('\n') + '\n', ndjson: true };
    }
    return { payload: req.body, ndjson: false };
  }

  function requestAt(text, caret) {
    const line = text.slice(0, caret).split('\n').length - 1;
    const reqs = parseRequests(text);
    let pick;
    for (const r of reqs) if (r.startLine <= line) pick = r;
    return pick;
  }

  // ------------------------------------------------------------------ console: autocomplete

  let spec = { routes: [], query_clauses: [], processors: [] };
  let specLoaded = false;

  async function loadSpec() {
    if (specLoaded) return;
    const res = await api('GET', '/_console/api/spec');
    if (res.status === 200 && res.json) {
      spec = res.json;
      specLoaded = true;
    }
  }

  const BODY_KEYS = [
    [/\/_search(\/template)?$|\/_async_search$/, ['query', 'aggs', 'aggregations', 'size', 'from', 'sort', '_source', 'fields', 'track_total_hits', 'search_after', 'pit', 'slice', 'highlight', 'post_filter', 'collapse', 'script_fields', 'stored_fields', 'docvalue_fields', 'min_score', 'timeout', 'terminate_after', 'explain', 'version', 'seq_no_primary_term', 'runtime_mappings', 'indices_boost', 'rescore', 'suggest', 'profile']],
    [/\/_count$/, ['query']],
    [/\/_delete_by_query$|\/_update_by_query$/, ['query', 'max_docs', 'script', 'slice']],
    [/\/_eql\/search$/, ['query', 'filter', 'size', 'fetch_size', 'timestamp_field', 'event_category_field', 'tiebreaker_field', 'result_position', 'wait_for_completion_timeout', 'keep_alive', 'keep_on_completion', 'fields', 'runtime_mappings', 'allow_partial_search_results', 'allow_partial_sequence_results', 'max_samples_per_key']],
    [/\/_ingest\/pipeline\/[^/_][^/]*$/, ['description', 'processors', 'on_failure', 'version', '_meta', 'deprecated']],
    [/\/_simulate$/, ['pipeline', 'docs']],
    [/\/_search\/scroll$/, ['scroll', 'scroll_id']],
    [/\/_pit$/, ['id']],
    [/\/_mapping$/, ['properties', 'dynamic', '_source', '_routing', 'runtime', 'dynamic_templates', '_meta']],
    [/\/_settings$/, ['index', 'number_of_replicas', 'refresh_interval']],
    [/\/_aliases$/, ['actions']],
    [/\/_doc(\/[^/]+)?$|\/_create\/[^/]+$/, []],
    [/\/_update\/[^/]+$/, ['doc', 'script', 'upsert', 'doc_as_upsert', 'scripted_upsert', 'detect_noop', '_source']],
    [/\/_index_template\/[^/]+$/, ['index_patterns', 'template', 'composed_of', 'priority', 'version', 'data_stream', '_meta']],
    [/\/_component_template\/[^/]+$/, ['template', 'version', '_meta']],
    [/^\/[^_/][^/]*$/, ['settings', 'mappings', 'aliases']],
  ];
  const AGG_TYPES = ['terms', 'date_histogram', 'histogram', 'range', 'date_range', 'filter', 'filters', 'avg', 'sum', 'min', 'max', 'stats', 'extended_stats', 'value_count', 'cardinality', 'percentiles', 'top_hits', 'composite', 'multi_terms', 'nested', 'significant_terms', 'missing', 'global'];
  const QUERY_PARENTS = new Set(['query', 'filter', 'must', 'must_not', 'should', 'post_filter', 'positive', 'negative']);

  /** The JSON path of objects open at `pos` of `body`, and whether the caret stands where a key goes. */
  function jsonContext(body) {
    const stack = [];
    let i = 0;
    let lastString = null;
    let lastStringEnd = -1;
    let pendingKey = null;
    let lastSignificant = '';
    while (i < body.length) {
      const ch = body[i];
      if (ch === '"') {
        let j = i + 1;
        while (j < body.length && body[j] !== '"') j += body[j] === '\\' ? 2 : 1;
        if (j >= body.length) return { stack, keyPos: lastSignificant === '{' || lastSignificant === ',', partial: body.slice(i + 1), inString: true, top: stack[stack.length - 1] };
        lastString = body.slice(i + 1, j);
        lastStringEnd = j;
        lastSignificant = '"';
        i = j + 1;
        continue;
      }
      if (ch === ':' && lastSignificant === '"') pendingKey = lastString;
      if (ch === '{' || ch === '[') {
        stack.push({ type: ch === '{' ? 'obj' : 'arr', key: pendingKey });
        pendingKey = null;
      } else if (ch === '}' || ch === ']') {
        stack.pop();
        pendingKey = null;
      } else if (ch === ',') {
        pendingKey = null;
      }
      if (!/\s/.test(ch)) lastSignificant = ch;
      i++;
    }
    void lastStringEnd;
    const top = stack[stack.length - 1];
    return { stack, keyPos: !!top && top.type === 'obj' && (lastSignificant === '{' || lastSignificant === ','), partial: '', inString: false, top };
  }

  function keySuggestions(req, body) {
    const ctx = jsonContext(body);
    if (!ctx.keyPos) return null;
    const objs = ctx.stack.filter((s) => s.type === 'obj');
    const depth = objs.length;
    // the key owning the current object (skipping arrays)
    let owner = null;
    for (let k = ctx.stack.length - 1; k >= 0; k--) {
      if (ctx.stack[k].type === 'obj') {
        owner = ctx.stack[k].key;
        if (owner === null && k > 0 && ctx.stack[k - 1].type === 'arr') owner = ctx.stack[k - 1].key;
        break;
      }
    }
    let words = [];
    const path = req.path.split('?')[0];
    if (depth === 1) {
      for (const [re, keys] of BODY_KEYS) {
        if (re.test(path)) {
          words = keys;
          break;
        }
      }
    } else if (QUERY_PARENTS.has(owner)) words = spec.query_clauses || [];
    else if (owner === 'processors' || owner === 'on_failure') words = spec.processors || [];
    else if (owner === 'aggs' || owner === 'aggregations') words = [];
    else {
      const parentKey = objs.length >= 2 ? objs[objs.length - 2].key : null;
      if (parentKey === 'aggs' || parentKey === 'aggregations') words = AGG_TYPES.concat(['aggs']);
    }
    const partial = ctx.partial;
    return { partial, inString: ctx.inString, words: words.filter((w) => w.startsWith(partial)).map((w) => ({ text: w, kind: 'key' })) };
  }

  /** Endpoint suggestions for a typed path: templates matched segment by segment, params filled in. */
  function pathSuggestions(method, typed) {
    const [pathPart, queryPart] = typed.split('?');
    const routes = (spec.routes || []).filter((r) => r.method === method || (method === 'HEAD' && r.method === 'GET'));
    if (queryPart !== undefined) {
      const names = new Set();
      const segsTyped = pathPart.split('/').filter(Boolean);
      for (const r of routes) if (matchTemplate(r.path, segsTyped, true)) for (const p of r.params) names.add(p);
      for (const g of ['pretty', 'human', 'filter_path', 'error_trace', 'format']) names.add(g);
      const last = queryPart.split('&').pop();
      const done = queryPart.slice(0, queryPart.length - last.length);
      return [...names]
        .filter((n) => n.startsWith(last))
        .sort()
        .map((n) => ({ text: pathPart + '?' + done + n, label: n, kind: 'param' }));
    }
    const segs = pathPart.split('/');
    segs.shift();
    const prefixSegs = segs.slice(0, -1);
    const lastSeg = segs[segs.length - 1] || '';
    const out = new Map();
    for (const r of routes) {
      const t = r.path.split('/').filter(Boolean);
      if (t.length < segs.length) continue;
      let ok = true;
      const filled = [];
      for (let k = 0; k < prefixSegs.length; k++) {
        if (t[k].startsWith('{') || t[k] === prefixSegs[k]) filled.push(t[k].startsWith('{') ? prefixSegs[k] : t[k]);
        else {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      const next = t[prefixSegs.length];
      if (next === undefined) continue;
      if (!next.startsWith('{') && !next.startsWith(lastSeg)) continue;
      if (next.startsWith('{') && lastSeg.startsWith('_')) continue;
      const rest = t.slice(prefixSegs.length);
      if (next.startsWith('{') && lastSeg) rest[0] = lastSeg;
      const text = '/' + filled.concat(rest).join('/');
      if (!out.has(text)) out.set(text, { text, label: text, kind: r.action });
    }
    return [...out.values()].sort((a, b) => a.text.length - b.text.length || a.text.localeCompare(b.text)).slice(0, 40);
  }

  function matchTemplate(template, segs, exact) {
    const t = template.split('/').filter(Boolean);
    if (exact ? t.length !== segs.length : t.length < segs.length) return false;
    return segs.every((s, k) => t[k].startsWith('{') || t[k] === s);
  }

  const suggest = { items: [], index: 0, apply: null };

  function hideSuggest() {
    $('#suggest').hidden = true;
    suggest.items = [];
  }

  function showSuggest(items, apply) {
    const ul = $('#suggest');
    if (items.length === 0) return hideSuggest();
    suggest.items = items;
    suggest.index = 0;
    suggest.apply = apply;
    ul.replaceChildren(
      ...items.map((it, k) =>
        el('li', { class: k === 0 ? 'sel' : '', role: 'option', onmousedown: (ev) => { ev.preventDefault(); suggest.index = k; acceptSuggest(); } }, it.label || it.text, it.kind && it.kind !== 'key' ? el('small', { text: it.kind }) : null),
      ),
    );
    // place the list under the caret (monospace: line and column give the position)
    const ta = $('#editor');
    const before = ta.value.slice(0, ta.selectionStart).split('\n');
    const style = getComputedStyle(ta);
    const lineH = parseFloat(style.lineHeight) || 19;
    const charW = measureChar(style);
    const top = 8 + before.length * lineH - ta.scrollTop;
    const left = 8 + before[before.length - 1].length * charW - ta.scrollLeft;
    ul.style.top = Math.max(0, top) + 'px';
    ul.style.left = Math.max(0, Math.min(left, ta.clientWidth - 240)) + 'px';
    ul.hidden = false;
  }

  let charWidth;
  function measureChar(style) {
    if (charWidth) return charWidth;
    const c = document.createElement('canvas').getContext('2d');
    c.font = style.fontSize + ' ' + style.fontFamily;
    charWidth = c.measureText('MMMMMMMMMM').width / 10 || 7.8;
    return charWidth;
  }

  function moveSuggest(d) {
    const n = suggest.items.length;
    suggest.index = (suggest.index + d + n) % n;
    const lis = $('#suggest').children;
    for (let k = 0; k < lis.length; k++) lis[k].classList.toggle('sel', k === suggest.index);
    lis[suggest.index].scrollIntoView({ block: 'nearest' });
  }

  function acceptSuggest() {
    const it = suggest.items[suggest.index];
    if (it && suggest.apply) suggest.apply(it);
    hideSuggest();
    saveTab();
  }

  function replaceRange(ta, from, to, text) {
    ta.setRangeText(text, from, to, 'end');
    ta.focus();
  }

  function updateSuggestions(explicit) {
    const ta = $('#editor');
    const text = ta.value;
    const caret = ta.selectionStart;
    const lineStart = text.lastIndexOf('\n', caret - 1) + 1;
    const lineText = text.slice(lineStart, caret);
    // method position
    if (/^\s*[A-Za-z]*$/.test(lineText) && (explicit || lineText.trim().length > 0)) {
      const typed = lineText.trim().toUpperCase();
      const items = METHODS.filter((m) => m.startsWith(typed) && m !== typed).map((m) => ({ text: m, kind: 'method' }));
      if (items.length > 0 && (!isInBody(text, lineStart) || explicit)) {
        return showSuggest(items, (it) => replaceRange(ta, lineStart, caret, it.text + ' /'));
      }
    }
    // path position
    const m = /^\s*(GET|POST|PUT|DELETE|HEAD)\s+(\S*)$/i.exec(lineText);
    if (m) {
      const typed = m[2].startsWith('/') ? m[2] : '/' + m[2];
      const from = caret - m[2].length;
      return showSuggest(pathSuggestions(m[1].toUpperCase(), typed), (it) => replaceRange(ta, from, caret, it.text));
    }
    // body key position
    const req = requestAt(text, caret);
    if (req) {
      const lines = text.split('\n');
      let bodyStart = 0;
      for (let k = 0; k <= req.startLine; k++) bodyStart += lines[k].length + 1;
      if (caret >= bodyStart) {
        const s = keySuggestions(req, text.slice(bodyStart, caret));
        if (s && (explicit || s.inString)) {
          const from = caret - s.partial.length;
          return showSuggest(s.words, (it) => {
            const quote = s.inString ? '' : '"';
            replaceRange(ta, from, caret, quote + it.text + '": ');
            // skip the closing quote the user may have typed already
            if (ta.value[ta.selectionStart] === '"' && s.inString) ta.setRangeText('', ta.selectionStart, ta.selectionStart + 1, 'end');
          });
        }
      }
    }
    hideSuggest();
  }

  function isInBody(text, lineStart) {
    const before = text.slice(0, lineStart).split('\n');
    return before.some((l) => REQUEST_LINE.test(l)) && before.slice(-2).some((l) => l.trim() && !REQUEST_LINE.test(l));
  }

  // ------------------------------------------------------------------ console: tabs, history, running

  const DEFAULT_TEXT = 'GET /\n\nGET /_cat/indices?v\n\nPOST /my-index/_search\n{\n  "query": { "match_all": {} }\n}\n';
  let tabs = store.get('strata.console.tabs', null) || [{ name: 'Tab 1', text: DEFAULT_TEXT }];
  let activeTab = Math.min(store.get('strata.console.active', 0), tabs.length - 1);
  let history = store.get('strata.console.history', []);

  function saveTab() {
    tabs[activeTab].text = $('#editor').value;
    store.set('strata.console.tabs', tabs);
    store.set('strata.console.active', activeTab);
  }

  function renderTabs() {
    const bar = $('#tabs');
    const closeButton = tabs.length > 1 ? [el('button', { title: 'Close this tab', onclick: closeTab }, '×')] : [];
    bar.replaceChildren(
      ...tabs.map((t, k) =>
        el('button', { class: k === activeTab ? 'active' : '', title: 'Double-click to rename', onclick: () => switchTab(k), ondblclick: () => renameTab(k) }, t.name),
      ),
      el('button', { title: 'New tab', onclick: newTab }, '+'),
      ...closeButton,
    );
    $('#editor').value = tabs[activeTab].text;
  }

  function switchTab(k) {
    saveTab();
    activeTab = k;
    renderTabs();
  }
  function newTab() {
    saveTab();
    tabs.push({ name: 'Tab ' + (tabs.length + 1), text: 'GET /_search\n{\n  "query": { "match_all": {} }\n}\n' });
    activeTab = tabs.length - 1;
    renderTabs();
    saveTab();
  }
  function closeTab() {
    tabs.splice(activeTab, 1);
    activeTab = Math.max(0, activeTab - 1);
    renderTabs();
    saveTab();
  }
  function renameTab(k) {
    const name = prompt('Tab name', tabs[k].name);
    if (name) {
      tabs[k].name = name;
      saveTab();
      renderTabs();
    }
  }

  function renderHistory() {
    $('#history').replaceChildren(
      ...history.map((h) =>
        el('li', { title: new Date(h.at).toLocaleString(), onclick: () => insertRequest(h) }, h.method + ' ' + h.path + (h.body ? ' {…}' : '') + '  → ' + h.status),
      ),
    );
  }

  function insertRequest(h) {
    const ta = $('#editor');
    const text = '\n' + h.method + ' ' + h.path + '\n' + (h.body ? h.body + '\n' : '');
    ta.value = ta.value.replace(/\s*$/, '\n') + text;
    saveTab();
  }

  async function runCurrent() {
    const ta = $('#editor');
    const req = requestAt(ta.value, ta.selectionStart);
    const out = $('#response');
    if (!req) {
      out.textContent = 'Put the cursor on a request: a line such as GET /_search, then its body.';
      return;
    }
    const { payload, ndjson } = bodyFor(req);
    if (payload !== undefined && !ndjson) {
      try {
        JSON.parse(payload);
      } catch (e) {
        $('#resp-status').textContent = 'The body is not valid JSON: ' + e.message;
        return;
      }
    }
    $('#resp-status').textContent = req.method + ' ' + req.path + ' …';
    const res = await api(req.method, req.path, payload, { ndjson });
    statusLine($('#resp-status'), res, req.method + ' ' + req.path);
    let shown = res.text;
    if (res.json !== undefined) shown = JSON.stringify(res.json, null, 2);
    if (req.method === 'HEAD') shown = '(no body)';
    out.textContent = shown;
    history.unshift({ method: req.method, path: req.path, body: req.body || '', status: res.status, at: Date.now() });
    history = history.slice(0, 50);
    store.set('strata.console.history', history);
    renderHistory();
  }

  pages.console = {
    init() {
      renderTabs();
      renderHistory();
      const ta = $('#editor');
      ta.addEventListener('input', () => {
        saveTab();
        updateSuggestions(false);
      });
      ta.addEventListener('keydown', (ev) => {
        const open = !$('#suggest').hidden && suggest.items.length > 0;
        if ((ev.ctrlKey || ev.metaKey) && ev.key === 'Enter') {
          ev.preventDefault();
          hideSuggest();
          runCurrent();
        } else if (ev.ctrlKey && ev.key === ' ') {
          ev.preventDefault();
          updateSuggestions(true);
        } else if (open && ev.key === 'ArrowDown') {
          ev.preventDefault();
          moveSuggest(1);
        } else if (open && ev.key === 'ArrowUp') {
          ev.preventDefault();
          moveSuggest(-1);
        } else if (open && (ev.key === 'Enter' || ev.key === 'Tab')) {
          ev.preventDefault();
          acceptSuggest();
        } else if (open && ev.key === 'Escape') {
          ev.preventDefault();
          hideSuggest();
        } else if (ev.key === 'Tab') {
          ev.preventDefault();
          ta.setRangeText('  ', ta.selectionStart, ta.selectionEnd, 'end');
        }
      });
      ta.addEventListener('blur', () => setTimeout(hideSuggest, 150));
      ta.addEventListener('click', hideSuggest);
      $('#run').addEventListener('click', runCurrent);
    },
    enter() {
      loadSpec();
    },
  };

  // ------------------------------------------------------------------ EQL timeline

  function getPath(obj, path) {
    if (!obj) return undefined;
    if (Object.prototype.hasOwnProperty.call(obj, path)) return obj[path];
    let cur = obj;
    for (const p of path.split('.')) {
      if (cur === null || typeof cur !== 'object') return undefined;
      cur = cur[p];
    }
    return cur;
  }

  function parseDuration(text) {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text);
    if (!m) return undefined;
    const mult = { ms: 1, s: 1000, m: 60000, h: 3600000, d: 86400000 }[m[2] || 'ms'];
    return Number(m[1]) * mult;
  }

  /** What the timeline needs from a sequence query: by-fields, maxspan, the until condition. */
  function analyzeEql(query) {
    const q = query.replace(/\s+/g, ' ').trim();
    const out = { sequence: /^sequence\b/i.test(q), by: [], maxspan: undefined, until: undefined };
    const head = /^sequence\s*(?:by\s+(.+?))?\s*(?:with\s+maxspan\s*=\s*(\S+))?\s*\[/i.exec(q);
    if (head) {
      if (head[1]) out.by = head[1].split(',').map((s) => s.trim()).filter(Boolean);
      if (head[2]) out.maxspan = parseDuration(head[2]);
    }
    const until = /\buntil\s*\[(.+)\]\s*$/i.exec(q);
    if (until) out.until = until[1].trim();
    return out;
  }

  const STEP_COLORS = ['#2f6fb5', '#d9822b', '#2f8a4a', '#8a3fb5', '#b53a2f', '#1f9ea8', '#6b7685'];

  async function runEql(ev) {
    ev.preventDefault();
    const index = $('#eql-index').value.trim();
    const query = $('#eql-query').value;
    const tsField = $('#eql-ts').value.trim() || '@timestamp';
    const size = Number($('#eql-size').value) || 10;
    const status = $('#eql-status');
    const target = $('#eql-timeline');
    target.replaceChildren();
    $('#eql-legend').replaceChildren();
    status.textContent = 'Searching…';
    const body = { query, size };
    if (tsField !== '@timestamp') body.timestamp_field = tsField;
    const res = await api('POST', '/' + encodeURIComponent(index) + '/_eql/search', body);
    if (res.status !== 200) {
      statusLine(status, res, reasonOf(res));
      return;
    }
    const a = analyzeEql(query);
    const hits = res.json.hits || {};
    let untilEvents = [];
    if (a.until && a.sequence) {
      const u = await api('POST', '/' + encodeURIComponent(index) + '/_eql/search', { query: a.until, size: 1000, ...(tsField !== '@timestamp' ? { timestamp_field: tsField } : {}) });
      if (u.status === 200 && u.json.hits && u.json.hits.events) untilEvents = u.json.hits.events;
    }
    const lanes = [];
    if (hits.sequences) {
      for (const s of hits.sequences) lanes.push({ label: (s.join_keys || []).map(String).join(', ') || '(no join key)', keys: s.join_keys || [], events: s.events || [] });
    } else if (hits.events) {
      lanes.push({ label: 'events', keys: [], events: hits.events });
    }
    const total = hits.total ? hits.total.value : lanes.length;
    statusLine(status, res, (hits.sequences ? hits.sequences.length + ' sequence(s)' : (hits.events || []).length + ' event(s)') + ' of ' + total + (a.maxspan ? ' · maxspan ' + fmtMs(a.maxspan) : '') + (a.until ? ' · until [' + a.until + ']' : ''));
    if (lanes.length === 0) {
      target.append(el('p', { class: 'empty', text: 'No results.' }));
      return;
    }
    drawTimeline(target, lanes, { tsField, maxspan: a.maxspan, by: a.by, untilEvents });
  }

  function drawTimeline(target, lanes, o) {
    const tsOf = (e) => {
      const v = getPath(e._source, o.tsField);
      const t = typeof v === 'number' ? v : Date.parse(v);
      return Number.isFinite(t) ? t : undefined;
    };
    // missing events have no time: place them between their neighbours
    for (const lane of lanes) {
      lane.points = lane.events.map((e, k) => ({ e, k, t: e.missing ? undefined : tsOf(e), missing: !!e.missing }));
      for (let k = 0; k < lane.points.length; k++) {
        const p = lane.points[k];
        if (p.t !== undefined) continue;
        let prev;
        let next;
        for (let j = k - 1; j >= 0 && prev === undefined; j--) prev = lane.points[j].t;
        for (let j = k + 1; j < lane.points.length && next === undefined; j++) next = lane.points[j].t;
        p.t = prev !== undefined && next !== undefined ? (prev + next) / 2 : prev !== undefined ? prev + 1 : next !== undefined ? next - 1 : 0;
        p.placed = true;
      }
      // the until cut-off of a lane: the key's first until event at or after the sequence's first event
      lane.untils = [];
      if (o.untilEvents.length && o.by.length) {
        const first = lane.points.length ? lane.points[0].t : 0;
        let cut;
        for (const u of o.untilEvents) {
          const keys = o.by.map((f) => getPath(u._source, f));
          const t = tsOf(u);
          if (t !== undefined && t >= first && (cut === undefined || t < cut) && keys.every((k, i) => String(k) === String(lane.keys[i]))) cut = t;
        }
        if (cut !== undefined) lane.untils.push(cut);
      }
    }
    let min = Infinity;
    let max = -Infinity;
    for (const lane of lanes) {
      for (const p of lane.points) {
        min = Math.min(min, p.t);
        max = Math.max(max, p.t);
      }
      if (o.maxspan && lane.points.length) max = Math.max(max, lane.points[0].t + o.maxspan);
      for (const u of lane.untils) max = Math.max(max, u);
    }
    if (!Number.isFinite(min)) {
      min = 0;
      max = 1;
    }
    if (max === min) max = min + 1000;
    const pad = (max - min) * 0.04;
    min -= pad;
    max += pad;
    const labelW = 170;
    const width = Math.max(700, target.clientWidth - 4 || 900);
    const laneH = 46;
    const top = 28;
    const height = top + lanes.length * laneH + 10;
    const x = (t) => labelW + ((t - min) / (max - min)) * (width - labelW - 20);
    const root = svg('svg', { width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': 'EQL sequence timeline' });
    // axis
    const axis = svg('g', { class: 'axis' });
    for (let k = 0; k <= 5; k++) {
      const t = min + ((max - min) * k) / 5;
      axis.append(svg('line', { x1: x(t), x2: x(t), y1: top - 6, y2: height - 6, stroke: '#eef1f5' }));
      axis.append(svg('text', { x: x(t), y: 14, 'text-anchor': 'middle' }, new Date(t).toISOString().replace('T', ' ').slice(5, 23)));
    }
    root.append(axis);
    const maxStep = Math.max(...lanes.map((l) => l.points.length));
    lanes.forEach((lane, li) => {
      const y = top + li * laneH + laneH / 2;
      const g = svg('g', { class: 'lane', 'data-key': lane.label });
      g.append(svg('text', { x: 8, y: y + 4, class: 'lane-label' }, lane.label.length > 24 ? lane.label.slice(0, 23) + '…' : lane.label));
      g.append(svg('line', { x1: labelW, x2: width - 10, y1: y, y2: y, stroke: '#dfe4ea' }));
      if (o.maxspan && lane.points.length) {
        const t0 = lane.points[0].t;
        g.append(svg('rect', { class: 'maxspan', x: x(t0), y: y - 14, width: Math.max(1, x(t0 + o.maxspan) - x(t0)), height: 28, fill: '#4aa3ff', 'fill-opacity': 0.12, stroke: '#4aa3ff', 'stroke-dasharray': '3 3' }));
      }
      const real = lane.points.filter((p) => !p.missing);
      if (real.length > 1) g.append(svg('line', { x1: x(real[0].t), x2: x(real[real.length - 1].t), y1: y, y2: y, stroke: '#9aa7b8', 'stroke-width': 2 }));
      for (const u of lane.untils) {
        g.append(svg('line', { class: 'until', x1: x(u), x2: x(u), y1: y - 18, y2: y + 18, stroke: '#b53a2f', 'stroke-width': 2 }));
        g.append(svg('text', { x: x(u) + 3, y: y - 8, fill: '#b53a2f' }, 'until'));
      }
      for (const p of lane.points) {
        const color = STEP_COLORS[p.k % STEP_COLORS.length];
        const cat = getPath(p.e._source, 'event.category');
        const title = svg('title', {}, (p.missing ? 'missing event (step ' + (p.k + 1) + ')' : (cat ? cat + ' · ' : '') + new Date(p.t).toISOString() + ' · ' + p.e._index + '/' + p.e._id));
        if (p.missing) {
          const m = svg('g', { class: 'event missing' });
          m.append(svg('circle', { cx: x(p.t), cy: y, r: 7, fill: '#fff', stroke: '#b53a2f', 'stroke-dasharray': '2 2', 'stroke-width': 2 }));
          m.append(svg('text', { x: x(p.t) - 3.5, y: y + 4, fill: '#b53a2f' }, '×'));
          m.append(svg('text', { x: x(p.t) - 18, y: y + 22, fill: '#b53a2f' }, 'missing'));
          m.append(title);
          g.append(m);
        } else {
          const c = svg('circle', { class: 'event', cx: x(p.t), cy: y, r: 6, fill: color, stroke: '#fff', 'stroke-width': 1.5 });
          c.append(title);
          g.append(c);
          g.append(svg('text', { x: x(p.t) - 3, y: y - 10 }, String(p.k + 1)));
        }
      }
      root.append(g);
    });
    target.replaceChildren(root);
    const legend = [];
    for (let k = 0; k < Math.min(maxStep, STEP_COLORS.length); k++) legend.push(el('span', { style: '--c:' + STEP_COLORS[k] }, 'step ' + (k + 1)));
    if (o.maxspan) legend.push(el('span', { style: '--c:#9fd0ff' }, 'maxspan window'));
    if (lanes.some((l) => l.untils.length)) legend.push(el('span', { style: '--c:#b53a2f' }, 'until cut-off'));
    if (lanes.some((l) => l.points.some((p) => p.missing))) legend.push(el('span', { style: '--c:#fff;border:1px dashed #b53a2f' }, 'missing event'));
    $('#eql-legend').replaceChildren(...legend);
  }

  pages.eql = {
    init() {
      $('#eql-form').addEventListener('submit', runEql);
    },
  };

  // ------------------------------------------------------------------ pipeline debugger

  function flatten(obj, prefix, out) {
    out = out || {};
    if (obj !== null && typeof obj === 'object' && !Array.isArray(obj)) {
      const keys = Object.keys(obj);
      if (keys.length === 0 && prefix) out[prefix] = '{}';
      for (const k of keys) flatten(obj[k], prefix ? prefix + '.' + k : k, out);
    } else if (prefix) out[prefix] = JSON.stringify(obj);
    return out;
  }

  /** before/after as two columns of `path: value` lines with added, removed and changed lines marked */
  function renderDiff(before, after) {
    const a = flatten(before || {}, '');
    const b = flatten(after || {}, '');
    const keys = [...new Set(Object.keys(a).concat(Object.keys(b)))].sort();
    const left = el('pre', { class: 'before' });
    const right = el('pre', { class: 'after' });
    const counts = { added: 0, removed: 0, changed: 0 };
    for (const k of keys) {
      const inA = k in a;
      const inB = k in b;
      if (inA && inB && a[k] === b[k]) {
        left.append(el('div', {}, k + ': ' + a[k]));
        right.append(el('div', {}, k + ': ' + b[k]));
      } else if (inA && inB) {
        counts.changed++;
        left.append(el('div', { class: 'chg' }, k + ': ' + a[k]));
        right.append(el('div', { class: 'chg' }, k + ': ' + b[k]));
      } else if (inA) {
        counts.removed++;
        left.append(el('div', { class: 'del' }, k + ': ' + a[k]));
        right.append(el('div', { class: 'del' }, k + ': (removed)'));
      } else {
        counts.added++;
        left.append(el('div', { class: 'add' }, k + ': (absent)'));
        right.append(el('div', { class: 'add' }, k + ': ' + b[k]));
      }
    }
    return {
      node: el('div', { class: 'diff' }, el('div', {}, el('h3', { text: 'Before' }), left), el('div', {}, el('h3', { text: 'After' }), right)),
      counts,
    };
  }

  function docView(doc) {
    if (!doc) return null;
    const src = doc._source || {};
    return src;
  }

  async function loadPipelines() {
    const res = await api('GET', '/_ingest/pipeline');
    const sel = $('#pl-select');
    const keep = sel.value;
    sel.replaceChildren(el('option', { value: '' }, '(inline definition below)'));
    if (res.status === 200 && res.json) {
      for (const id of Object.keys(res.json).sort()) sel.append(el('option', { value: id }, id));
      sel.value = keep && res.json[keep] ? keep : '';
    }
    sel.onchange = () => {
      if (sel.value && res.json && res.json[sel.value]) $('#pl-def').value = JSON.stringify(res.json[sel.value], null, 2);
    };
  }

  async function runSimulate(ev) {
    ev.preventDefault();
    const status = $('#pl-status');
    const out = $('#pl-result');
    out.replaceChildren();
    let docs;
    let pipeline;
    try {
      docs = JSON.parse($('#pl-docs').value);
      if (!Array.isArray(docs)) docs = [docs];
      docs = docs.map((d) => (d && typeof d === 'object' && '_source' in d ? d : { _source: d }));
    } catch (e) {
      status.textContent = 'Documents are not valid JSON: ' + e.message;
      return;
    }
    const id = $('#pl-select').value;
    if (!id) {
      try {
        pipeline = JSON.parse($('#pl-def').value);
      } catch (e) {
        status.textContent = 'The pipeline definition is not valid JSON: ' + e.message;
        return;
      }
    }
    const path = id ? '/_ingest/pipeline/' + encodeURIComponent(id) + '/_simulate?verbose=true' : '/_ingest/pipeline/_simulate?verbose=true';
    const res = await api('POST', path, id ? { docs } : { pipeline, docs });
    if (res.status !== 200) {
      statusLine(status, res, reasonOf(res));
      return;
    }
    const results = res.json.docs || [];
    let failures = 0;
    results.forEach((r, di) => {
      const steps = r.processor_results || [];
      if (steps.some((s) => s.status === 'error')) failures++;
      out.append(renderSteps(di, docs[di], steps, res.ms / Math.max(1, results.length)));
    });
    statusLine(status, res, results.length + ' document(s), ' + failures + ' failed · simulate took ' + Math.round(res.ms) + ' ms');
  }

  function renderSteps(di, input, steps, msPerDoc) {
    const block = el('div', { class: 'doc-block', 'data-doc': di });
    const title = el('h2', {}, 'Document ' + (di + 1) + ' · ' + steps.length + ' processor step(s) · ~' + msPerDoc.toFixed(1) + ' ms');
    const bar = el('div', { class: 'steps' });
    const detail = el('div', { class: 'step-detail' });
    let pos = 0;
    const firstError = steps.findIndex((s) => s.status === 'error');
    const befores = [];
    let prev = docView(input);
    for (const s of steps) {
      befores.push(prev);
      if (s.doc) prev = docView(s.doc);
    }
    const show = (k) => {
      pos = k;
      for (let j = 0; j < bar.children.length; j++) bar.children[j].classList.toggle('current', j === k + 1);
      const s = steps[k];
      if (!s) {
        detail.replaceChildren(el('p', { class: 'empty', text: 'No processor ran.' }));
        return;
      }
      const after = s.doc ? docView(s.doc) : s.status === 'dropped' ? null : befores[k];
      const d = renderDiff(befores[k], after);
      const head = el(
        'p',
        {},
        el('span', { class: 'badge ' + s.status, text: s.status }),
        ' ',
        el('strong', { text: s.processor_type || 'processor' }),
        s.tag ? ' [' + s.tag + ']' : '',
        s.description ? ' — ' + s.description : '',
        ' · step ' + (k + 1) + ' of ' + steps.length,
        s.status === 'skipped' && s.if ? ' · if: ' + s.if.condition + ' → ' + s.if.result : '',
        ' · +' + d.counts.added + ' −' + d.counts.removed + ' ~' + d.counts.changed,
      );
      const err = s.error ? el('div', { class: 'step-error', role: 'alert' }, (s.error.type || 'error') + ': ' + (s.error.reason || JSON.stringify(s.error))) : null;
      detail.replaceChildren(head, err, s.status === 'dropped' ? el('p', { class: 'empty', text: 'The document was dropped.' }) : d.node);
    };
    bar.append(el('button', { class: 'small', title: 'Previous step', onclick: () => show(Math.max(0, pos - 1)) }, '◀ Prev'));
    steps.forEach((s, k) => bar.append(el('button', { class: 'small ' + s.status, title: s.status, onclick: () => show(k) }, k + 1 + '. ' + (s.processor_type || '?'))));
    bar.append(el('button', { class: 'small', title: 'Next step', onclick: () => show(Math.min(steps.length - 1, pos + 1)) }, 'Next ▶'));
    block.append(title, bar, detail);
    show(firstError >= 0 ? 0 : 0);
    return block;
  }

  pages.pipelines = {
    init() {
      $('#pl-form').addEventListener('submit', runSimulate);
    },
    enter() {
      loadPipelines();
    },
  };

  // ------------------------------------------------------------------ live view of search contexts

  let ctxTimer;

  async function refreshContexts() {
    const status = $('#ctx-status');
    const res = await api('GET', '/_strata/search_contexts');
    const tbody = $('#ctx-table tbody');
    if (res.status !== 200) {
      statusLine(status, res, reasonOf(res));
      tbody.replaceChildren();
      return;
    }
    const list = res.json.contexts || [];
    status.textContent = list.length + ' open search context(s) · updated ' + new Date().toLocaleTimeString();
    if (list.length === 0) {
      tbody.replaceChildren(el('tr', {}, el('td', { colspan: 9, class: 'empty', text: 'No open scrolls, points in time or async searches.' })));
      return;
    }
    tbody.replaceChildren(
      ...list.map((c) =>
        el(
          'tr',
          { 'data-id': c.id, 'data-kind': c.kind },
          el('td', { text: c.kind }),
          el('td', { class: 'id', title: c.id, text: c.id }),
          el('td', { text: (c.indices || []).join(', ') }),
          el('td', { text: c.owner || '—' }),
          el('td', { class: 'num', text: fmtMs(c.age_in_millis) }),
          el('td', { class: 'num', text: fmtMs(c.keep_alive_left_in_millis) }),
          el('td', { class: 'id', title: c.origin ? c.origin.url : '', text: c.origin ? c.origin.method + ' ' + c.origin.url : '—' }),
          el('td', { text: c.running ? 'running' : 'idle' }),
          el('td', {}, el('button', { class: 'small danger', onclick: () => closeContext(c.id) }, 'Close')),
        ),
      ),
    );
  }

  async function closeContext(id) {
    const res = await api('DELETE', '/_strata/search_contexts/' + encodeURIComponent(id));
    if (res.status !== 200) statusLine($('#ctx-status'), res, reasonOf(res));
    await refreshContexts();
  }

  pages.contexts = {
    init() {
      $('#ctx-refresh').addEventListener('click', refreshContexts);
      $('#ctx-close-all').addEventListener('click', async () => {
        if (!confirm('Close every open search context?')) return;
        await api('DELETE', '/_strata/search_contexts');
        refreshContexts();
      });
      $('#ctx-auto').addEventListener('change', () => pages.contexts.enter());
    },
    enter() {
      refreshContexts();
      clearInterval(ctxTimer);
      if ($('#ctx-auto').checked) ctxTimer = setInterval(refreshContexts, 2000);
    },
    leave() {
      clearInterval(ctxTimer);
    },
  };

  // ------------------------------------------------------------------ indices and data streams

  async function refreshIndices() {
    const status = $('#idx-status');
    const [ix, ds] = await Promise.all([
      api('GET', '/_cat/indices?format=json&bytes=b&expand_wildcards=all&s=index'),
      api('GET', '/_data_stream?expand_wildcards=all', undefined, { noLogin: true }),
    ]);
    const tbody = $('#idx-table tbody');
    if (ix.status !== 200) {
      statusLine(status, ix, reasonOf(ix));
      return;
    }
    const rows = ix.json || [];
    let docs = 0;
    let bytes = 0;
    tbody.replaceChildren(
      ...rows.map((r) => {
        docs += Number(r['docs.count'] || 0);
        bytes += Number(r['store.size'] || 0);
        return el(
          'tr',
          { 'data-index': r.index },
          el('td', {}, el('span', { class: 'health ' + r.health }), r.health),
          el('td', { text: r.status }),
          el('td', { text: r.index }),
          el('td', { class: 'num', text: r.pri }),
          el('td', { class: 'num', text: r.rep }),
          el('td', { class: 'num', text: r['docs.count'] === null ? '' : Number(r['docs.count']).toLocaleString('en-US') }),
          el('td', { class: 'num', text: r['docs.deleted'] === null ? '' : Number(r['docs.deleted']).toLocaleString('en-US') }),
          el('td', { class: 'num', text: fmtBytes(r['store.size']) }),
        );
      }),
    );
    const table = $('#idx-table');
    const old = table.querySelector('tfoot');
    if (old) old.remove();
    table.append(el('tfoot', {}, el('tr', {}, el('td', { colspan: 5, text: rows.length + ' indices' }), el('td', { class: 'num', text: docs.toLocaleString('en-US') }), el('td', {}), el('td', { class: 'num', text: fmtBytes(bytes) }))));
    status.textContent = 'Updated ' + new Date().toLocaleTimeString();
    const dsBody = $('#ds-table tbody');
    if (ds.status === 200 && ds.json && Array.isArray(ds.json.data_streams)) {
      const byIndex = new Map(rows.map((r) => [r.index, r]));
      const list = ds.json.data_streams;
      dsBody.replaceChildren(
        ...(list.length
          ? list.map((d) => {
              const backing = (d.indices || []).map((i) => byIndex.get(i.index_name)).filter(Boolean);
              const dDocs = backing.reduce((n, r) => n + Number(r['docs.count'] || 0), 0);
              const dBytes = backing.reduce((n, r) => n + Number(r['store.size'] || 0), 0);
              return el(
                'tr',
                {},
                el('td', { text: d.name }),
                el('td', {}, el('span', { class: 'health ' + String(d.status || '').toLowerCase() }), d.status || ''),
                el('td', { text: d.template || '' }),
                el('td', { class: 'num', text: d.generation }),
                el('td', { class: 'num', text: (d.indices || []).length }),
                el('td', { class: 'num', text: dDocs.toLocaleString('en-US') }),
                el('td', { class: 'num', text: fmtBytes(dBytes) }),
              );
            })
          : [el('tr', {}, el('td', { colspan: 7, class: 'empty', text: 'No data streams.' }))]),
      );
    } else {
      dsBody.replaceChildren(el('tr', {}, el('td', { colspan: 7, class: 'empty', text: 'Data streams are not available on this node.' })));
    }
  }

  pages.indices = {
    init() {
      $('#idx-refresh').addEventListener('click', refreshIndices);
    },
    enter() {
      refreshIndices();
    },
  };

  // ------------------------------------------------------------------ start

  for (const p of Object.values(pages)) if (p.init) p.init();
  setupLogin();
  showUser();
  window.addEventListener('hashchange', route);
  checkAccess();
})();
