// A small client of the partner API, written as a partner's code would be:
// the key travels only in the X-API-Key header, errors arrive in the
// contract's shape {"error": {"code", "message", "details"?}}.

import { lang } from './i18n.js';

// A request over the key's rate (429) is repeated after Retry-After when
// that is at most MAX_WAIT_S seconds, at most MAX_RETRIES times.
const MAX_RETRIES = 2;
const MAX_WAIT_S = 30;

// ApiError is a failed API call: HTTP status, contract code and message.
export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

async function failure(resp) {
  let body = null;
  try { body = await resp.json(); } catch { /* not JSON */ }
  const e = (body && body.error) || {};
  return new ApiError(resp.status, e.code || 'http_' + resp.status, e.message || resp.statusText, e.details);
}

export class Client {
  // base is the service's origin; '' means this page's own.
  constructor(key, base = '') {
    this.key = key;
    this.base = base;
  }

  // request calls the API and returns the Response of a 2xx, or throws
  // ApiError. path may be a path or an absolute URL the API handed out.
  async request(method, path, { body, query, headers } = {}) {
    const url = new URL(path, this.base || location.origin);
    for (const [k, v] of Object.entries(query || {})) {
      if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
    }
    const h = { 'X-API-Key': this.key, 'Accept-Language': lang, ...headers };
    if (body !== undefined) h['Content-Type'] = 'application/json';
    for (let attempt = 0; ; attempt++) {
      const resp = await fetch(url, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' });
      if (resp.ok) return resp;
      // Over the key's rate: wait as told (a short wait only) and try again.
      const wait = Number(resp.headers.get('Retry-After'));
      if (resp.status === 429 && attempt < MAX_RETRIES && wait >= 0 && wait <= MAX_WAIT_S) {
        await new Promise((r) => setTimeout(r, wait * 1000 + 100));
        continue;
      }
      throw await failure(resp);
    }
  }

  async json(method, path, opts) {
    return (await this.request(method, path, opts)).json();
  }

  init(req) { return this.json('POST', '/v1/jobs/init', { body: req }); }
  start(id) { return this.json('POST', `/v1/jobs/${encodeURIComponent(id)}/start`); }
  list(query) { return this.json('GET', '/v1/jobs', { query }); }

  // job polls a job; confidence null keeps the default filter.
  job(id, confidence) {
    return this.json('GET', `/v1/jobs/${encodeURIComponent(id)}`, { query: { confidence } });
  }

  // detections reads every detection of a page (following next) under
  // the filter, at the endpoint's largest page size; with withRejected
  // (?review=all) the detections a reviewer rejected are listed too.
  async detections(detectionsURL, confidence, withRejected = false) {
    const all = [];
    let offset = 0;
    for (;;) {
      const page = await this.json('GET', detectionsURL, { query: { limit: 2000, offset, confidence, review: withRejected ? 'all' : undefined } });
      all.push(...page.detections);
      if (page.next == null) return { total: page.total, detections: all };
      offset = page.next;
    }
  }

  // review records a decision ('accepted', 'rejected' or null to withdraw
  // one) and/or a new class on a detection, and returns the detection as
  // it now reads. A field left out of change is kept.
  review(jobId, page, detectionId, change) {
    return this.json('PATCH', `/v1/jobs/${encodeURIComponent(jobId)}/pages/${page}/detections/${encodeURIComponent(detectionId)}`, { body: change });
  }

  // add creates detections ({class, bbox_norm} each) on a page and returns
  // them as created. The Idempotency-Key makes the 429 retry (and any
  // repeat of this call) add them once.
  async add(jobId, page, detections) {
    const res = await this.json('POST', `/v1/jobs/${encodeURIComponent(jobId)}/pages/${page}/detections`, {
      body: { detections }, headers: { 'Idempotency-Key': idempotencyKey() },
    });
    return res.detections;
  }

  // search finds every instance of what a box of a page holds, on pages
  // (default every counted page), less those more like one of exclude
  // ([{page_index, bbox_norm}], look-alikes), in the box's colour only
  // unless anyColour: {matches: [{page_index,
  // bbox_norm, bbox_px, score, detection_id}], total, complete,
  // pages_not_searched, near_misses: [{..., reason}]}; detection_id is the
  // detection a match overlaps, null for a new one; a search out of time
  // is not complete and names the pages it left.
  search(jobId, page, bboxNorm, pages, exclude, anyColour) {
    const body = { page_index: page, bbox_norm: bboxNorm };
    if (pages) body.pages = pages;
    if (exclude && exclude.length) body.exclude = exclude;
    if (anyColour) body.any_colour = true;
    return this.json('POST', `/v1/jobs/${encodeURIComponent(jobId)}/search`, { body });
  }

  // takeoff downloads an export ('csv' or 'xlsx') as a Blob with the file
  // name the service suggests.
  async takeoff(id, format, confidence) {
    const resp = await this.request('GET', `/v1/jobs/${encodeURIComponent(id)}/takeoff.${format}`, { query: { confidence } });
    const name = dispositionFileName(resp.headers.get('Content-Disposition')) || `takeoff.${format}`;
    return { blob: await resp.blob(), name };
  }

  // icon fetches a symbol's icon through its icon_url (a 302 to a signed
  // image URL, followed by fetch) and returns an object URL for <img>.
  async icon(iconURL) {
    const resp = await this.request('GET', iconURL);
    return URL.createObjectURL(await resp.blob());
  }
}

// idempotencyKey is a fresh random key for one request.
function idempotencyKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  return [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

// dispositionFileName returns the file name a Content-Disposition header
// suggests, or null. Only the RFC 5987 form (filename*=utf-8''…) is
// percent-encoded; a plain filename="…" is a quoted string whose "%" is
// just a character, so it is unquoted and never URI-decoded.
export function dispositionFileName(header) {
  const cd = header || '';
  const ext = /filename\*\s*=\s*utf-8''([^;\s]+)/i.exec(cd);
  if (ext) {
    try { return decodeURIComponent(ext[1]); } catch { /* malformed: try the plain form */ }
  }
  const quoted = /filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(cd);
  if (quoted) return quoted[1].replace(/\\(.)/g, '$1');
  const token = /filename\s*=\s*([^;\s"]+)/i.exec(cd);
  return token ? token[1] : null;
}

// exchangeHandoff trades a review link's single-use handoff token for the
// key it was made with: {api_key, job_id}. No key is sent, and the token
// travels in the body, never in a URL. A used, expired or unknown token
// throws ApiError 401 with details.reason 'used', 'expired' or 'unknown'.
export async function exchangeHandoff(token, base = '') {
  const url = new URL('/v1/review-links/exchange', base || location.origin);
  const resp = await fetch(url, {
    method: 'POST', cache: 'no-store', credentials: 'omit',
    headers: { 'Content-Type': 'application/json', 'Accept-Language': lang },
    body: JSON.stringify({ handoff: token }),
  });
  if (!resp.ok) throw await failure(resp);
  return resp.json();
}

// put uploads file to a signed upload descriptor with progress events;
// no API key is sent (the token is in the URL).
export function put(upload, file, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(upload.method || 'PUT', upload.url);
    xhr.setRequestHeader('Content-Type', upload.content_type);
    xhr.upload.onprogress = (ev) => { if (ev.lengthComputable) onProgress(ev.loaded / ev.total); };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) { resolve(); return; }
      let e = {};
      try { e = JSON.parse(xhr.responseText).error || {}; } catch { /* not JSON */ }
      reject(new ApiError(xhr.status, e.code || 'http_' + xhr.status, e.message || xhr.statusText, e.details));
    };
    xhr.onerror = () => reject(new ApiError(0, 'network', 'the upload did not reach the service'));
    xhr.send(file);
  });
}
