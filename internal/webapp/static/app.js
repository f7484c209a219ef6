// The review page: pick a key, upload a drawing or open a job, look at its
// detections over the drawing, re-filter by confidence, check the take-off
// against the drawing's legend, correct the detections (accept, reject,
// change a class, add a missed symbol, find more like one) and download
// the take-off. It uses only the public API, as a partner's own code would.
//
// The key comes from the key field, and is kept in the tab's session
// storage; it is never read from a URL. A review link (POST
// /v1/review-links) carries #job= and #handoff= only: the page trades the
// single-use handoff token for a review credential of that one job
// (never the key), sent in X-API-Key like a key and kept the same way,
// with which the page shows that job only (no job list, no upload). A key
// in a link (#key=) is ignored and removed from the address bar. A link
// while the person's key is in use opens its job with that key when the
// key reaches it, and otherwise asks the person first; a link while a
// credential is in use replaces it (a link grants no more than the one
// it replaces).

import { Client, ApiError, put, exchangeHandoff } from './api.js';
import { t, translate, categoryName, lang } from './i18n.js';
import { Viewer } from './viewer.js';

const KEY_STORAGE = 'blueprint.apiKey';
// REVIEW_STORAGE holds {job_id, expires_at} while the key in use is a
// review credential.
const REVIEW_STORAGE = 'blueprint.review';
const POLL_MS = 1000;
const SLIDER_DEBOUNCE_MS = 200;
const LIST_LIMIT = 20;
// MAX_ADD is the most detections one POST .../detections creates.
const MAX_ADD = 500;
// Page kinds the take-off counts (a legend, schedule or riser sheet is
// read, not counted); a page without a kind is counted.
const COUNTED_KINDS = new Set(['floor_plan', 'image']);
// READING_BAND is the height (a fraction of the page) of the rows that
// order boxes for next/previous: left to right within a band, bands top
// to bottom.
const READING_BAND = 0.02;
// GLYPH_W x GLYPH_H is the cell a legend row's glyph is shown in (CSS px),
// with GLYPH_PAD of the glyph's size around it.
const GLYPH_W = 44;
const GLYPH_H = 30;
const GLYPH_PAD = 0.15;

const $ = (id) => document.getElementById(id);

const state = {
  client: null,
  review: null, // {job_id, expires_at} while a review credential is in use
  jobId: null,
  job: null, // the done poll response under the current filter
  page: 0,
  confidence: null, // null: per-class defaults; else the flat floor
  filter: null, // Set of classes shown, null: all
  legendRow: null, // index of the legend row whose detections are shown, null: none
  pages: new Map(), // page_index -> that page's detections (rejected ones too), under the filter
  jobNames: new Map(), // job_id -> file name, of the jobs listed
  pagesKey: 0, // increases whenever the cached pages go stale
  draft: null, // {page, bbox_norm}: a box drawn by the person, not yet added
  search: null, // the matches of "find more like this", see runSearch
  lastClass: null, // the class last chosen in the picker
  pending: 0, // review, add and search requests in flight
  catalog: null, // class -> catalog symbol
  icons: new Map(), // class -> Promise of an object URL
  listNext: null,
  seq: 0, // increases with every load; stale answers are dropped
};

const viewer = new Viewer({
  viewport: $('viewport'), stage: $('stage'), image: $('page-image'), boxes: $('boxes'),
  matches: $('matches'), draft: $('draft'), tooltip: $('tooltip'), zoomLabel: $('zoom-value'),
}, {
  describe: (d) => `${d.display_name || d.class} · ${formatConf(d.confidence)}` + (decisionOf(d) ? ` · ${t('decision.' + decisionOf(d))}` : ''),
  // A box clicked: its details, brought into view in the side panel.
  onSelect: (d) => {
    showDetails(d);
    if (d) $('details').scrollIntoView({ block: 'nearest' });
  },
  onDraw: drawn,
  onMatch: toggleMatch,
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

// useKey makes key the one in use: the partner's key, or with review
// ({job_id, expires_at}) a review link's credential for that job.
function useKey(key, review = null) {
  key = (key || '').trim();
  if (!key) {
    state.client = null;
    setReview(null);
    return false;
  }
  sessionStorage.setItem(KEY_STORAGE, key);
  setReview(review);
  // A credential is not the person's key: the key field stays theirs.
  $('api-key').value = review ? '' : key;
  state.client = new Client(key);
  state.catalog = null;
  state.icons.clear();
  return true;
}

// setReview records (and shows) whether the key in use is a review
// credential: the job list and the upload, which need the key, are hidden.
function setReview(review) {
  state.review = review;
  if (review) sessionStorage.setItem(REVIEW_STORAGE, JSON.stringify(review));
  else sessionStorage.removeItem(REVIEW_STORAGE);
  document.body.dataset.access = review ? 'review' : 'key';
  const note = $('review-note');
  note.hidden = !review;
  note.textContent = review ? t('reviewAccess', { t: new Date(review.expires_at).toLocaleString(lang) }) : '';
  if (review) $('jobs').replaceChildren();
}

// storedReview is the review credential's record kept in this tab, or null.
function storedReview() {
  try {
    const r = JSON.parse(sessionStorage.getItem(REVIEW_STORAGE) || 'null');
    return r && typeof r.job_id === 'string' ? r : null;
  } catch {
    return null;
  }
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

// takeHandoff exchanges a review link's handoff token for a review
// credential of the link's job and uses it. A key in use that reaches the
// job is kept (the job just opens); another key in use is replaced only
// if the person agrees; a credential in use is replaced. It returns the
// link's job id, or null when the link is not followed (refused token or
// the person kept their key).
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
  const credential = res.credential || res.api_key;
  const review = { job_id: res.job_id, expires_at: res.expires_at };
  if (state.client && !state.review) {
    // The person's key: when it reaches the link's job, nothing changes.
    try {
      await state.client.job(res.job_id);
      say(t('handoff.covered'));
      return res.job_id;
    } catch { /* another key's job: ask */ }
  }
  if (state.client && !state.review && !(await askKeyChange())) {
    say(t('handoff.kept'));
    return null;
  }
  const sameJob = state.review && state.review.job_id === res.job_id;
  useKey(credential, review);
  if (!sameJob) state.jobId = null; // open the link's job afresh
  say(t('handoff.taken', { t: new Date(res.expires_at).toLocaleString(lang) }));
  return res.job_id;
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
  if (!state.client || state.review) return; // a review credential lists nothing
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
  for (const j of res.jobs) state.jobNames.set(j.job_id, j.file_name || j.job_id);
  referenceChoices(res.jobs, more);
}

// referenceChoices offers the key's done jobs listed so far in the
// upload's "Count with the legend of" (init's reference_jobs): a plan
// sent alone is then counted by the glyphs of that job's legend. The
// choice made stays while the list grows or reloads.
function referenceChoices(jobs, more) {
  const sel = $('upload-reference');
  const keep = sel.value;
  if (!more) while (sel.options.length > 1) sel.remove(1);
  for (const j of jobs) {
    if (j.status !== 'done' || [...sel.options].some((o) => o.value === j.job_id)) continue;
    const o = document.createElement('option');
    o.value = j.job_id;
    o.textContent = `${j.file_name || j.job_id} · ${new Date(j.created_at).toLocaleString(lang)}`;
    sel.appendChild(o);
  }
  sel.value = [...sel.options].some((o) => o.value === keep) ? keep : '';
  $('upload-reference-row').hidden = sel.options.length < 2;
}

// jobName is a job's file name where the job list has shown it, else its id.
const jobName = (id) => state.jobNames.get(id) || id;

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
    if (seq !== state.seq) return null;
    if (j.status === 'queued') say(t('queued'));
    else if (j.status === 'processing') {
      say(j.pages_total ? t('processing', { d: j.pages_done || 0, t: j.pages_total }) : t('processingStart'));
      if (j.pages_total) {
        $('upload-bar').value = (j.pages_done || 0) / j.pages_total;
      }
    } else {
      $('progress-view').hidden = true;
      return j;
    }
    showProgress(j);
    await sleep(POLL_MS);
  }
}

