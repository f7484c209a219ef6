// The review page: pick a key, upload a drawing or open a job, look at its
// detections over the drawing, re-filter by confidence, check the take-off
// against the drawing's legend and download it. It uses only the public
// API, as a partner's own code would.
//
// The key comes from the key field or from a review link's single-use
// handoff token (POST /v1/review-links), and is kept in the tab's session
// storage; it is never read from a URL. A link carries #job= and
// #handoff= only; a key in a link (#key=) is ignored and removed from the
// address bar, and a handoff for another key than the one in use asks the
// person first.

import { Client, ApiError, put, exchangeHandoff } from './api.js';
import { t, translate, categoryName, lang } from './i18n.js';
import { Viewer } from './viewer.js';

const KEY_STORAGE = 'blueprint.apiKey';
const POLL_MS = 1000;
const SLIDER_DEBOUNCE_MS = 200;
const LIST_LIMIT = 20;

const $ = (id) => document.getElementById(id);

const state = {
  client: null,
  jobId: null,
  job: null, // the done poll response under the current filter
  page: 0,
  confidence: null, // null: per-class defaults; else the flat floor
  filter: null, // Set of classes shown, null: all
  catalog: null, // class -> catalog symbol
  icons: new Map(), // class -> Promise of an object URL
  listNext: null,
  seq: 0, // increases with every load; stale answers are dropped
};

const viewer = new Viewer({
  viewport: $('viewport'), stage: $('stage'), image: $('page-image'), boxes: $('boxes'),
  tooltip: $('tooltip'), zoomLabel: $('zoom-value'),
}, {
  describe: (d) => `${d.display_name || d.class} · ${formatConf(d.confidence)}`,
  onSelect: showDetails,
});

// ---- status and messages ----

function setStatus(s) { document.body.dataset.status = s; }

function say(text, isError = false) {
  const m = $('message');
  m.textContent = text || '';
  m.classList.toggle('error', isError);
}

function sayError(err) {
  const msg = err instanceof ApiError ? `${err.message} (${err.code})` : String(err && err.message || err);
  say(msg, true);
  setStatus('error');
}

const formatConf = (c) => c.toFixed(2);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- key ----

function useKey(key) {
  key = (key || '').trim();
  if (!key) {
    state.client = null;
    return false;
  }
  sessionStorage.setItem(KEY_STORAGE, key);
  $('api-key').value = key;
  state.client = new Client(key);
  state.catalog = null;
  state.icons.clear();
  return true;
}

// readFragment reads the page's parameters from the URL fragment: job and
// handoff. Neither a key (#key=, which is never used) nor the single-use
// handoff token stays in the address bar: both are replaced away before
// anything else happens.
function readFragment() {
  const f = new URLSearchParams(location.hash.slice(1));
  const link = { job: f.get('job'), handoff: f.get('handoff'), hadKey: f.has('key') };
  if (link.hadKey || link.handoff !== null) {
    f.delete('key');
    f.delete('handoff');
    history.replaceState(null, '', location.pathname + location.search + (f.toString() ? '#' + f : ''));
  }
  return link;
}

// askKeyChange asks, in the page's dialog, whether a review link's key
// may replace the key in use; it resolves true only on the person's yes.
// A link that arrives while the question is open is not followed.
function askKeyChange() {
  const d = $('key-change');
  if (d.open) return Promise.resolve(false);
  return new Promise((resolve) => {
    d.returnValue = '';
    d.addEventListener('close', () => resolve(d.returnValue === 'switch'), { once: true });
    d.showModal();
  });
}

// takeHandoff exchanges a review link's handoff token for its key and
// uses that key, asking first when another key is in use. It returns the
// link's job id ('' for none), or null when the link is not followed
// (refused token or the person kept their key).
async function takeHandoff(token) {
  let res;
  try {
    res = await exchangeHandoff(token);
  } catch (err) {
    const reason = err instanceof ApiError && err.details && err.details.reason;
    say(t('handoff.' + (['used', 'expired'].includes(reason) ? reason : 'unknown')), true);
    setStatus('error');
    return null;
  }
  const inUse = state.client && state.client.key;
  if (inUse && inUse !== res.api_key) {
    if (!(await askKeyChange())) {
      say(t('handoff.kept'));
      return null;
    }
  }
  if (inUse !== res.api_key) {
    useKey(res.api_key);
    state.jobId = null; // a job shown was the other key's: open the link's afresh
    say(t('handoff.taken'));
    loadJobs().catch(sayError);
  }
  return res.job_id || '';
}

