// The drawing viewer: one page image with one element per detection over
// it, zoomed and panned with a CSS transform on the stage that holds both
// (the boxes are laid out once, in fractions of the page, and never again
// while the view moves).

const MIN_ZOOM = 0.02;
const MAX_ZOOM = 8;
// BORDER_PX is a box's outline on screen, whatever the zoom.
const BORDER_PX = 2;
// Below FAR_ZOOM, on a page of at most SPARSE boxes, each box also gets a
// ring of constant size on screen, so that a few symbols a few pixels wide
// on a sheet seen whole are still found (on a dense page the boxes
// themselves show, and rings would hide the drawing).
const FAR_ZOOM = 0.35;
const SPARSE = 150;
// A box centred by centerBox is shown with its longer side READABLE_PX on
// screen (the symbol and enough of its surroundings to judge it), within
// [MIN_READABLE, MAX_READABLE] zoom; a zoom within READABLE_SLACK of that
// is kept, so stepping through boxes does not jump the zoom.
const READABLE_PX = 90;
const MIN_READABLE = 0.5;
const MAX_READABLE = 4;
const READABLE_SLACK = 2;
// A drawn box smaller than MIN_DRAW_PX on screen is taken for a click.
const MIN_DRAW_PX = 4;

export class Viewer {
  // els: {viewport, stage, image, boxes, matches, draft, tooltip,
  // zoomLabel}; describe(d) returns the tooltip text of a detection;
  // onSelect(d) is called with the clicked detection (null when the click
  // was on the page); onDraw(bboxNorm) with a box drawn by a drag with
  // shift held or in draw mode; onMatch(i) with a click on match i.
  constructor(els, { describe, onSelect, onDraw, onMatch }) {
    Object.assign(this, els);
    this.describe = describe;
    this.onSelect = onSelect;
    this.onDraw = onDraw;
    this.onMatch = onMatch;
    this.drawMode = false;
    this.filterFn = null;
    this.selected = null;
    this.scale = 1;
    this.x = 0;
    this.y = 0;
    this.width = 0;
    this.height = 0;
    this.detections = [];
    this.frame = 0;
    this.borderTimer = 0;
    this.pointers = new Map();
    this.bind();
  }

  // show loads a page (its image URL and raster size) and draws dets.
  show(page, dets) {
    this.width = page.width_px;
    this.height = page.height_px;
    this.stage.style.width = this.width + 'px';
    this.stage.style.height = this.height + 'px';
    if (this.image.getAttribute('src') !== page.image_url) {
      if (page.image_url) {
        this.image.src = page.image_url;
        // Decode the whole raster now, not on the first zoom-in (a frame
        // of half a second on an A0 sheet).
        this.image.decode().catch(() => {});
      } else this.image.removeAttribute('src');
    }
    this.draw(dets);
    this.fit();
  }

  // draw replaces the boxes with one element per detection, placed by
  // bbox_norm (the contract's way to place a box on any rendering).
  draw(dets) {
    this.detections = dets;
    this.selected = null;
    const frag = document.createDocumentFragment();
    dets.forEach((d, i) => frag.appendChild(this.boxElement(d, i)));
    this.boxes.replaceChildren(frag);
    this.stage.classList.toggle('sparse', dets.length <= SPARSE);
    this.applyFilter();
  }

  // append adds boxes for detections added to the page.
  append(dets) {
    const frag = document.createDocumentFragment();
    for (const d of dets) {
      this.detections.push(d);
      const el = this.boxElement(d, this.detections.length - 1);
      el.hidden = !!this.filterFn && !this.filterFn(d);
      frag.appendChild(el);
    }
    this.boxes.appendChild(frag);
    this.stage.classList.toggle('sparse', this.detections.length <= SPARSE);
  }

  boxElement(d, i) {
    const el = document.createElement('div');
    el.className = 'box';
    el.dataset.i = i;
    const b = d.bbox_norm;
    el.style.cssText = `left:${b.x * 100}%;top:${b.y * 100}%;width:${b.width * 100}%;height:${b.height * 100}%`;
    this.dress(el, d);
    return el;
  }

  // dress gives a box element its detection's class, colour, review and
  // why the take-off withholds it (data-withheld), if it does.
  dress(el, d) {
    el.dataset.class = d.class;
    el.dataset.id = d.id;
    el.style.setProperty('--c', d.color || '#e6007e');
    const decision = d.review && d.review.decision;
    if (decision) el.dataset.review = decision;
    else delete el.dataset.review;
    if (d.withheld) el.dataset.withheld = d.withheld;
    else delete el.dataset.withheld;
  }

  // update redraws detection i after a review changed it.
  update(i) {
    const el = this.boxes.children[i];
    if (!el) return;
    this.dress(el, this.detections[i]);
    el.hidden = !!this.filterFn && !this.filterFn(this.detections[i]);
  }

  // setFilter shows only the detections keep(d) is true of (null: all).
  setFilter(keep) {
    this.filterFn = keep;
    this.applyFilter();
  }