// showProgress shows a queued or processing job in place of the drawing:
// its name, pages done of the total, and one cell per page, filled for
// each page the poll lists in pages_finished (pages finish in any order);
// a poll without that list (a job whose progress predates it) fills as
// many cells as are done, from the first.
function showProgress(j) {
  $('empty').hidden = true;
  $('stage').hidden = true;
  $('progress-view').hidden = false;
  $('progress-view').dataset.status = j.status;
  const f = j.file_name || j.job_id;
  $('progress-title').textContent = t(j.status === 'queued' ? 'queuedTitle' : 'processingTitle', { f });
  const total = j.pages_total || 0, done = j.pages_done || 0;
  $('progress-text').textContent = total ? t('processingPages', { d: done, t: total }) : t(j.status === 'queued' ? 'queued' : 'processingStart');
  const cells = $('progress-pages');
  if (cells.children.length !== total) {
    cells.replaceChildren(...Array.from({ length: total }, () => document.createElement('span')));
  }
  const finished = Array.isArray(j.pages_finished) ? new Set(j.pages_finished) : null;
  [...cells.children].forEach((c, i) => c.classList.toggle('done', finished ? finished.has(i) : i < done));
  cells.dataset.done = done;
}

async function openJob(id) {
  if (!state.client) { say(t('noKey'), true); return; }
  id = id.trim();
  const seq = ++state.seq;
  setStatus('loading');
  say(t('loading'));
  state.jobId = id;
  state.filter = null;
  state.legendRow = null;
  state.page = 0;
  dropPages();
  closeSearch();
  cancelDraft();
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
    $('stage').hidden = false;
    state.page = firstPage(j);
    renderJob();
    await showPage(state.page, seq);
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
  renderWarnings();
  renderConfidence();
}

// counted reports whether the take-off counts a page's detections.
const counted = (p) => !p.kind || COUNTED_KINDS.has(p.kind);

// firstPage is the page a job opens on: the first counted page with
// detections, else the first counted page, else the first.
function firstPage(j) {
  const ps = j.pages;
  const p = ps.find((x) => counted(x) && x.detection_count > 0) || ps.find(counted) || ps[0];
  return p ? p.page_index : 0;
}

const pageOf = (index) => state.job.pages.find((x) => x.page_index === index);

// renderPages draws one tab per page. The tabs wrap and scroll (CSS), so
// every page stays reachable however many there are.
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
    b.classList.toggle('uncounted', !counted(p));
    b.setAttribute('aria-current', String(p.page_index === state.page));
    b.addEventListener('click', () => goPage(p.page_index).catch(() => {}));
    nav.appendChild(b);
  }
}

// renderBadges writes each page's detection_count on its tab.
function renderBadges() {
  for (const b of $('pages').children) {
    const p = pageOf(Number(b.dataset.page));
    if (p) b.querySelector('.badge').textContent = p.detection_count;
  }
}

// goPage shows page index; it resolves true when the page is shown (false
// when another load overtook it).
async function goPage(index) {
  const seq = ++state.seq;
  setStatus('loading');
  try {
    await showPage(index, seq);
  } catch (err) {
    if (seq === state.seq) sayError(err);
    throw err;
  }
  return seq === state.seq;
}

function dropPages() {
  state.pages = new Map();
  state.pagesKey++;
}

// pageDetections reads (once, then from the cache) every detection of a
// page under the confidence filter, rejected ones included, in reading
// order.
async function pageDetections(index) {
  if (state.pages.has(index)) return state.pages.get(index);
  const key = state.pagesKey;
  const res = await state.client.detections(pageOf(index).detections_url, state.confidence, true);
  const dets = res.detections;
  for (const d of dets) colour(d);
  const band = (d) => Math.floor((d.bbox_norm.y + d.bbox_norm.height / 2) / READING_BAND);
  dets.sort((a, b) => band(a) - band(b) || a.bbox_norm.x - b.bbox_norm.x);
  if (key !== state.pagesKey) return dets;
  if (!state.pages.has(index)) state.pages.set(index, dets);
  return state.pages.get(index);
}

// colour gives a detection its class's catalog colour when it has none.
function colour(d) {
  const sym = state.catalog && state.catalog.get(d.class);
  if (!d.color && sym) d.color = sym.color;
}

// showPage draws a page's detections over its image.
async function showPage(index, seq) {
  const p = pageOf(index);
  const dets = await pageDetections(index);
  if (seq !== state.seq) return;
  state.page = index;
  for (const b of $('pages').children) {
    const cur = Number(b.dataset.page) === index;
    b.setAttribute('aria-current', String(cur));
    if (cur) b.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }
  cancelDraft();
  performance.mark('draw-start');
  viewer.show(p, dets);
  viewer.setFilter(keepFn());
  performance.measure('draw', 'draw-start');
  showMatches();
  renderPageCount();
  renderLegend();
  renderWarnings();
  showDetails(null);
  ready();
}