// follow acts on a link: a handoff token signs the page in (see
// takeHandoff), then the link's job opens with the key in use.
async function follow(link) {
  let job = link.job;
  if (link.handoff !== null) {
    const linked = await takeHandoff(link.handoff);
    if (linked === null) return;
    job = linked || job;
  }
  if (link.hadKey && !state.client) {
    say(t('keyInLink'), true);
    return;
  }
  if (!job) return;
  if (!state.client) {
    say(t('noKey'), true);
    return;
  }
  if (job !== state.jobId) openJob(job);
}

function setFragmentJob(id) {
  history.replaceState(null, '', location.pathname + location.search + (id ? '#job=' + encodeURIComponent(id) : ''));
}

// ---- catalog and icons ----

async function catalog() {
  if (!state.catalog) {
    const c = await state.client.json('GET', '/v1/symbols');
    state.catalog = new Map(c.symbols.map((s) => [s.class, s]));
  }
  return state.catalog;
}

function icon(cls) {
  const sym = state.catalog && state.catalog.get(cls);
  if (!sym || !sym.icon_url) return Promise.resolve(null);
  if (!state.icons.has(cls)) state.icons.set(cls, state.client.icon(sym.icon_url).catch(() => null));
  return state.icons.get(cls);
}

function iconImg(cls) {
  const img = document.createElement('img');
  img.className = 'icon';
  img.alt = '';
  img.width = img.height = 22;
  icon(cls).then((url) => { if (url) img.src = url; });
  return img;
}

// ---- jobs list ----

async function loadJobs(more = false) {
  if (!state.client) return;
  const list = $('jobs');
  const res = await state.client.list({ limit: LIST_LIMIT, cursor: more ? state.listNext : undefined });
  if (!more) list.replaceChildren();
  for (const j of res.jobs) list.appendChild(jobItem(j));
  if (!list.children.length) {
    const li = document.createElement('li');
    li.className = 'none';
    li.textContent = t('noJobs');
    list.appendChild(li);
  }
  state.listNext = res.next;
  $('jobs-more').hidden = !res.next;
}

function jobItem(j) {
  const li = document.createElement('li');
  const b = document.createElement('button');
  b.type = 'button';
  b.dataset.job = j.job_id;
  const name = document.createElement('span');
  name.className = 'name';
  name.textContent = j.file_name || j.job_id;
  const meta = document.createElement('span');
  meta.className = 'meta';
  meta.textContent = `${t('status.' + j.status)} · ${new Date(j.created_at).toLocaleString(lang)}`;
  b.append(name, meta);
  b.classList.add('status-' + j.status);
  b.addEventListener('click', () => openJob(j.job_id));
  li.appendChild(b);
  return li;
}

// ---- opening a job ----

// waitDone polls a job until it leaves queued/processing, showing
// progress, and returns the last poll response (null once another load
// has started).
async function waitDone(id, seq) {
  for (;;) {
    if (seq !== state.seq) return null;
    const j = await state.client.job(id, state.confidence);
    if (j.status === 'queued') say(t('queued'));
    else if (j.status === 'processing') {
      say(j.pages_total ? t('processing', { d: j.pages_done || 0, t: j.pages_total }) : t('processingStart'));
      if (j.pages_total) {
        $('upload-bar').value = (j.pages_done || 0) / j.pages_total;
      }
    } else return j;
    await sleep(POLL_MS);
  }
}

async function openJob(id) {
  if (!state.client) { say(t('noKey'), true); return; }
  id = id.trim();
  const seq = ++state.seq;
  setStatus('loading');
  say(t('loading'));
  state.jobId = id;
  state.filter = null;
  state.page = 0;
  setFragmentJob(id);
  try {
    await catalog();
    const j = await waitDone(id, seq);
    if (!j || seq !== state.seq) return;
    if (j.status !== 'done') {
      $('job-panel').hidden = true;
      if (j.status === 'failed') say(t('failed', { m: j.error.message }), true);
      else if (j.status === 'expired') say(t('expired', { m: j.expiry_reason }), true);
      else say(t('notDone', { s: t('status.' + j.status) }), true);
      setStatus('error');
      return;
    }
    state.job = j;
    renderJob();
    await showPage(0, seq);
  } catch (err) {
    if (seq === state.seq) sayError(err);
  }
}