  applyFilter() {
    const f = this.filterFn;
    const els = this.boxes.children;
    for (let i = 0; i < els.length; i++) els[i].hidden = !!f && !f(this.detections[i]);
  }

  // visible reports whether detection i passes the filter.
  visible(i) {
    return !this.filterFn || this.filterFn(this.detections[i]);
  }

  select(i) {
    if (this.selected != null) this.boxes.children[this.selected]?.classList.remove('selected');
    this.selected = i;
    if (i != null) this.boxes.children[i]?.classList.add('selected');
  }

  // centerOn puts detection i in the middle of the view at a readable
  // zoom.
  centerOn(i) {
    const d = this.detections[i];
    if (d) this.centerBox(d.bbox_norm);
  }

  // centerBox puts a box (bbox_norm) in the middle of the view at a
  // readable zoom.
  centerBox(b) {
    const vw = this.viewport.clientWidth, vh = this.viewport.clientHeight;
    if (!this.width || !vw || !vh) return;
    const w = b.width * this.width, h = b.height * this.height;
    let s = Math.min(MAX_READABLE, Math.max(MIN_READABLE, READABLE_PX / Math.max(w, h, 1)));
    s = Math.min(s, (0.8 * Math.min(vw, vh)) / Math.max(w, h, 1)); // a large box fits whole
    if (this.scale >= s / READABLE_SLACK && this.scale <= s * READABLE_SLACK && this.scale * Math.max(w, h) <= 0.8 * Math.min(vw, vh)) s = this.scale;
    this.scale = s;
    this.x = vw / 2 - (b.x * this.width + w / 2) * s;
    this.y = vh / 2 - (b.y * this.height + h / 2) * s;
    this.render(true);
  }

  // showMatches draws the boxes of search matches on this page: each
  // {bbox_norm, picked, existing}; null clears them.
  showMatches(list) {
    const frag = document.createDocumentFragment();
    (list || []).forEach((m, i) => {
      if (!m) return;
      const el = document.createElement('div');
      el.className = 'match' + (m.existing ? ' existing' : '') + (m.picked ? ' picked' : '');
      el.dataset.m = m.index ?? i;
      const b = m.bbox_norm;
      el.style.cssText = `left:${b.x * 100}%;top:${b.y * 100}%;width:${b.width * 100}%;height:${b.height * 100}%`;
      frag.appendChild(el);
    });
    this.matches.replaceChildren(frag);
  }

  // showDraft outlines a drawn box (bbox_norm) until it is added or
  // dropped (null).
  showDraft(b) {
    this.draft.hidden = !b;
    if (b) this.draft.style.cssText = `left:${b.x * 100}%;top:${b.y * 100}%;width:${b.width * 100}%;height:${b.height * 100}%`;
  }

  // pagePoint is the page fraction under a client point.
  pagePoint(clientX, clientY) {
    const r = this.viewport.getBoundingClientRect();
    return {
      x: Math.min(1, Math.max(0, (clientX - r.left - this.x) / this.scale / this.width)),
      y: Math.min(1, Math.max(0, (clientY - r.top - this.y) / this.scale / this.height)),
    };
  }

  fit() {
    const vw = this.viewport.clientWidth, vh = this.viewport.clientHeight;
    if (!this.width || !vw || !vh) return;
    const s = Math.min(vw / this.width, vh / this.height) * 0.98;
    this.scale = s;
    this.x = (vw - this.width * s) / 2;
    this.y = (vh - this.height * s) / 2;
    this.render(true);
  }