// renderPageCount shows the count of the page on view: its detections
// the take-off counts.
function renderPageCount() {
  $('page-count').textContent = viewer.detections.filter(counts).length;
}

function ready() {
  document.body.dataset.page = state.page;
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
      dropPages();
      renderTakeoff();
      renderLegend();
  renderWarnings();
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

// keepFn is the viewer's filter: the classes picked in the take-off, or
// the detections of the legend row opened (those of its class; where a
// detection says which legend row it counts for, that row's).
function keepFn() {
  const f = state.filter, row = state.legendRow;
  if (!f && row == null) return null;
  return (d) => (!f || f.has(d.class)) && (row == null || d.legend_row == null || d.legend_row === row);
}

// toggleFilter shows only classes (again: all); with add, classes join or
// leave the shown set.
function toggleFilter(classes, add) {
  state.legendRow = null;
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
  viewer.setFilter(keepFn());
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
  for (const tr of $('legend').tBodies[0].rows) tr.classList.toggle('open', state.legendRow != null && Number(tr.dataset.row) === state.legendRow);
}

function showTab(which) {
  const sym = which === 'symbol';
  $('tab-symbol').setAttribute('aria-selected', String(sym));
  $('tab-category').setAttribute('aria-selected', String(!sym));
  $('by-symbol').hidden = !sym;
  $('by-category').hidden = sym;
}

// ---- warnings (an additive field: what the take-off cannot stand behind) ----

// renderWarnings lists the job's warnings of the page shown and of the
// whole document (page_index null), in the service's words.
function renderWarnings() {
  const all = Array.isArray(state.job.warnings) ? state.job.warnings : [];
  const shown = all.filter((w) => w.page_index == null || w.page_index === state.page);
  $('warnings-section').hidden = shown.length === 0;
  const list = $('warnings');
  list.replaceChildren();
  for (const w of shown) {
    const li = document.createElement('li');
    li.dataset.code = w.code;
    li.textContent = w.message;
    list.appendChild(li);
  }
}

// ---- legend (an additive field: shown only where the service sends it) ----

function renderLegend() {
  const rows = state.job.legend;
  $('legend-section').hidden = !Array.isArray(rows) || rows.length === 0;
  if ($('legend-section').hidden) return;
  const names = new Map(state.job.summary.by_symbol.map((r) => [r.class, r.display_name]));
  const view = legendView(rows);
  const multi = state.job.pages.length > 1;
  $('legend-scope').hidden = !multi;
  $('legend-scope').textContent = view.here ? t('legendHere') : t('legendAll');
  const body = $('legend').tBodies[0];
  body.replaceChildren();
  for (const g of view.groups) {
    const r = g.row;
    const tr = document.createElement('tr');
    tr.dataset.row = g.first;
    tr.dataset.pages = g.pages.join(' ');
    const glyph = document.createElement('td');
    glyph.className = 'glyph-cell';
    glyph.appendChild(legendGlyph(r));
    const desc = document.createElement('td');
    const d = document.createElement('div');
    // reference_job (additive): a row lent by another job's legend; its
    // pages are that job's.
    const where = r.reference_job ? `${t('fromJob', { j: jobName(r.reference_job) })}: ` : (multi && !view.here ? `${pagesLabel(g.pages)}: ` : '');
    d.textContent = where + r.description;
    if (r.reference_job) tr.dataset.reference = r.reference_job;
    const c = document.createElement('div');
    c.className = 'sub';
    if (r.class) {
      const sym = state.catalog.get(r.class);
      c.textContent = names.get(r.class) || (sym && sym.display_name) || r.class;
      tr.dataset.class = r.class;
      tr.addEventListener('click', () => openLegendRow(g.first));
    } else {
      c.textContent = t('noClass');
      c.classList.add('unmapped');
    }
    desc.append(d, c);
    // code, tag and part_number: additive fields, shown where the service
    // sends them (code: a schedule row's product code, written beside
    // its devices on the plans).
    const ids = [[r.code, 'code'], [r.tag, 'tag'], [r.part_number, 'part']].filter(([v]) => v != null && v !== '');
    if (ids.length) {
      const idl = document.createElement('div');
      idl.className = 'sub ids';
      for (const [v, cls] of ids) {
        const sp = document.createElement('span');
        sp.className = cls;
        sp.textContent = `${t({ code: 'code', tag: 'tag', part: 'partNumber' }[cls])} ${v}`;
        idl.appendChild(sp);
      }
      desc.appendChild(idl);
    }
    const printed = document.createElement('td');
    printed.className = 'num';
    printed.textContent = g.printed == null ? '—' : g.printed;
    const found = document.createElement('td');
    found.className = 'num';
    found.textContent = g.detected;
    if (g.printed != null && g.printed !== g.detected) {
      tr.classList.add('mismatch');
      found.title = t('mismatch');
      found.textContent = `⚠ ${g.detected}`;
    }
    // tagged and agreement: additive; the count's witnesses where tags
    // on the plan named devices (schedule rows, tagged finds).
    if ((r.source === 'schedule' || g.tagged > 0) && Number.isInteger(g.tagged)) {
      const w = document.createElement('div');
      w.className = 'sub witnesses';
      w.textContent = `${t('tagged')} ${g.tagged}` + (r.agreement && view.here ? ` · ${t('agreement')}: ${t('agree_' + r.agreement)}` : '');
      desc.appendChild(w);
    }
    tr.append(glyph, desc, printed, found);
    body.appendChild(tr);
  }
  markFilter();
}

// legendView is what the legend panel lists: the rows drawn on the page
// shown (here), each with that sheet's printed quantity and count; on a
// page that draws none, each distinct row of the document once (a legend
// drawn on several sheets repeats its rows: repeat_of, an additive field,
// points a copy at the first), with the pages it is drawn on, its found
// summed over them and its printed quantity summed where every copy
// prints one. A group is known by its first row's index (first).
function legendView(rows) {
  const firstOf = (r, i) => (Number.isInteger(r.repeat_of) ? r.repeat_of : i);
  const here = [];
  // The rows another job lent (reference_job, additive) count on every
  // page: they are listed on each, after the page's own.
  rows.forEach((r, i) => {
    if (r.page_index === state.page && !r.reference_job) here.push({ first: firstOf(r, i), row: r, pages: [r.page_index], printed: r.printed_quantity, detected: r.detected, tagged: r.tagged });
  });
  if (here.length) {
    rows.forEach((r, i) => {
      if (r.reference_job) here.push({ first: i, row: r, pages: [], printed: r.printed_quantity, detected: r.detected });
    });
    return { here: true, groups: here };
  }
  const groups = new Map();
  rows.forEach((r, i) => {
    const f = firstOf(r, i);
    let g = groups.get(f);
    if (!g) {
      g = { first: f, row: rows[f] || r, pages: [], printed: 0, detected: 0, tagged: 0 };
      groups.set(f, g);
    }
    if (!g.pages.includes(r.page_index)) g.pages.push(r.page_index);
    g.detected += r.detected;
    // tagged: additive, absent on older services.
    if (Number.isInteger(r.tagged)) g.tagged += r.tagged;
    g.printed = g.printed == null || r.printed_quantity == null ? null : g.printed + r.printed_quantity;
  });
  return { here: false, groups: [...groups.values()] };
}

// pagesLabel names pages (indexes from 0) as runs from 1: "Page 2",
// "Pages 4–7", "Pages 1, 3".
function pagesLabel(ps) {
  const s = [...ps].sort((a, b) => a - b);
  const parts = [];
  for (let i = 0; i < s.length;) {
    let j = i;
    while (j + 1 < s.length && s[j + 1] === s[j] + 1) j++;
    parts.push(j > i ? `${s[i] + 1}–${s[j] + 1}` : `${s[i] + 1}`);
    i = j + 1;
  }
  return `${t(s.length === 1 ? 'page' : 'pagesTitle')} ${parts.join(', ')}`;
}

// legendGlyph shows a legend row's glyph cut from its page's image, where
// the row carries glyph_bbox_norm (the glyph's box on the legend's page);
// otherwise the catalog icon of its class, or nothing.
function legendGlyph(r) {
  const p = pageOf(r.page_index);
  const b = r.glyph_bbox_norm;
  if (b && p && p.image_url && b.width > 0 && b.height > 0) {
    const W = p.width_px, H = p.height_px;
    const pad = Math.max(b.width * W, b.height * H) * GLYPH_PAD;
    const gx = b.x * W - pad, gy = b.y * H - pad, gw = b.width * W + 2 * pad, gh = b.height * H + 2 * pad;
    const k = Math.min(GLYPH_W / gw, GLYPH_H / gh);
    const el = document.createElement('div');
    el.className = 'glyph';
    el.title = t('legendGlyph');
    el.style.width = `${gw * k}px`;
    el.style.height = `${gh * k}px`;
    el.style.backgroundImage = `url(${JSON.stringify(p.image_url)})`;
    el.style.backgroundSize = `${W * k}px ${H * k}px`;
    el.style.backgroundPosition = `${-gx * k}px ${-gy * k}px`;
    return el;
  }
  if (r.class) {
    const img = iconImg(r.class);
    img.classList.add('catalog-icon');
    return img;
  }
  return document.createElement('span');
}

// openLegendRow shows only the detections of legend row i and goes to
// the first of them; opened again, to the next.
async function openLegendRow(i) {
  const r = state.job.legend[i];
  if (!r || !r.class) return;
  const again = state.legendRow === i;
  state.legendRow = i;
  state.filter = new Set([r.class]);
  viewer.setFilter(keepFn());
  markFilter();
  if (!again) viewer.select(null);
  await nav(1, false);
}

// ---- details of a box ----

function showDetails(d) {
  const box = $('details');
  const i = d ? viewer.detections.indexOf(d) : -1;
  viewer.select(i >= 0 ? i : null);
  if (!d) {
    box.hidden = true;
    return;
  }
  box.replaceChildren();
  box.dataset.id = d.id;
  const h = document.createElement('h3');
  h.append(iconImg(d.class), ' ', d.display_name || d.class);
  const dl = document.createElement('dl');
  const src = [d.source.vector_matching && t('vector'), d.source.detector && t('detector')].filter(Boolean).join(', ');
  const b = d.bbox_px;
  const decision = decisionOf(d);
  for (const [k, v] of [[t('className'), d.class], [t('category'), categoryName(d.category)],
    [t('conf'), formatConf(d.confidence)], [t('source'), src || '—'],
    [t('box'), `${Math.round(b.x)}, ${Math.round(b.y)} · ${Math.round(b.width)} × ${Math.round(b.height)}`],
    ...(d.withheld && !decision ? [[t('withheldState'), t('withheld.' + d.withheld)]] : []),
    [t('reviewState'), t('decision.' + (decision || 'none'))]]) {
    const dt = document.createElement('dt');
    dt.textContent = k;
    const dd = document.createElement('dd');
    dd.textContent = v;
    dl.append(dt, dd);
  }
  dl.lastChild.className = 'decision';
  const actions = document.createElement('div');
  actions.className = 'actions';
  const button = (id, label, key, pressed, fn) => {
    const btn = document.createElement('button');
    btn.type = 'button';
    btn.id = id;
    btn.textContent = label;
    const k = document.createElement('kbd');
    k.textContent = key;
    btn.append(' ', k);
    if (pressed != null) {
      btn.classList.add('toggle');
      btn.setAttribute('aria-pressed', String(pressed));
    }
    btn.addEventListener('click', fn);
    actions.appendChild(btn);
  };
  button('review-accept', t('accept'), 'a', decision === 'accepted', () => acceptSelected());
  button('review-reject', t('reject'), 'x', decision === 'rejected', () => rejectSelected());
  button('review-class', t('changeClass'), 'c', null, () => changeSelectedClass());
  box.append(h, dl, actions);
  box.hidden = false;
}

// ---- reviews ----

const decisionOf = (d) => (d && d.review && d.review.decision) || null;

// counts says whether the take-off counts d: not rejected, and not
// withheld (a flooded legend row's match, a guess at a class no legend
// row names) unless a reviewer accepted it.
const counts = (d) => {
  const dec = decisionOf(d);
  return dec === 'accepted' || dec === 'added' || (dec !== 'rejected' && !d.withheld);
};

// track counts a request in flight on the page (body data-pending), so
// that a person (and a test) can tell when the page has caught up.
async function track(promise) {
  state.pending++;
  document.body.dataset.pending = state.pending;
  try {
    return await promise;
  } finally {
    state.pending--;
    document.body.dataset.pending = state.pending;
  }
}

function selectedDetection() {
  const i = viewer.selected;
  return i == null ? null : viewer.detections[i];
}

// accept and reject toggle: a second press withdraws the decision.
function acceptSelected() {
  const d = selectedDetection();
  if (!d) { say(t('selectFirst')); return; }
  review(d, { decision: decisionOf(d) === 'accepted' ? null : 'accepted' });
}

function rejectSelected() {
  const d = selectedDetection();
  if (!d) { say(t('selectFirst')); return; }
  review(d, { decision: decisionOf(d) === 'rejected' ? null : 'rejected' });
}

async function changeSelectedClass() {
  const d = selectedDetection();
  if (!d) { say(t('selectFirst')); return; }
  const cls = await pickClass(d.class);
  if (cls && cls !== d.class) review(d, { class: cls });
}

// review sends a decision and/or class for detection d of the page on
// view, and updates the box, the counts and the details from the answer.
async function review(d, change) {
  const page = state.page;
  const before = { class: d.class, category: d.category, counts: counts(d) };
  try {
    const v = await track(state.client.review(state.jobId, page, d.id, change));
    Object.assign(d, v);
    if (v.review === undefined) delete d.review;
    if (v.withheld === undefined) delete d.withheld;
    colour(d);
    const i = viewer.detections.indexOf(d);
    if (i >= 0) viewer.update(i);
    recount(page, before, d);
    if (viewer.selected === i && i >= 0) showDetails(d);
    const dec = decisionOf(d);
    say(change.class ? t('classChanged', { c: d.display_name || d.class }) : t('reviewed', { d: d.display_name || d.class, c: t('decision.' + (dec || 'none')) }));
    refreshJob();
  } catch (err) {
    sayError(err);
  }
}

// recount moves one detection's count in what the page shows, at once,
// from its state before a review to after; refreshJob then reads every
// count (the legend's too) from the service.
function recount(page, before, d) {
  const after = counts(d);
  if (before && before.counts) bump(page, before.class, before.category, -1);
  if (after) bump(page, d.class, d.category, 1);
  renderCounts();
}

function bump(page, cls, category, k) {
  const s = state.job.summary;
  s.total_detections += k;
  let row = s.by_symbol.find((r) => r.class === cls);
  if (!row && k > 0) {
    const sym = state.catalog.get(cls) || {};
    row = { class: cls, display_name: sym.display_name, category: sym.category, talo2010_code: sym.talo2010_code, count: 0 };
    s.by_symbol.push(row);
  }
  if (row) row.count += k;
  s.by_symbol = s.by_symbol.filter((r) => r.count > 0).sort((a, b) => b.count - a.count);
  const cat = category || (row && row.category);
  if (cat) {
    s.by_category[cat] = (s.by_category[cat] || 0) + k;
    if (s.by_category[cat] <= 0) delete s.by_category[cat];
  }
  const p = pageOf(page);
  if (p) p.detection_count += k;
}

// renderCounts redraws every count the page shows from state.job.
function renderCounts() {
  renderTakeoff();
  renderLegend();
  renderWarnings();
  renderConfidence();
  renderBadges();
  renderReviewCounts();
  renderPageCount();
}

function renderReviewCounts() {
  const r = state.job.review;
  const el = $('review-counts');
  el.hidden = !r || (!r.accepted && !r.rejected && !r.added);
  if (!el.hidden) el.textContent = t('reviewCounts', { a: r.accepted, r: r.rejected, n: r.added });
}

let refreshing = null;
let refreshAgain = false;

// refreshJob re-reads the job after reviews (one poll at a time; reviews
// made meanwhile are covered by one more) and redraws every count.
function refreshJob() {
  if (refreshing) {
    refreshAgain = true;
    return refreshing;
  }
  const id = state.jobId;
  refreshing = track((async () => {
    do {
      refreshAgain = false;
      const j = await state.client.job(id, state.confidence);
      if (id !== state.jobId || j.status !== 'done') return;
      state.job = j;
      renderCounts();
    } while (refreshAgain);
  })()).catch(sayError).finally(() => { refreshing = null; });
  return refreshing;
}

// addDetections creates detections of class cls at boxes (bbox_norm) on
// page, at most MAX_ADD a request, and returns them as created.
async function addDetections(page, cls, boxes) {
  const created = [];
  for (let i = 0; i < boxes.length; i += MAX_ADD) {
    const items = boxes.slice(i, i + MAX_ADD).map((b) => ({ class: cls, bbox_norm: inPage(b) }));
    created.push(...await track(state.client.add(state.jobId, page, items)));
  }
  for (const d of created) colour(d);
  const list = state.pages.get(page);
  if (page === state.page && viewer.detections === list) viewer.append(created);
  else if (list) list.push(...created);
  for (const d of created) bump(page, d.class, d.category, 1);
  renderCounts();
  state.lastClass = cls;
  refreshJob();
  return created;
}

// inPage keeps a box inside the page, as the API requires.
function inPage(b) {
  const x = Math.min(Math.max(b.x, 0), 1), y = Math.min(Math.max(b.y, 0), 1);
  return { x, y, width: Math.min(b.width, 1 - x), height: Math.min(b.height, 1 - y) };
}

// ---- drawing a box: add as …, or find more like this ----

// drawn is the viewer's answer to a box drawn on the page: it offers the
// draw menu beside it.
function drawn(b) {
  showDetails(null);
  state.draft = { page: state.page, bbox_norm: b };
  const m = $('draw-menu');
  m.hidden = false;
  const vp = $('viewport').getBoundingClientRect();
  const right = viewer.x + (b.x + b.width) * viewer.width * viewer.scale;
  const bottom = viewer.y + (b.y + b.height) * viewer.height * viewer.scale;
  m.style.left = `${Math.max(4, Math.min(right + 8, vp.width - m.offsetWidth - 4))}px`;
  m.style.top = `${Math.max(4, Math.min(bottom + 8, vp.height - m.offsetHeight - 4))}px`;
  $('draw-add').focus({ preventScroll: true });
}

function cancelDraft() {
  state.draft = null;
  $('draw-menu').hidden = true;
  viewer.showDraft(null);
}

async function addDraft() {
  const draft = state.draft;
  if (!draft) { say(t('drawFirst')); return; }
  $('draw-menu').hidden = true;
  const sel = selectedDetection();
  const cls = await pickClass(state.lastClass || (sel && sel.class));
  if (!cls || state.draft !== draft) return;
  cancelDraft();
  try {
    const [d] = await addDetections(draft.page, cls, [draft.bbox_norm]);
    say(t('added', { n: 1 }));
    if (draft.page === state.page) showDetails(d);
  } catch (err) {
    sayError(err);
  }
}

// maxExcluded is the most look-alikes a search leaves out (the service's
// MaxSearchExcludes).
const maxExcluded = 10;

// runSearch asks the service for every instance of what box b of page
// holds, less the look-alikes of exclude (in any colour with anyColour),
// and lists them: new ones (no
// detection_id) picked to be added; then its near misses, best first,
// none picked. A search the service cut at its time limit is asked again
// for the pages it left, until every page is searched or a request
// searches none.
async function runSearch(page, b, exclude = [], anyColour = false) {
  $('draw-menu').hidden = true;
  say(t('searching'));
  try {
    let res = await track(state.client.search(state.jobId, page, inPage(b), undefined, exclude, anyColour));
    let found = res.matches;
    let near = res.near_misses || [];
    let left = res.complete === false ? res.pages_not_searched || [] : [];
    while (left.length) {
      say(t('searchingMore', { n: left.length }));
      res = await track(state.client.search(state.jobId, page, inPage(b), left, exclude, anyColour));
      found = found.concat(res.matches);
      near = near.concat(res.near_misses || []);
      const next = res.complete === false ? res.pages_not_searched || [] : [];
      if (next.length >= left.length) break; // no page searched: stop
      left = next;
    }
    const matches = found.map((m, i) => ({ ...m, index: i, picked: m.detection_id == null }));
    const nearMisses = near.sort((x, y) => y.score - x.score).map((m, i) => ({ ...m, index: i }));
    const prev = state.search;
    const cls = prev && prev.page === page && prev.bbox_norm === b && prev.cls ? prev.cls : guessClass(matches);
    state.search = { page, bbox_norm: b, exclude, anyColour, matches, nearMisses, total: matches.length, cls };
    renderSearch();
    showMatches();
    $('search-panel').scrollIntoView({ block: 'nearest' });
    say(left.length && res.complete === false ? t('searchStopped', { n: left.length }) : '');
  } catch (err) {
    sayError(err);
  }
}

// guessClass is the class new matches are added as at first: the most
// common class of the detections the search found again, else the class
// last chosen.
function guessClass(matches) {
  const n = new Map();
  for (const m of matches) {
    if (m.detection_id == null) continue;
    const d = (state.pages.get(m.page_index) || []).find((x) => x.id === m.detection_id);
    if (d) n.set(d.class, (n.get(d.class) || 0) + 1);
  }
  let best = null;
  for (const [c, k] of n) if (!best || k > n.get(best)) best = c;
  return best || state.lastClass;
}

function renderSearch() {
  const s = state.search;
  $('search-panel').hidden = !s;
  if (!s) return;
  const fresh = s.matches.filter((m) => m.detection_id == null);
  $('search-summary').textContent = t('matchesSummary', { t: s.total, n: fresh.length, e: s.matches.length - fresh.length });
  const cb = $('search-class');
  cb.replaceChildren();
  if (s.cls) {
    const sym = state.catalog.get(s.cls);
    cb.append(iconImg(s.cls), ' ', (sym && sym.display_name) || s.cls);
  } else cb.textContent = t('chooseClass');
  cb.dataset.class = s.cls || '';
  const list = $('search-list');
  list.replaceChildren();
  for (const m of s.matches) {
    const li = document.createElement('li');
    li.dataset.m = m.index;
    li.className = m.detection_id == null ? 'new' : 'existing';
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.checked = m.picked;
    box.disabled = m.detection_id != null;
    box.setAttribute('aria-label', t('addPicked'));
    box.addEventListener('change', () => { m.picked = box.checked; showMatches(); });
    const label = document.createElement('button');
    label.type = 'button';
    label.className = 'link';
    label.textContent = `${t('page')} ${m.page_index + 1} · ${t('score', { s: m.score.toFixed(2) })} · ${t(m.detection_id == null ? 'matchNew' : 'matchExisting')}`;
    label.addEventListener('click', () => showMatch(m));
    li.append(box, label);
    if (m.detection_id == null) {
      const not = document.createElement('button');
      not.type = 'button';
      not.className = 'not-like';
      not.textContent = t('notLikeThis');
      not.addEventListener('click', () => notLikeThis(m));
      li.append(not);
    }
    list.appendChild(li);
  }
  const near = $('search-near');
  near.replaceChildren();
  $('search-near-title').hidden = !s.nearMisses.length;
  for (const m of s.nearMisses) {
    const li = document.createElement('li');
    li.dataset.n = m.index;
    li.className = m.detection_id == null ? 'near-miss' : 'near-miss existing';
    const label = document.createElement('button');
    label.type = 'button';
    label.className = 'link';
    label.textContent = `${t('page')} ${m.page_index + 1} · ${t('score', { s: m.score.toFixed(2) })} · ${t('reasons.' + m.reason)}`;
    label.addEventListener('click', () => showMatch(m));
    li.append(label);
    if (m.detection_id == null) {
      const add = document.createElement('button');
      add.type = 'button';
      add.className = 'accept-near';
      add.textContent = t('acceptNear');
      add.addEventListener('click', () => acceptNear(m));
      li.append(add);
    } else li.append(' · ', t('matchExisting'));
    near.appendChild(li);
  }
  // Near misses for their colour only: the sheet may colour zones or
  // circuits, not devices; one click finds them all as matches.
  $('search-any-colour').hidden = s.anyColour || !s.nearMisses.some((m) => m.reason === 'another_colour');
  $('search-add-all').disabled = !fresh.length;
  $('search-add-picked').disabled = !fresh.some((m) => m.picked);
}

// showMatches draws the matches that lie on the page on view.
function showMatches() {
  const s = state.search;
  viewer.showMatches(s ? s.matches.filter((m) => m.page_index === state.page)
    .map((m) => ({ bbox_norm: m.bbox_norm, index: m.index, picked: m.picked, existing: m.detection_id != null })) : null);
}

// toggleMatch picks or unpicks a new match clicked on the drawing.
function toggleMatch(i) {
  const m = state.search && state.search.matches[i];
  if (!m || m.detection_id != null) return;
  m.picked = !m.picked;
  renderSearch();
  showMatches();
}

async function showMatch(m) {
  if (m.page_index !== state.page && !(await goPage(m.page_index))) return;
  viewer.centerBox(m.bbox_norm);
}

// notLikeThis searches again with match m's place (grown by a third of
// its size each side, so that what sets the look-alike apart is inside)
// left out as a look-alike.
function notLikeThis(m) {
  const s = state.search;
  if (!s) return;
  if (s.exclude.length >= maxExcluded) { say(t('tooManyExcluded', { n: maxExcluded })); return; }
  const b = m.bbox_norm;
  const gx = b.width / 3, gy = b.height / 3;
  const x = Math.max(0, b.x - gx), y = Math.max(0, b.y - gy);
  const box = { x, y, width: Math.min(1, b.x + b.width + gx) - x, height: Math.min(1, b.y + b.height + gy) - y };
  runSearch(s.page, s.bbox_norm, [...s.exclude, { page_index: m.page_index, bbox_norm: box }], s.anyColour);
}

// acceptNear adds near miss m as a detection of the search's class, as
// "Add all new" adds a match.
async function acceptNear(m) {
  const s = state.search;
  if (!s) return;
  if (!s.cls) {
    s.cls = await pickClass(state.lastClass);
    renderSearch();
    if (!s.cls) return;
  }
  try {
    const [d] = await addDetections(m.page_index, s.cls, [m.bbox_norm]);
    if (d) m.detection_id = d.id;
    say(t('added', { n: d ? 1 : 0 }));
  } catch (err) {
    sayError(err);
  }
  if (state.search === s) renderSearch();
}

function closeSearch() {
  state.search = null;
  renderSearch();
  showMatches();
}

// addMatches adds the new matches (all, or the picked ones) as detections
// of the chosen class, page by page.
async function addMatches(all) {
  const s = state.search;
  if (!s) return;
  if (!s.cls) {
    s.cls = await pickClass(state.lastClass);
    renderSearch();
    if (!s.cls) return;
  }
  const chosen = s.matches.filter((m) => m.detection_id == null && (all || m.picked));
  if (!chosen.length) { say(t('noneNew')); return; }
  const byPage = new Map();
  for (const m of chosen) byPage.set(m.page_index, [...(byPage.get(m.page_index) || []), m]);
  let n = 0;
  try {
    for (const [page, ms] of byPage) {
      const created = await addDetections(page, s.cls, ms.map((m) => m.bbox_norm));
      created.forEach((d, k) => { ms[k].detection_id = d.id; ms[k].picked = false; });
      n += created.length;
    }
    say(t('added', { n }));
  } catch (err) {
    sayError(err);
  }
  if (state.search === s) {
    renderSearch();
    showMatches();
  }
}

// ---- class picker ----

// pickClass asks for a symbol class in a searchable list with icons and
// resolves to it, or to null when the person cancels.
function pickClass(current) {
  const d = $('picker');
  if (d.open) return Promise.resolve(null);
  const input = $('picker-search');
  input.value = '';
  fillPicker('', current);
  return new Promise((resolve) => {
    let done = false;
    pickerDone = (cls) => {
      if (done) return;
      done = true;
      if (cls) state.lastClass = cls;
      resolve(cls || null);
    };
    d.returnValue = '';
    // Esc, or the dialog closed any other way: no class.
    d.addEventListener('close', () => pickerDone(d.returnValue), { once: true });
    d.showModal();
    input.focus();
    // The current class, marked, in view (the list was filled unshown).
    $('picker-list').querySelector('li.active')?.scrollIntoView({ block: 'center' });
  });
}

// pickerDone answers the open class picker; a no-op once answered.
let pickerDone = () => {};

// choose answers the class picker with cls at once (the dialog's close
// event comes a task later) and closes it.
function choose(cls) {
  pickerDone(cls);
  $('picker').close(cls);
}

let pickerIcons = null;

// fillPicker lists the catalog's classes whose name, key or category
// holds every word of query; current (if listed) is marked.
function fillPicker(query, current) {
  const words = fold(query).split(/\s+/).filter(Boolean);
  const list = $('picker-list');
  list.replaceChildren();
  if (pickerIcons) pickerIcons.disconnect();
  // Icons load as their rows scroll into view: each is a request under
  // the key's rate limit.
  pickerIcons = new IntersectionObserver((entries) => {
    for (const e of entries) {
      if (!e.isIntersecting) continue;
      pickerIcons.unobserve(e.target);
      const img = e.target.querySelector('img.icon');
      icon(e.target.dataset.class).then((url) => { if (url) img.src = url; });
    }
  }, { root: list });
  const syms = [...state.catalog.values()].sort((a, b) => (a.display_name || a.class).localeCompare(b.display_name || b.class, lang));
  for (const sym of syms) {
    const hay = fold(`${sym.display_name} ${sym.class} ${sym.class.replaceAll('_', ' ')} ${categoryName(sym.category)}`);
    if (!words.every((w) => hay.includes(w))) continue;
    const li = document.createElement('li');
    li.setAttribute('role', 'option');
    li.dataset.class = sym.class;
    const img = document.createElement('img');
    img.className = 'icon';
    img.alt = '';
    img.width = img.height = 22;
    const name = document.createElement('span');
    name.className = 'name';
    name.textContent = sym.display_name || sym.class;
    const sub = document.createElement('span');
    sub.className = 'sub';
    sub.textContent = `${categoryName(sym.category)} · ${sym.class}`;
    li.append(img, name, sub);
    if (sym.class === current) li.classList.add('current');
    li.addEventListener('click', () => choose(sym.class));
    list.appendChild(li);
    pickerIcons.observe(li);
  }
  if (!list.children.length) {
    const li = document.createElement('li');
    li.className = 'none';
    li.textContent = t('noSymbols');
    list.appendChild(li);
    return;
  }
  const first = list.querySelector('li.current') || list.querySelector('li[role=option]');
  setActive(first);
}

// fold lower-cases and strips accents, so that "aani" finds "ääni".
function fold(s) {
  return String(s || '').toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '');
}