function renderJob() {
  const j = state.job;
  $('job-panel').hidden = false;
  // The take-off is what matters now; upload and the list stay a click away.
  $('upload-panel').open = false;
  $('jobs-panel').open = false;
  $('empty').hidden = true;
  $('job-title').textContent = j.file_name || j.job_id;
  $('job-meta').textContent = `${j.page_count} ${t(j.page_count === 1 ? 'onePage' : 'pages')} · ${j.completed_at ? new Date(j.completed_at).toLocaleString(lang) : ''} · ${j.job_id}`;
  renderPages();
  renderTakeoff();
  renderLegend();
  renderConfidence();
}

function renderPages() {
  const nav = $('pages');
  nav.replaceChildren();
  for (const p of state.job.pages) {
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.page = p.page_index;
    b.textContent = `${t('page')} ${p.page_index + 1}` + (p.kind ? ` · ${String(p.kind).replaceAll('_', ' ')}` : '');
    const n = document.createElement('span');
    n.className = 'badge';
    n.textContent = p.detection_count;
    b.appendChild(n);
    b.setAttribute('aria-current', String(p.page_index === state.page));
    b.addEventListener('click', () => {
      const seq = ++state.seq;
      setStatus('loading');
      showPage(p.page_index, seq).catch((err) => { if (seq === state.seq) sayError(err); });
    });
    nav.appendChild(b);
  }
}

// showPage reads a page's detections under the current filter and draws
// them over its image.
async function showPage(index, seq) {
  const p = state.job.pages.find((x) => x.page_index === index);
  const res = await state.client.detections(p.detections_url, state.confidence);
  if (seq !== state.seq) return;
  state.page = index;
  for (const b of $('pages').children) b.setAttribute('aria-current', String(Number(b.dataset.page) === index));
  const cat = state.catalog;
  for (const d of res.detections) if (!d.color && cat.get(d.class)) d.color = cat.get(d.class).color;
  performance.mark('draw-start');
  viewer.show(p, res.detections);
  viewer.setFilter(state.filter);
  performance.measure('draw', 'draw-start');
  $('page-count').textContent = res.total;
  showDetails(null);
  ready();
}

function ready() {
  document.body.dataset.confidence = state.confidence == null ? 'default' : String(state.confidence);
  say('');
  setStatus('ready');
}

// ---- confidence ----

function renderConfidence() {
  const def = state.confidence == null;
  $('confidence-default').setAttribute('aria-pressed', String(def));
  $('confidence').classList.toggle('inactive', def);
  $('confidence-value').textContent = def ? t('confidenceDefault') : formatConf(state.confidence);
  const total = $('total-count');
  total.textContent = state.job.summary.total_detections;
  total.dataset.count = state.job.summary.total_detections;
}

let sliderTimer = 0;

// setConfidence re-reads the summary and the page's detections with
// ?confidence= (null: the per-class defaults) and redraws.
function setConfidence(v) {
  state.confidence = v;
  const seq = ++state.seq;
  setStatus('loading');
  $('confidence-value').textContent = v == null ? t('confidenceDefault') : formatConf(v);
  clearTimeout(sliderTimer);
  sliderTimer = setTimeout(async () => {
    try {
      const j = await state.client.job(state.jobId, v);
      if (seq !== state.seq) return;
      state.job = j;
      renderTakeoff();
      renderLegend();
      renderConfidence();
      renderPages();
      await showPage(state.page, seq);
    } catch (err) {
      if (seq === state.seq) sayError(err);
    }
  }, SLIDER_DEBOUNCE_MS);
}

// ---- take-off tables ----

function renderTakeoff() {
  const s = state.job.summary;
  const cat = state.catalog;
  const body = $('by-symbol').tBodies[0];
  body.replaceChildren();
  if (!s.by_symbol.length) body.appendChild(emptyRow(3, t('noDetections')));
  for (const r of s.by_symbol) {
    const tr = document.createElement('tr');
    tr.dataset.class = r.class;
    const ic = document.createElement('td');
    ic.appendChild(iconImg(r.class));
    const name = document.createElement('td');
    name.textContent = r.display_name || r.class;
    name.title = r.class + (r.talo2010_code ? ` · Talo 2010 ${r.talo2010_code}` : '');
    const n = document.createElement('td');
    n.className = 'num';
    n.textContent = r.count;
    tr.append(ic, name, n);
    tr.addEventListener('click', (e) => toggleFilter([r.class], e.ctrlKey || e.metaKey || e.shiftKey));
    body.appendChild(tr);
  }
  const cbody = $('by-category').tBodies[0];
  cbody.replaceChildren();
  if (!s.by_symbol.length) cbody.appendChild(emptyRow(3, t('noDetections')));
  const entries = Object.entries(s.by_category).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  for (const [key, count] of entries) {
    const classes = s.by_symbol.filter((r) => r.category === key).map((r) => r.class);
    const tr = document.createElement('tr');
    tr.dataset.category = key;
    const sw = document.createElement('td');
    const dot = document.createElement('span');
    dot.className = 'swatch';
    const first = classes.length && cat.get(classes[0]);
    dot.style.background = (first && first.color) || '#888';
    sw.appendChild(dot);
    const name = document.createElement('td');
    name.textContent = categoryName(key);
    const n = document.createElement('td');
    n.className = 'num';
    n.textContent = count;
    tr.append(sw, name, n);
    tr.addEventListener('click', (e) => toggleFilter(classes, e.ctrlKey || e.metaKey || e.shiftKey));
    cbody.appendChild(tr);
  }
  markFilter();
}