  // zoomAt multiplies the zoom by factor, keeping the page point under
  // the viewport point (cx, cy) in place.
  zoomAt(factor, cx, cy) {
    const s = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, this.scale * factor));
    const k = s / this.scale;
    this.x = cx - (cx - this.x) * k;
    this.y = cy - (cy - this.y) * k;
    this.scale = s;
    this.render(false);
  }

  zoomCenter(factor) {
    this.zoomAt(factor, this.viewport.clientWidth / 2, this.viewport.clientHeight / 2);
  }

  // render applies the transform at the next frame. The box outline
  // width follows the zoom once the view rests (at once when now is
  // true), so that a moving view only recomposites.
  render(now) {
    if (!this.frame) {
      this.frame = requestAnimationFrame(() => {
        this.frame = 0;
        this.stage.style.transform = `translate(${this.x}px, ${this.y}px) scale(${this.scale})`;
        this.zoomLabel.textContent = Math.round(this.scale * 100) + ' %';
      });
    }
    clearTimeout(this.borderTimer);
    const border = () => {
      this.stage.style.setProperty('--border', (BORDER_PX / this.scale) + 'px');
      this.stage.classList.toggle('far', this.scale < FAR_ZOOM);
    };
    if (now) border();
    else this.borderTimer = setTimeout(border, 150);
  }

  bind() {
    const vp = this.viewport;
    vp.addEventListener('wheel', (e) => {
      e.preventDefault();
      const r = vp.getBoundingClientRect();
      const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? r.height : 1;
      this.zoomAt(Math.exp(-e.deltaY * unit * 0.0015), e.clientX - r.left, e.clientY - r.top);
    }, { passive: false });

    let moved = false;
    let pinch = 0;
    let drawing = null; // {x, y, cx, cy}: where a drawn box started
    vp.addEventListener('pointerdown', (e) => {
      // Only the drawing pans, draws or selects: a press on a control laid
      // over it (the draw menu) is that control's, and capturing the
      // pointer here would take its click away.
      if (e.button !== 0 || (e.target !== vp && !this.stage.contains(e.target))) return;
      try {
        vp.setPointerCapture(e.pointerId);
      } catch {
        // not an active pointer (a synthetic event): drag without capture
      }
      this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
      moved = false;
      pinch = 0;
      drawing = null;
      if ((e.shiftKey || this.drawMode) && this.width && this.pointers.size === 1) {
        drawing = { ...this.pagePoint(e.clientX, e.clientY), cx: e.clientX, cy: e.clientY };
        vp.classList.add('drawing');
        return;
      }
      vp.classList.add('dragging');
    });
    vp.addEventListener('pointermove', (e) => {
      const p = this.pointers.get(e.pointerId);
      if (!p) {
        this.hover(e);
        return;
      }
      if (drawing) {
        const q = this.pagePoint(e.clientX, e.clientY);
        this.showDraft(rect(drawing, q));
        return;
      }
      const dx = e.clientX - p.x, dy = e.clientY - p.y;
      if (Math.abs(dx) + Math.abs(dy) > 2) moved = true;
      p.x = e.clientX;
      p.y = e.clientY;
      if (this.pointers.size === 2) {
        const [a, b] = [...this.pointers.values()];
        const dist = Math.hypot(a.x - b.x, a.y - b.y);
        const r = vp.getBoundingClientRect();
        if (pinch) this.zoomAt(dist / pinch, (a.x + b.x) / 2 - r.left, (a.y + b.y) / 2 - r.top);
        pinch = dist;
        return;
      }
      this.x += dx;
      this.y += dy;
      this.render(false);
    });
    const up = (e) => {
      if (!this.pointers.delete(e.pointerId)) return;
      vp.classList.remove('dragging', 'drawing');
      if (drawing) {
        const start = drawing;
        drawing = null;
        const big = Math.abs(e.clientX - start.cx) >= MIN_DRAW_PX && Math.abs(e.clientY - start.cy) >= MIN_DRAW_PX;
        if (e.type === 'pointerup' && big) {
          const b = rect(start, this.pagePoint(e.clientX, e.clientY));
          this.showDraft(b);
          this.onDraw(b);
        } else this.showDraft(null);
        return;
      }
      if (!moved && e.type === 'pointerup') this.click(e);
    };
    vp.addEventListener('pointerup', up);
    vp.addEventListener('pointercancel', up);
    vp.addEventListener('pointerleave', () => { this.tooltip.hidden = true; });
    vp.addEventListener('keydown', (e) => {
      const step = 60;
      const keys = {
        '+': () => this.zoomCenter(1.25), '=': () => this.zoomCenter(1.25), '-': () => this.zoomCenter(0.8),
        '0': () => this.fit(), ArrowLeft: () => { this.x += step; }, ArrowRight: () => { this.x -= step; },
        ArrowUp: () => { this.y += step; }, ArrowDown: () => { this.y -= step; },
      };
      if (!keys[e.key]) return;
      e.preventDefault();
      keys[e.key]();
      this.render(false);
    });
    new ResizeObserver(() => { if (this.width && this.scale) this.render(true); }).observe(vp);
  }

  boxAt(e) {
    const el = document.elementFromPoint(e.clientX, e.clientY);
    return el && el.classList.contains('box') && this.boxes.contains(el) ? el : null;
  }

  hover(e) {
    const el = this.boxAt(e);
    if (!el) {
      this.tooltip.hidden = true;
      return;
    }
    const d = this.detections[el.dataset.i];
    this.tooltip.textContent = this.describe(d);
    const r = this.viewport.getBoundingClientRect();
    this.tooltip.hidden = false;
    const w = this.tooltip.offsetWidth, h = this.tooltip.offsetHeight;
    const x = Math.min(e.clientX - r.left + 14, r.width - w - 4);
    const y = e.clientY - r.top + 18 + h > r.height ? e.clientY - r.top - h - 10 : e.clientY - r.top + 18;
    this.tooltip.style.transform = `translate(${Math.max(4, x)}px, ${Math.max(4, y)}px)`;
  }

  click(e) {
    const hit = document.elementFromPoint(e.clientX, e.clientY);
    if (hit && hit.classList.contains('match') && this.matches.contains(hit)) {
      this.onMatch(Number(hit.dataset.m));
      return;
    }
    const el = this.boxAt(e);
    const i = el ? Number(el.dataset.i) : null;
    this.select(i);
    this.onSelect(i == null ? null : this.detections[i]);
  }
}

// rect is the box (page fractions) between two corners.
function rect(a, b) {
  return { x: Math.min(a.x, b.x), y: Math.min(a.y, b.y), width: Math.abs(b.x - a.x), height: Math.abs(b.y - a.y) };
}