function setActive(li) {
  for (const el of $('picker-list').querySelectorAll('li.active')) {
    el.classList.remove('active');
    el.setAttribute('aria-selected', 'false');
  }
  if (!li) return;
  li.classList.add('active');
  li.setAttribute('aria-selected', 'true');
  li.scrollIntoView({ block: 'nearest' });
}

function pickerKey(e) {
  const list = $('picker-list');
  const cur = list.querySelector('li.active');
  const opts = [...list.querySelectorAll('li[role=option]')];
  const i = opts.indexOf(cur);
  if (e.key === 'ArrowDown') setActive(opts[Math.min(opts.length - 1, i + 1)]);
  else if (e.key === 'ArrowUp') setActive(opts[Math.max(0, i - 1)]);
  else if (e.key === 'Enter') { if (cur && cur.dataset.class) choose(cur.dataset.class); } else return;
  e.preventDefault();
}

// ---- next, previous, next unreviewed ----

// nav goes to the next (dir 1) or previous (dir -1) detection shown by
// the filter, in reading order, on to the following counted pages and
// round; with unreviewed, to one nobody has reviewed. The box is centred
// at a readable zoom and selected.
async function nav(dir, unreviewed) {
  if (!state.job) return;
  const keep = keepFn();
  const ok = (d) => (!keep || keep(d)) && (!unreviewed || !decisionOf(d));
  const here = viewer.detections;
  const from = viewer.selected == null ? (dir > 0 ? -1 : here.length) : viewer.selected;
  for (let i = from + dir; i >= 0 && i < here.length; i += dir) {
    if (ok(here[i])) return focusDetection(i);
  }
  const pages = state.job.pages.filter((p) => counted(p) && p.page_index !== state.page).map((p) => p.page_index);
  const after = pages.filter((i) => (dir > 0 ? i > state.page : i < state.page));
  const before = pages.filter((i) => (dir > 0 ? i < state.page : i > state.page));
  const order = dir > 0 ? [...after, ...before] : [...after.reverse(), ...before.reverse()];
  try {
    for (const index of order) {
      const p = pageOf(index);
      if (!p.detection_count && !state.pages.has(index)) continue;
      const list = await track(pageDetections(index));
      const idx = dir > 0 ? list.findIndex(ok) : list.findLastIndex(ok);
      if (idx < 0) continue;
      if (!(await goPage(index))) return;
      return focusDetection(idx);
    }
  } catch (err) {
    sayError(err);
    return;
  }
  // Round to the start (or end) of this page.
  const end = dir > 0 ? Math.min(from, here.length - 1) : Math.max(from, 0);
  for (let i = dir > 0 ? 0 : here.length - 1; dir > 0 ? i <= end : i >= end; i += dir) {
    if (ok(here[i])) return focusDetection(i);
  }
  say(t(unreviewed ? 'allReviewed' : 'noneVisible'));
}