function emptyRow(cols, text) {
  const tr = document.createElement('tr');
  tr.className = 'none';
  const td = document.createElement('td');
  td.colSpan = cols;
  td.textContent = text;
  tr.appendChild(td);
  return tr;
}

// toggleFilter shows only classes (again: all); with add, classes join or
// leave the shown set.
function toggleFilter(classes, add) {
  let f = state.filter ? new Set(state.filter) : null;
  const allIn = f && classes.every((c) => f.has(c));
  if (add && f) {
    for (const c of classes) allIn ? f.delete(c) : f.add(c);
    if (!f.size) f = null;
  } else if (allIn && f.size === classes.length) {
    f = null;
  } else {
    f = new Set(classes);
  }
  state.filter = f;
  viewer.setFilter(f);
  markFilter();
}

function markFilter() {
  const f = state.filter;
  for (const tr of $('by-symbol').tBodies[0].rows) tr.classList.toggle('off', !!f && !f.has(tr.dataset.class));
  for (const tr of $('by-category').tBodies[0].rows) {
    const classes = state.job.summary.by_symbol.filter((r) => r.category === tr.dataset.category).map((r) => r.class);
    tr.classList.toggle('off', !!f && !classes.some((c) => f.has(c)));
  }
  $('show-all').hidden = !f;
}

function showTab(which) {
  const sym = which === 'symbol';
  $('tab-symbol').setAttribute('aria-selected', String(sym));
  $('tab-category').setAttribute('aria-selected', String(!sym));
  $('by-symbol').hidden = !sym;
  $('by-category').hidden = sym;
}

// ---- legend (an additive field: shown only where the service sends it) ----

function renderLegend() {
  const rows = state.job.legend;
  $('legend-section').hidden = !Array.isArray(rows) || rows.length === 0;
  if ($('legend-section').hidden) return;
  const names = new Map(state.job.summary.by_symbol.map((r) => [r.class, r.display_name]));
  const multi = state.job.pages.length > 1;
  const body = $('legend').tBodies[0];
  body.replaceChildren();
  for (const r of rows) {
    const tr = document.createElement('tr');
    const desc = document.createElement('td');
    const d = document.createElement('div');
    d.textContent = (multi ? `${t('page')} ${r.page_index + 1}: ` : '') + r.description;
    const c = document.createElement('div');
    c.className = 'sub';
    if (r.class) {
      const sym = state.catalog.get(r.class);
      c.textContent = names.get(r.class) || (sym && sym.display_name) || r.class;
      tr.dataset.class = r.class;
      tr.addEventListener('click', (e) => toggleFilter([r.class], e.ctrlKey || e.metaKey || e.shiftKey));
    } else {
      c.textContent = t('noClass');
      c.classList.add('unmapped');
    }
    desc.append(d, c);
    const printed = document.createElement('td');
    printed.className = 'num';
    printed.textContent = r.printed_quantity == null ? '—' : r.printed_quantity;
    const found = document.createElement('td');
    found.className = 'num';
    found.textContent = r.detected;
    if (r.printed_quantity != null && r.printed_quantity !== r.detected) {
      tr.classList.add('mismatch');
      found.title = t('mismatch');
      found.textContent = `⚠ ${r.detected}`;
    }
    tr.append(desc, printed, found);
    body.appendChild(tr);
  }
}

// ---- details of a box ----

