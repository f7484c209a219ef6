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

export class Viewer {
  // els: {viewport, stage, image, boxes, tooltip, zoomLabel}; describe(d)
  // returns the tooltip text of a detection; onSelect(d) is called with the
  // clicked detection (null when the click was on the page).
  constructor(els, { describe, onSelect }) {
    Object.assign(this, els);
    this.describe = describe;
    this.onSelect = onSelect;
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
    const frag = document.createDocumentFragment();
    dets.forEach((d, i) => {
      const el = document.createElement('div');
      el.className = 'box';
      el.dataset.class = d.class;
      el.dataset.i = i;
      const b = d.bbox_norm;
      el.style.cssText = `left:${b.x * 100}%;top:${b.y * 100}%;width:${b.width * 100}%;height:${b.height * 100}%;--c:${d.color || '#e6007e'}`;
      frag.appendChild(el);
    });
    this.boxes.replaceChildren(frag);
    this.stage.classList.toggle('sparse', dets.length <= SPARSE);
    this.applyFilter();
  }

  // setFilter shows only boxes whose class is in classes (null: all).
  setFilter(classes) {
    this.filter = classes;
    this.applyFilter();
  }

  applyFilter() {
    const f = this.filter;
    for (const el of this.boxes.children) el.hidden = !!f && !f.has(el.dataset.class);
  }

  select(i) {
    for (const el of this.boxes.querySelectorAll('.box.selected')) el.classList.remove('selected');
    if (i != null) this.boxes.children[i]?.classList.add('selected');
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
    vp.addEventListener('pointerdown', (e) => {
      if (e.button !== 0) return;
      try {
        vp.setPointerCapture(e.pointerId);
      } catch {
        // not an active pointer (a synthetic event): drag without capture
      }
      this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
      moved = false;
      pinch = 0;
      vp.classList.add('dragging');
    });
    vp.addEventListener('pointermove', (e) => {
      const p = this.pointers.get(e.pointerId);
      if (!p) {
        this.hover(e);
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
      vp.classList.remove('dragging');
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
    const el = this.boxAt(e);
    const i = el ? Number(el.dataset.i) : null;
    this.select(i);
    this.onSelect(i == null ? null : this.detections[i]);
  }
}