function focusDetection(i) {
  viewer.centerOn(i);
  showDetails(viewer.detections[i]);
}

// ---- keys ----

// typing reports whether a key goes to a field the person is typing in.
function typing(el) {
  return !!el && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName));
}

function setDrawMode(on) {
  viewer.drawMode = on;
  $('draw-mode').setAttribute('aria-pressed', String(on));
  $('viewport').classList.toggle('draw-mode', on);
}

// The review keys act on the job on view; never while typing in a field,
// with a dialog open, or with a modifier held.
function reviewKey(e) {
  if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || e.repeat && 'acxdf'.includes(e.key)) return;
  if (typing(e.target) || document.querySelector('dialog[open]')) return;
  if (!state.job || $('job-panel').hidden) return;
  const keys = {
    a: acceptSelected,
    x: rejectSelected,
    c: () => (selectedDetection() ? changeSelectedClass() : addDraft()),
    n: () => nav(1, false),
    p: () => nav(-1, false),
    u: () => nav(1, true),
    d: () => setDrawMode(!viewer.drawMode),
    f: () => {
      if (state.draft) return runSearch(state.draft.page, state.draft.bbox_norm);
      const d = selectedDetection();
      if (d) return runSearch(state.page, d.bbox_norm);
      say(t('drawFirst'));
    },
    Escape: () => {
      if (state.draft) cancelDraft();
      else if (state.search) closeSearch();
      else showDetails(null);
    },
  };
  const fn = keys[e.key];
  if (!fn) return;
  e.preventDefault();
  fn();
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
    const req = { file_name: file.name, mime_type: mime, size: file.size };
    const ref = $('upload-reference').value;
    if (ref) req.reference_jobs = [ref];
    const created = await state.client.init(req);
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
    setReview(null);
    $('jobs').replaceChildren();
    referenceChoices([], false);
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
  $('show-all').addEventListener('click', () => { state.filter = null; state.legendRow = null; viewer.setFilter(null); markFilter(); });
  $('nav-prev').addEventListener('click', () => nav(-1, false));
  $('nav-next').addEventListener('click', () => nav(1, false));
  $('nav-unreviewed').addEventListener('click', () => nav(1, true));
  $('draw-mode').addEventListener('click', () => setDrawMode(!viewer.drawMode));
  $('draw-add').addEventListener('click', () => addDraft());
  $('draw-search').addEventListener('click', () => state.draft && runSearch(state.draft.page, state.draft.bbox_norm));
  $('draw-cancel').addEventListener('click', cancelDraft);
  $('search-add-all').addEventListener('click', () => addMatches(true));
  $('search-add-picked').addEventListener('click', () => addMatches(false));
  $('search-close').addEventListener('click', closeSearch);
  $('search-any-colour').addEventListener('click', () => {
    const s = state.search;
    if (s) runSearch(s.page, s.bbox_norm, s.exclude, true);
  });
  $('search-class').addEventListener('click', async () => {
    const s = state.search;
    const cls = await pickClass(s && s.cls);
    if (cls && state.search === s) { s.cls = cls; renderSearch(); }
  });
  $('picker-search').addEventListener('input', () => fillPicker($('picker-search').value, null));
  $('picker-search').addEventListener('keydown', pickerKey);
  $('picker-cancel').addEventListener('click', () => choose(''));
  document.addEventListener('keydown', reviewKey);
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
  useKey(sessionStorage.getItem(KEY_STORAGE), storedReview());
  if (state.client) loadJobs().catch(sayError);
  follow(link);
}

// The fragment is read (and any key or handoff in it replaced out of the
// address bar) before anything else.
main(readFragment());