function showDetails(d) {
  const box = $('details');
  viewer.select(d ? viewer.detections.indexOf(d) : null);
  if (!d) {
    box.hidden = true;
    return;
  }
  box.replaceChildren();
  const h = document.createElement('h3');
  h.append(iconImg(d.class), ' ', d.display_name || d.class);
  const dl = document.createElement('dl');
  const src = [d.source.vector_matching && t('vector'), d.source.detector && t('detector')].filter(Boolean).join(', ');
  const b = d.bbox_px;
  for (const [k, v] of [[t('className'), d.class], [t('category'), categoryName(d.category)],
    [t('conf'), formatConf(d.confidence)], [t('source'), src || '—'],
    [t('box'), `${Math.round(b.x)}, ${Math.round(b.y)} · ${Math.round(b.width)} × ${Math.round(b.height)}`]]) {
    const dt = document.createElement('dt');
    dt.textContent = k;
    const dd = document.createElement('dd');
    dd.textContent = v;
    dl.append(dt, dd);
  }
  box.append(h, dl);
  box.hidden = false;
}

// ---- upload ----

const MIME_BY_EXT = { pdf: 'application/pdf', png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp' };

async function upload(file) {
  if (!state.client) { say(t('noKey'), true); return; }
  if (!file) { say(t('chooseFile'), true); return; }
  const mime = file.type || MIME_BY_EXT[file.name.split('.').pop().toLowerCase()] || 'application/octet-stream';
  const bar = $('upload-bar');
  $('upload-progress').hidden = false;
  bar.value = 0;
  setStatus('uploading');
  const status = (s) => { $('upload-status').textContent = s; say(''); };
  try {
    status(t('creating'));
    const created = await state.client.init({ file_name: file.name, mime_type: mime, size: file.size });
    await put(created.upload, file, (f) => { bar.value = f; status(t('uploading', { p: Math.round(f * 100) })); });
    status(t('starting'));
    await state.client.start(created.job_id);
    bar.removeAttribute('value'); // indeterminate until pages are counted
    setFragmentJob(created.job_id);
    loadJobs().catch(() => {});
    status(t('processingStart'));
    await openJob(created.job_id);
    status(document.body.dataset.status === 'ready' ? t('done') : '');
    bar.value = 1;
    loadJobs().catch(() => {});
  } catch (err) {
    status('');
    sayError(err);
  }
}

// ---- downloads ----

async function download(format) {
  try {
    const { blob, name } = await state.client.takeoff(state.jobId, format, state.confidence);
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
    say(t('downloaded', { f: name }));
  } catch (err) {
    sayError(err);
  }
}

// ---- wiring ----

function bind() {
  $('key-form').addEventListener('submit', (e) => {
    e.preventDefault();
    if (!useKey($('api-key').value)) { say(t('noKey'), true); return; }
    say(t('keySaved'));
    loadJobs().catch(sayError);
  });
  $('forget-key').addEventListener('click', () => {
    sessionStorage.removeItem(KEY_STORAGE);
    $('api-key').value = '';
    state.client = null;
    $('jobs').replaceChildren();
    say(t('keyForgotten'));
  });
  $('upload-form').addEventListener('submit', (e) => {
    e.preventDefault();
    upload($('upload-file').files[0]);
  });
  $('open-form').addEventListener('submit', (e) => {
    e.preventDefault();
    if ($('open-id').value.trim()) openJob($('open-id').value);
  });
  $('jobs-more').addEventListener('click', () => loadJobs(true).catch(sayError));
  const slider = $('confidence');
  slider.addEventListener('input', () => setConfidence(Number(slider.value)));
  $('confidence-default').addEventListener('click', () => setConfidence(null));
  $('tab-symbol').addEventListener('click', () => showTab('symbol'));
  $('tab-category').addEventListener('click', () => showTab('category'));
  $('show-all').addEventListener('click', () => { state.filter = null; viewer.setFilter(null); markFilter(); });
  $('download-csv').addEventListener('click', () => download('csv'));
  $('download-xlsx').addEventListener('click', () => download('xlsx'));
  $('zoom-in').addEventListener('click', () => viewer.zoomCenter(1.25));
  $('zoom-out').addEventListener('click', () => viewer.zoomCenter(0.8));
  $('zoom-fit').addEventListener('click', () => viewer.fit());
  $('key-keep').addEventListener('click', () => $('key-change').close('keep'));
  $('key-switch').addEventListener('click', () => $('key-change').close('switch'));
  // A later link in the same tab: a key in it is ignored, and a handoff
  // changes the key in use only when the person agrees.
  window.addEventListener('hashchange', () => follow(readFragment()));
}

function main(link) {
  translate(document);
  bind();
  useKey(sessionStorage.getItem(KEY_STORAGE));
  if (state.client) loadJobs().catch(sayError);
  follow(link);
}

// The fragment is read (and any key or handoff in it replaced out of the
// address bar) before anything else.
main(readFragment());
