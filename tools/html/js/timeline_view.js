// The timeline: host threads, GPU range lanes and streams on one clock, drawn on a canvas.
// Wheel zooms at the pointer, drag pans, keys zoom/pan/step through slices; a click selects a
// slice and draws its launch arrows (launch call -> GPU operation).

const TL = {
  ruler: 24,
  row: 17,
  pad: 5,
  overview: 36,
  minSpan: 20
};
const LANE_COLOR = {
  thread: ['hsl(260, 32%, 58%)', 'hsl(260, 30%, 62%)'],
  range: ['hsl(190, 45%, 45%)', 'hsl(190, 45%, 50%)'],
  stream: ['hsl(150, 50%, 40%)', 'hsl(150, 45%, 48%)']
};

class TimelineView {
  constructor(model, palette, opts = {}) {
    this.m = model;
    this.palette = palette;
    this.onPath = null;  // Uint8Array: slice on the critical path
    this.showPath = false;
    this.match = null;  // Uint8Array over strings: name matches the search
    this.sel = -1;
    this.hover = {x: -1, y: -1};
    this.collapsed = new Set();
    this.colorCache = new Array(model.kinds.length * model.strings.length);
    this.textWidth = new Float32Array(model.strings.length).fill(-1);
    this.reset(false);
    this.build(opts);
    this.theme = themeColors();
    this.palette.setScheme(this.theme.dark);
    this.fillLegend();
    onThemeChange(() => {
      this.theme = themeColors();
      this.palette.setScheme(this.theme.dark);
      this.fillLegend();
      this.colorCache.fill(undefined);
      this.overviewCache = null;
      this.draw();
    });
  }

  build(opts) {
    const m = this.m;
    this.search = h('input', {
      type: 'search',
      placeholder: 'Find slices by name',
      'aria-label': 'Find slices by name',
      spellcheck: 'false'
    });
    this.found = h('span', {class: 'muted', 'aria-live': 'polite'});
    this.pathBox = h('input', {type: 'checkbox', id: 'tl-critical'});
    const pathToggle =
        opts.criticalNodes ? h('label', {class: 'check'}, this.pathBox, 'Critical path') : null;
    const resetBtn = h('button', {type: 'button', text: 'Reset zoom'});
    this.canvas = h('canvas', {
      class: 'tl-main',
      tabindex: '0',
      role: 'application',
      'aria-label': 'Timeline. Wheel or W/S zoom, drag or A/D pan, click selects, [ and ] step, ' +
          'arrow up/down to parent/child, F zooms to the selection, 0 resets.'
    });
    this.overview = h('canvas', {class: 'tl-overview', 'aria-hidden': 'true'});
    this.tall = h('div', {class: 'tl-tall'}, this.canvas);
    this.scroller = h('div', {class: 'tl-scroll'}, this.tall);
    this.details =
        h('div', {class: 'tl-details', 'aria-live': 'polite'},
          h('span', {class: 'muted', text: 'Click a slice for its details and launch arrows.'}));
    this.el =
        h('div', {class: 'timeline'},
          h('div', {class: 'tl-bar'}, this.search, this.found, pathToggle, resetBtn,
            h('span', {class: 'keys'}, h('kbd', null, 'wheel'), ' zoom ', h('kbd', null, 'drag'),
              ' pan ', h('kbd', null, 'W'), h('kbd', null, 'A'), h('kbd', null, 'S'),
              h('kbd', null, 'D'), ' ', h('kbd', null, '['), h('kbd', null, ']'), ' step ',
              h('kbd', null, 'F'), ' fit ', h('kbd', null, '0'), ' reset')),
          this.overview, this.scroller, this.details, this.legend = h('div', {class: 'legend'}));

    if (opts.criticalNodes) {
      this.onPath = new Uint8Array(m.n);
      for (let i = 0; i < m.n; i++)
        if (opts.criticalNodes.has(m.node[i])) this.onPath[i] = 1;
      this.pathBox.addEventListener('change', () => this.setCritical(this.pathBox.checked));
    }
    let searchTimer = 0;
    this.search.addEventListener('input', () => {
      clearTimeout(searchTimer);
      searchTimer = setTimeout(() => this.find(this.search.value), 120);
    });
    resetBtn.addEventListener('click', () => this.reset(true));
    this.scroller.addEventListener('scroll', () => this.draw());
    // Deferred: a relayout may add a scroll bar, which would resize the box within the callback.
    let width = -1;
    new ResizeObserver(() => requestAnimationFrame(() => {
                         if (this.scroller.clientWidth === width && this.laneTop)
                           return this.draw();
                         width = this.scroller.clientWidth;
                         this.layout();
                       }))
        .observe(this.scroller);
    this.bindPointer();
    this.bindKeys();
    this.bindOverview();
  }

  // What the colours mean, in the current scheme.
  fillLegend() {
    const p = this.palette;
    const key = (color, text, cls) =>
        h('span', null,
          h('i', {class: 'swatch' + (cls ? ' ' + cls : ''), style: `background:${color}`}), text);
    const bricks = ['Norm', 'Attention', 'FFN', 'Other'].map((c) => {
      const name = [...p.categories].find(([, cat]) => cat === c);
      return name ? key(p.of('brick', name[0])[0], c) : null;
    });
    this.legend.replaceChildren(
        ...[bricks.some(Boolean) ? h('span', {text: 'bricks by category:'}) : null, ...bricks,
            key(p.of('layer', 'Layer')[0], 'layers'),
            h('span', {text: 'kernels and scopes by name;'}),
            key(p.of('transfer', 'HtoD')[0], 'host→device'),
            key(p.of('transfer', 'DtoH')[0], 'device→host'),
            key(p.of('memset', 'memset')[0], 'memset'),
            key(p.of('sync', 'sync')[0], 'sync (host wait)'),
            this.m.merged ? key(this.theme.muted, 'striped: merged short slices', 'striped') : null]
            .filter(Boolean));
  }

  // ---- view state ----

  reset(redraw = true) {
    const pad = Math.max(this.m.span * 0.01, 1);
    this.v0 = -pad;
    this.v1 = Math.max(this.m.span, TL.minSpan) + pad;
    if (redraw) this.draw();
  }

  zoomTo(t0, t1) {
    const span = Math.max(t1 - t0, TL.minSpan);
    const mid = (t0 + t1) / 2;
    this.v0 = mid - span / 2;
    this.v1 = mid + span / 2;
    this.clamp();
    this.draw();
  }

  zoomAt(t, factor) {
    const span =
        Math.min(Math.max((this.v1 - this.v0) * factor, TL.minSpan), this.m.span * 4 + 1e3);
    const f = (t - this.v0) / (this.v1 - this.v0);
    this.v0 = t - f * span;
    this.v1 = this.v0 + span;
    this.clamp();
    this.draw();
  }

  pan(dt) {
    this.v0 += dt;
    this.v1 += dt;
    this.clamp();
    this.draw();
  }

  clamp() {
    const span = this.v1 - this.v0;
    const lo = -this.m.span * 0.5 - span * 0.5;
    const hi = this.m.span * 1.5 + span * 0.5;
    if (this.v0 < lo) [this.v0, this.v1] = [lo, lo + span];
    if (this.v1 > hi) [this.v0, this.v1] = [hi - span, hi];
  }

  setCritical(on) {
    this.showPath = !!on && !!this.onPath;
    this.pathBox.checked = this.showPath;
    this.draw();
  }

  find(query) {
    const q = query.trim().toLowerCase();
    if (!q) {
      this.match = null;
      this.found.textContent = '';
    } else {
      this.match = Uint8Array.from(this.m.strings, (s) => (s.toLowerCase().includes(q) ? 1 : 0));
      let count = 0;
      for (let i = 0; i < this.m.n; i++) count += this.match[this.m.name[i]];
      this.found.textContent = count === 1 ? '1 slice' : `${fmtCount(count)} slices`;
    }
    this.draw();
  }

  select(i, reveal) {
    this.sel = i;
    if (i >= 0 && reveal) this.reveal(i);
    this.showDetails();
    this.draw();
  }

  // Selects the slice of trace node `node` (its first, on its thread or stream) and brings the
  // timeline into sight; false if the node has no slice (a reduced timeline merged it).
  showNode(node) {
    if (node === null || node === undefined) return false;
    const slices = this.m.slicesOfNode(node).filter((i) => this.m.mergedCount(i) === 1);
    if (!slices.length) return false;
    this.select(slices[0], true);
    document.getElementById('timeline').scrollIntoView({behavior: 'smooth'});
    return true;
  }

  // Pan (and scroll lanes) so slice i is in view, zooming out if it is wider than the view.
  reveal(i) {
    const s = this.m.start[i];
    const e = s + this.m.dur[i];
    const span = this.v1 - this.v0;
    if (e - s > span * 0.9)
      this.zoomTo(s - (e - s) * 0.05, e + (e - s) * 0.05);
    else if (s < this.v0 || e > this.v1)
      this.pan((s + e) / 2 - (this.v0 + this.v1) / 2);
    const y = this.rowTop(i) - TL.ruler;
    const st = this.scroller;
    if (y < st.scrollTop || y + TL.row > st.scrollTop + st.clientHeight - TL.ruler)
      st.scrollTop = Math.max(0, y - 40);
  }

  // ---- geometry ----

  laneRows(lane) {
    const rows = Math.max(1, lane.rows.length);
    return this.collapsed.has(lane.index) ? 1 : rows;
  }

  laneHeight(lane) {
    return this.laneRows(lane) * TL.row + 2 * TL.pad;
  }

  // Calls fn(lane, index, top, height) for each lane a canvas of height H
  // shows below the ruler, scrolled by scrollTop.
  forVisibleLanes(H, scrollTop, fn) {
    this.m.lanes.forEach((lane, li) => {
      const y = this.laneTop[li] - scrollTop;
      const hgt = this.laneHeight(lane);
      if (y <= H && y + hgt >= TL.ruler) fn(lane, li, y, hgt);
    });
  }

  layout() {
    let y = TL.ruler;
    this.laneTop = this.m.lanes.map((lane) => {
      const top = y;
      y += this.laneHeight(lane);
      return top;
    });
    this.contentHeight = y + 4;
    this.tall.style.height = this.contentHeight + 'px';
    this.draw();
  }

  rowTop(i) {
    return this.laneTop[this.m.lane[i]] + TL.pad + this.m.depth[i] * TL.row;
  }

  gutter(width) {
    return Math.round(Math.min(230, Math.max(130, width * 0.16)));
  }

  timeToX(t) {
    return this.x0 + (t - this.v0) * this.scale;
  }

  // The slice under a point of the canvas (CSS pixels), or -1.
  hitAt(x, y) {
    if (x < this.x0 || y < TL.ruler) return -1;
    const cy = y + this.scroller.scrollTop;
    const lane = upperBound(this.laneTop, cy) - 1;
    if (lane < 0) return -1;
    const depth = Math.floor((cy - this.laneTop[lane] - TL.pad) / TL.row);
    if (depth < 0 || depth >= this.laneRows(this.m.lanes[lane])) return -1;
    const t = this.v0 + (x - this.x0) / this.scale;
    return this.m.hit(lane, depth, t, 3 / this.scale);
  }

  // ---- drawing ----

  colorOf(i) {
    const key = this.m.kind[i] * this.m.strings.length + this.m.name[i];
    let c = this.colorCache[key];
    if (!c) c = this.colorCache[key] = this.palette.of(this.m.kindOf(i), this.m.nameOf(i));
    return c;
  }

  dimmed(i) {
    if (this.showPath && !this.onPath[i]) return true;
    return this.match !== null && !this.match[this.m.name[i]];
  }

  draw() {
    if (!this.laneTop || this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      this.paint();
    });
  }

  paint() {
    const W = this.scroller.clientWidth;
    const H = Math.min(this.contentHeight, this.scroller.clientHeight || this.contentHeight);
    if (W <= 0) return;
    const ctx = fitCanvas(this.canvas, W, H);
    const th = this.theme;
    this.x0 = this.gutter(W);
    this.scale = (W - this.x0 - 8) / (this.v1 - this.v0);
    ctx.fillStyle = th.bg;
    ctx.fillRect(0, 0, W, H);
    const scrollTop = this.scroller.scrollTop;
    const ticks = this.ticks(W);

    ctx.save();
    ctx.beginPath();
    ctx.rect(this.x0, TL.ruler, W - this.x0, H - TL.ruler);
    ctx.clip();
    this.forVisibleLanes(H, scrollTop, (lane, li, y, hgt) => {
      if (li % 2) {
        ctx.fillStyle = th.laneAlt;
        ctx.fillRect(this.x0, y, W - this.x0, hgt);
      }
    });
    this.paintWindows(ctx, H);
    ctx.strokeStyle = th.grid;
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (const t of ticks.list) {
      const x = Math.round(this.timeToX(t)) + 0.5;
      ctx.moveTo(x, TL.ruler);
      ctx.lineTo(x, H);
    }
    ctx.stroke();
    ctx.font = `11px ${th.font}`;
    ctx.textBaseline = 'middle';
    this.forVisibleLanes(H, scrollTop, (lane, _, y) => {
      const rows = this.laneRows(lane);
      for (let d = 0; d < rows && d < lane.rows.length; d++) {
        const ry = y + TL.pad + d * TL.row;
        if (ry > H || ry + TL.row < TL.ruler) continue;
        this.paintRow(ctx, lane.rows[d], ry, W);
      }
    });
    this.paintSelection(ctx, scrollTop);
    ctx.restore();
    this.paintGutter(ctx, H, scrollTop);
    this.paintRuler(ctx, W, ticks);
    this.paintOverview();
  }

  paintRow(ctx, row, y, W) {
    const m = this.m;
    const {v0, v1, scale, x0} = this;
    const h1 = TL.row - 1;
    let p = m.firstFrom(row, v0);
    let lastPx = -1;
    while (p < row.idx.length) {
      const i = row.idx[p];
      const s = m.start[i];
      if (s > v1) break;
      const e = s + m.dur[i];
      if (e < v0) {
        p++;
        continue;
      }
      const xa = x0 + (s - v0) * scale;
      const xb = x0 + (e - v0) * scale;
      const dim = this.dimmed(i);
      if (xb - xa < 1) {
        // Everything that starts within this pixel is one mark; the last one may reach past it.
        const px = Math.floor(xa);
        if (px > lastPx) {
          ctx.globalAlpha = dim ? 0.18 : 1;
          ctx.fillStyle = this.colorOf(i)[0];
          ctx.fillRect(px, y, 1, h1);
          lastPx = px;
        }
        const tNext = v0 + (px + 1 - x0) / scale;
        const q = lowerBound(row.starts, tNext);
        const last = q - 1 > p ? row.idx[q - 1] : -1;
        p = last >= 0 && m.start[last] + m.dur[last] >= tNext ? q - 1 : Math.max(q, p + 1);
        continue;
      }
      const a = Math.max(xa, x0 - 2);
      const b = Math.min(xb, W + 2);
      const [fillColor, textColor] = this.colorOf(i);
      ctx.globalAlpha = dim ? 0.18 : 1;
      ctx.fillStyle = fillColor;
      const w = b - a > 3 ? b - a - 0.5 : b - a;
      ctx.fillRect(a, y, w, h1);
      if (this.showPath && !dim && w > 4) {
        ctx.strokeStyle = this.theme.accent;
        ctx.lineWidth = 1.5;
        ctx.strokeRect(a + 0.75, y + 0.75, Math.max(0, w - 1.5), h1 - 1.5);
      }
      const merged = this.m.mergedCount(i);
      if (merged > 1) {
        ctx.fillStyle = this.hatch(ctx);
        ctx.fillRect(a, y, w, h1);
      }
      if (w > 26) {
        const label = merged > 1 ? fitText(ctx, `×${fmtCount(merged)} ${this.m.nameOf(i)}`, w - 6) :
                                   this.label(ctx, i, w - 6);
        if (label) {
          ctx.fillStyle = textColor;
          ctx.fillText(label, Math.max(a, x0) + 3, y + h1 / 2 + 0.5);
        }
      }
      lastPx = Math.floor(xb);
      p++;
    }
    ctx.globalAlpha = 1;
  }

  // Diagonal stripes over slices that stand for several merged ones.
  hatch(ctx) {
    if (!this.hatchPattern || this.hatchDark !== this.theme.dark) {
      const c = document.createElement('canvas');
      c.width = c.height = 6;
      const g = c.getContext('2d');
      g.strokeStyle = this.theme.dark ? 'rgba(0,0,0,0.45)' : 'rgba(255,255,255,0.55)';
      g.lineWidth = 1.5;
      g.beginPath();
      g.moveTo(-1, 7);
      g.lineTo(7, -1);
      g.stroke();
      this.hatchPattern = ctx.createPattern(c, 'repeat');
      this.hatchDark = this.theme.dark;
    }
    return this.hatchPattern;
  }

  label(ctx, i, width) {
    const ni = this.m.name[i];
    if (this.textWidth[ni] < 0) this.textWidth[ni] = ctx.measureText(this.m.strings[ni]).width;
    if (this.textWidth[ni] <= width) return this.m.strings[ni];
    return fitText(ctx, this.m.strings[ni], width);
  }

  paintWindows(ctx, H) {
    if (!this.m.windows.length) return;
    // Time outside every capture window was not recorded: shade it.
    ctx.fillStyle = this.theme.dark ? 'rgba(255,255,255,0.04)' : 'rgba(0,0,0,0.045)';
    let t = this.v0;
    for (const [s, e] of this.m.windows) {
      if (s > t) ctx.fillRect(this.timeToX(t), TL.ruler, (s - t) * this.scale, H);
      t = Math.max(t, e);
    }
    if (t < this.v1) ctx.fillRect(this.timeToX(t), TL.ruler, (this.v1 - t) * this.scale, H);
  }

  ticks(W) {
    const span = this.v1 - this.v0;
    const want = Math.max(2, (W - this.gutter(W)) / 110);
    const raw = span / want;
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((k) => k * mag).find((s) => s >= raw) || 10 * mag;
    const list = [];
    for (let t = Math.ceil(this.v0 / step) * step; t <= this.v1; t += step) list.push(t);
    return {step, list};
  }

  paintRuler(ctx, W, ticks) {
    const th = this.theme;
    ctx.fillStyle = th.bg;
    ctx.fillRect(0, 0, W, TL.ruler);
    ctx.strokeStyle = th.border;
    ctx.beginPath();
    ctx.moveTo(0, TL.ruler - 0.5);
    ctx.lineTo(W, TL.ruler - 0.5);
    ctx.stroke();
    ctx.fillStyle = th.muted;
    ctx.font = `11px ${th.font}`;
    ctx.textBaseline = 'middle';
    for (const t of ticks.list) {
      const x = this.timeToX(t);
      if (x < this.x0) continue;
      ctx.fillRect(Math.round(x), TL.ruler - 6, 1, 6);
      ctx.fillText(fmtTick(t, ticks.step), x + 4, TL.ruler / 2);
    }
    ctx.fillStyle = th.fg;
    ctx.fillText(`${fmtNs(this.v1 - this.v0)} shown`, 8, TL.ruler / 2);
  }

  paintGutter(ctx, H, scrollTop) {
    const th = this.theme;
    ctx.fillStyle = th.bg;
    ctx.fillRect(0, TL.ruler, this.x0, H - TL.ruler);
    ctx.strokeStyle = th.border;
    ctx.beginPath();
    ctx.moveTo(this.x0 - 0.5, TL.ruler);
    ctx.lineTo(this.x0 - 0.5, H);
    ctx.stroke();
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, TL.ruler, this.x0, H - TL.ruler);
    ctx.clip();
    this.forVisibleLanes(H, scrollTop, (lane, li, y, hgt) => {
      if (li % 2) {
        ctx.fillStyle = th.laneAlt;
        ctx.fillRect(0, y, this.x0 - 1, hgt);
      }
      // A strip in the lane kind's colour: host thread, GPU range lane, GPU stream.
      ctx.fillStyle = LANE_COLOR[lane.kind] ? LANE_COLOR[lane.kind][th.dark ? 1 : 0] : th.muted;
      ctx.fillRect(0, y + 2, 3, hgt - 4);
      ctx.font = `12px ${th.font}`;
      ctx.fillStyle = th.fg;
      const collapsible = lane.rows.length > 1;
      const mark = collapsible ? (this.collapsed.has(li) ? '▸ ' : '▾ ') : '';
      ctx.fillText(fitText(ctx, mark + lane.name, this.x0 - 20), 10, y + TL.pad + TL.row / 2);
      if (this.laneRows(lane) > 1 || lane.kind !== 'thread') {
        const sub = lane.kind === 'stream' ? this.m.devices.get(lane.device) || '' :
            lane.kind === 'range'          ? 'its scopes by GPU work' :
                                             'host thread';
        if (sub && this.laneRows(lane) > 1) {
          ctx.font = `11px ${th.font}`;
          ctx.fillStyle = th.muted;
          ctx.fillText(
              fitText(ctx, sub, this.x0 - 20), 10 + ctx.measureText(mark).width,
              y + TL.pad + TL.row * 1.5);
        }
      }
      ctx.strokeStyle = th.grid;
      ctx.beginPath();
      ctx.moveTo(0, Math.round(y + hgt) - 0.5);
      ctx.lineTo(this.x0, Math.round(y + hgt) - 0.5);
      ctx.stroke();
    });
    ctx.restore();
  }

  // The selection's outline and its launch arrows.
  paintSelection(ctx, scrollTop) {
    const i = this.sel;
    if (i < 0) return;
    const m = this.m;
    const th = this.theme;
    const flows = [];
    if (m.isGpu(i)) {
      if (m.flowOf[i] >= 0) flows.push(m.flowOf[i]);
    } else {
      // What the slice and the slices nested in it launched, up to a readable number of arrows.
      const todo = [i];
      while (todo.length && flows.length < 400) {
        const j = todo.pop();
        for (const k of m.flowsFrom(j))
          if (flows.length < 400) flows.push(k);
        if (m.lanes[m.lane[j]].kind === 'thread') todo.push(...m.childrenOf(j));
      }
    }
    // Many arrows (a layer's launches, zoomed out) are drawn lighter so they stay apart.
    ctx.lineWidth = flows.length > 24 ? 1 : 1.5;
    ctx.globalAlpha = flows.length > 24 ? 0.55 : 1;
    for (const k of flows) {
      const from = m.flowFrom[k];
      const to = m.flowTo[k];
      const at = m.flowAt[k] >= 0 ? m.flowAt[k] : m.start[from];
      const xs = this.timeToX(at);
      const ys = this.rowTop(from) - scrollTop + TL.row - 1;
      const xt = this.timeToX(m.start[to]);
      const down = this.rowTop(to) > this.rowTop(from);
      const yt = this.rowTop(to) - scrollTop + (down ? 0 : TL.row - 1);
      this.outline(ctx, to, scrollTop, th.accent);
      ctx.strokeStyle = th.accent;
      ctx.fillStyle = th.accent;
      ctx.beginPath();
      ctx.arc(xs, ys, 2.5, 0, 2 * Math.PI);
      ctx.fill();
      ctx.beginPath();
      ctx.moveTo(xs, ys);
      const bend = (yt - ys) * 0.5;
      ctx.bezierCurveTo(xs, ys + bend, xt, yt - bend, xt, yt);
      ctx.stroke();
      const dir = down ? 1 : -1;
      ctx.beginPath();
      ctx.moveTo(xt, yt);
      ctx.lineTo(xt - 4, yt - 7 * dir);
      ctx.lineTo(xt + 4, yt - 7 * dir);
      ctx.closePath();
      ctx.fill();
    }
    ctx.globalAlpha = 1;
    this.outline(ctx, i, scrollTop, th.select);
  }

  outline(ctx, i, scrollTop, color) {
    const xa = Math.max(this.timeToX(this.m.start[i]), this.x0 - 2);
    const xb = Math.min(this.timeToX(this.m.start[i] + this.m.dur[i]), this.x0 + 1e5);
    const y = this.rowTop(i) - scrollTop;
    ctx.strokeStyle = color;
    ctx.lineWidth = 2;
    ctx.strokeRect(xa - 1, y - 1, Math.max(xb - xa, 1) + 2, TL.row + 1);
  }

  // Busy share of host threads (top) and GPU streams (bottom) over the whole span, and the view.
  paintOverview() {
    const W = this.scroller.clientWidth;
    const H = TL.overview;
    const ctx = fitCanvas(this.overview, W, H);
    const th = this.theme;
    const x0 = this.x0;
    const width = Math.max(1, W - x0 - 8);
    const pad = Math.max(this.m.span * 0.01, 1);
    const f0 = -pad;
    const fspan = this.m.span + 2 * pad;
    if (!this.overviewCache || this.overviewCache.width !== width)
      this.overviewCache = this.density(width, f0, fspan);
    const {cpu, gpu} = this.overviewCache;
    ctx.fillStyle = th.bg;
    ctx.fillRect(0, 0, W, H);
    ctx.font = `600 9px ${th.font}`;
    ctx.textBaseline = 'middle';
    ctx.fillStyle = th.muted;
    ctx.fillText('CPU', 8, H * 0.27);
    ctx.fillText('GPU', 8, H * 0.73);
    ctx.font = `11px ${th.font}`;
    ctx.fillText(fitText(ctx, 'busy over the whole trace', x0 - 42), 34, H / 2);
    const half = H / 2 - 3;
    ctx.fillStyle = th.dark ? 'hsl(260, 30%, 62%)' : 'hsl(260, 32%, 58%)';
    for (let x = 0; x < width; x++)
      if (cpu[x] > 0) ctx.fillRect(x0 + x, 2 + half * (1 - cpu[x]), 1, Math.max(1, half * cpu[x]));
    ctx.fillStyle = th.dark ? 'hsl(150, 45%, 48%)' : 'hsl(150, 50%, 40%)';
    for (let x = 0; x < width; x++)
      if (gpu[x] > 0)
        ctx.fillRect(x0 + x, H / 2 + 1 + half * (1 - gpu[x]), 1, Math.max(1, half * gpu[x]));
    // The view: what lies outside it is veiled.
    const a = Math.max(x0, x0 + ((this.v0 - f0) / fspan) * width);
    const b = Math.min(x0 + width, x0 + ((this.v1 - f0) / fspan) * width);
    ctx.fillStyle = th.dark ? 'rgba(13,16,20,0.6)' : 'rgba(255,255,255,0.66)';
    ctx.fillRect(x0, 0, a - x0, H);
    ctx.fillRect(b, 0, x0 + width - b, H);
    ctx.strokeStyle = th.accent;
    ctx.lineWidth = 1;
    ctx.strokeRect(Math.round(a) + 0.5, 0.5, Math.max(Math.round(b - a) - 1, 2), H - 1);
    this.overviewMap = {x0, width, f0, fspan};
  }

  density(width, f0, fspan) {
    const m = this.m;
    const cpu = new Float32Array(width);
    const gpu = new Float32Array(width);
    let threads = 0;
    let streams = 0;
    const perPx = fspan / width;
    for (const lane of m.lanes) {
      if (lane.kind === 'range' || !lane.rows.length) continue;
      const out = lane.kind === 'thread' ? cpu : gpu;
      if (lane.kind === 'thread')
        threads++;
      else
        streams++;
      const row = lane.rows[0];
      for (let p = 0; p < row.idx.length; p++) {
        const i = row.idx[p];
        let s = (m.start[i] - f0) / perPx;
        const e = (m.start[i] + m.dur[i] - f0) / perPx;
        while (s < e) {
          const px = Math.floor(s);
          const next = Math.min(e, px + 1);
          if (px >= 0 && px < width) out[px] += next - s;
          s = next;
        }
      }
    }
    for (let x = 0; x < width; x++) {
      cpu[x] = threads ? Math.min(1, cpu[x] / threads) : 0;
      gpu[x] = streams ? Math.min(1, gpu[x] / streams) : 0;
    }
    return {width, cpu, gpu};
  }

  // ---- details ----

  showDetails() {
    const m = this.m;
    const i = this.sel;
    if (i < 0) {
      this.details.replaceChildren(
          h('span', {class: 'muted', text: 'Click a slice for its details and launch arrows.'}));
      return;
    }
    const lane = m.lanes[m.lane[i]];
    const facts = [
      ['kind', m.kindOf(i)],
      ['lane', lane.name],
      ['start', '+' + fmtNs(m.start[i])],
      ['duration', fmtNs(m.dur[i])],
    ];
    const merged = m.mergedCount(i);
    if (merged > 1)
      facts.unshift(
          ['merged', `${fmtCount(merged)} short slices, shown as one; the longest is named`]);
    else if (lane.kind === 'thread')
      facts.push(['self', fmtNs(m.selfTime(i))]);
    facts.push(...this.launchFacts(i));
    facts.push(['node', String(m.node[i])]);
    const path = lane.kind === 'thread' ? m.path(i) : [];
    this.details.replaceChildren(
        ...[h('div', {class: 'tl-sel-name'},
              h('i', {class: 'swatch', style: `background:${this.colorOf(i)[0]}`}), m.nameOf(i)),
            path.length ? h('div', {class: 'muted path', text: path.join(' › ')}) : null,
            h('dl', null,
              facts.map(([k, v]) => h('div', null, h('dt', {text: k}), h('dd', {text: v})))),
    ].filter(Boolean));
  }

  // Launch facts of slice i: where a GPU operation was launched, or what a host slice launched.
  launchFacts(i) {
    const m = this.m;
    if (m.mergedCount(i) > 1) return [];
    if (m.isGpu(i)) {
      const k = m.flowOf[i];
      if (k < 0) return [['launched', 'no launching scope recorded']];
      const out = [['launched from', m.nameOf(m.flowFrom[k])]];
      if (m.flowAt[k] >= 0) {
        out.push(['launch call', '+' + fmtNs(m.flowAt[k])]);
        out.push(['queued', fmtNs(Math.max(0, m.start[i] - m.flowAt[k]))]);
      }
      return out;
    }
    const flows = m.flowsFrom(i);
    if (!flows.length) return [];
    let gpu = 0;
    for (const k of flows) gpu += m.dur[m.flowTo[k]];
    return [[
      'launched',
      `${fmtCount(flows.length)} GPU operation${flows.length === 1 ? '' : 's'}, ${
          fmtNs(gpu)} GPU time`
    ]];
  }

  tooltipFor(i, clientX, clientY) {
    const m = this.m;
    const lane = m.lanes[m.lane[i]];
    const merged = m.mergedCount(i);
    const rows = [
      ['kind', `${m.kindOf(i)} · ${lane.name}`], ['start', '+' + fmtNs(m.start[i])],
      [merged > 1 ? 'spans' : 'duration', fmtNs(m.dur[i])]
    ];
    if (merged > 1)
      rows.unshift(['merged', `${fmtCount(merged)} short slices; the longest is named`]);
    else if (lane.kind === 'thread')
      rows.push(['self', fmtNs(m.selfTime(i))]);
    rows.push(...this.launchFacts(i));
    if (this.onPath && this.onPath[i]) rows.push(['critical path', 'on it']);
    tooltip.show(clientX, clientY, m.nameOf(i), rows);
  }

  // ---- input ----

  bindPointer() {
    const c = this.canvas;
    let drag = null;
    c.addEventListener('wheel', (e) => {
      e.preventDefault();
      const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
      const x = e.offsetX;
      if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
        const d = (e.shiftKey ? e.deltaY || e.deltaX : e.deltaX) * unit;
        this.pan(d / this.scale);
      } else {
        const t = this.v0 + (Math.max(x, this.x0) - this.x0) / this.scale;
        this.zoomAt(t, Math.exp(e.deltaY * unit * 0.0015));
      }
    }, {passive: false});
    c.addEventListener('pointerdown', (e) => {
      if (e.button !== 0) return;
      drag = {
        x: e.clientX,
        y: e.clientY,
        v0: this.v0,
        v1: this.v1,
        top: this.scroller.scrollTop,
        moved: false
      };
      c.setPointerCapture(e.pointerId);
    });
    c.addEventListener('pointermove', (e) => {
      if (drag) {
        const dx = e.clientX - drag.x;
        const dy = e.clientY - drag.y;
        if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
        if (drag.moved) {
          tooltip.hide();
          this.v0 = drag.v0 - dx / this.scale;
          this.v1 = drag.v1 - dx / this.scale;
          this.clamp();
          this.scroller.scrollTop = drag.top - dy;
          this.draw();
        }
        return;
      }
      const i = this.hitAt(e.offsetX, e.offsetY);
      c.style.cursor = i >= 0 ? 'pointer' : e.offsetX < this.x0 ? 'default' : 'grab';
      if (i >= 0)
        this.tooltipFor(i, e.clientX, e.clientY);
      else
        tooltip.hide();
    });
    c.addEventListener('pointerup', (e) => {
      if (!drag) return;
      const moved = drag.moved;
      drag = null;
      if (moved) return;
      if (e.offsetX < this.x0) return this.toggleLane(e.offsetY);
      this.select(this.hitAt(e.offsetX, e.offsetY), false);
    });
    c.addEventListener('pointerleave', () => tooltip.hide());
    c.addEventListener('dblclick', (e) => {
      const i = this.hitAt(e.offsetX, e.offsetY);
      if (i >= 0) this.fit(i);
    });
  }

  toggleLane(y) {
    const cy = y + this.scroller.scrollTop;
    const lane = upperBound(this.laneTop, cy) - 1;
    if (lane < 0 || this.m.lanes[lane].rows.length < 2) return;
    if (this.collapsed.has(lane))
      this.collapsed.delete(lane);
    else
      this.collapsed.add(lane);
    if (this.sel >= 0 && this.m.lane[this.sel] === lane && this.m.depth[this.sel] > 0)
      this.select(-1);
    this.layout();
  }

  fit(i) {
    const s = this.m.start[i];
    const d = Math.max(this.m.dur[i], TL.minSpan);
    this.zoomTo(s - d * 0.08, s + d * 1.08);
  }

  bindKeys() {
    this.canvas.addEventListener('keydown', (e) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const span = this.v1 - this.v0;
      const mid = (this.v0 + this.v1) / 2;
      const m = this.m;
      let handled = true;
      switch (e.key) {
        case 'w':
        case 'W':
        case '+':
        case '=':
          this.zoomAt(mid, 0.7);
          break;
        case 's':
        case 'S':
        case '-':
        case '_':
          this.zoomAt(mid, 1 / 0.7);
          break;
        case 'a':
        case 'A':
        case 'ArrowLeft':
          this.pan(-span * 0.15);
          break;
        case 'd':
        case 'D':
        case 'ArrowRight':
          this.pan(span * 0.15);
          break;
        case '0':
        case 'Home':
          this.reset();
          break;
        case 'Escape':
          this.select(-1);
          break;
        case 'f':
        case 'F':
        case 'Enter':
          if (this.sel >= 0) this.fit(this.sel);
          break;
        case '[':
        case ']':
          this.step(e.key === ']' ? 1 : -1);
          break;
        case 'ArrowUp':
          this.climb();
          break;
        case 'ArrowDown':
          this.descend();
          break;
        default:
          handled = false;
      }
      if (handled) e.preventDefault();
    });
  }

  // Next or previous slice in the selection's row (or the first slice in view).
  step(dir) {
    const m = this.m;
    if (this.sel < 0) {
      for (const lane of m.lanes) {
        const row = lane.rows[0];
        if (!row || !row.idx.length) continue;
        const p = Math.min(lowerBound(row.starts, this.v0), row.idx.length - 1);
        return this.select(row.idx[p], true);
      }
      return;
    }
    const j = m.neighbour(this.sel, dir);
    if (j >= 0) this.select(j, true);
  }

  climb() {
    const m = this.m;
    if (this.sel < 0) return;
    const up = m.isGpu(this.sel) ? (m.flowOf[this.sel] >= 0 ? m.flowFrom[m.flowOf[this.sel]] : -1) :
                                   m.parentOf(this.sel);
    if (up >= 0) this.select(up, true);
  }

  descend() {
    const m = this.m;
    if (this.sel < 0 || m.isGpu(this.sel)) return;
    const kids = m.childrenOf(this.sel);
    if (kids.length && !this.collapsed.has(m.lane[this.sel])) return this.select(kids[0], true);
    const flows = m.flowsFrom(this.sel);
    if (flows.length) this.select(m.flowTo[flows[0]], true);
  }

  bindOverview() {
    const o = this.overview;
    let dragging = false;
    const center = (e) => {
      const map = this.overviewMap;
      if (!map) return;
      const t = map.f0 + ((e.offsetX - map.x0) / map.width) * map.fspan;
      this.pan(t - (this.v0 + this.v1) / 2);
    };
    o.addEventListener('pointerdown', (e) => {
      dragging = true;
      o.setPointerCapture(e.pointerId);
      center(e);
    });
    o.addEventListener('pointermove', (e) => dragging && center(e));
    o.addEventListener('pointerup', () => (dragging = false));
    o.addEventListener('wheel', (e) => {
      e.preventDefault();
      this.zoomAt(
          (this.v0 + this.v1) / 2, Math.exp(e.deltaY * (e.deltaMode === 1 ? 16 : 1) * 0.0015));
    }, {passive: false});
  }

  // For tests and the console: what the view holds and shows.
  state() {
    return {
      slices: this.m.n,
      lanes: this.m.lanes.length,
      flows: this.m.flowTo.length,
      v0: this.v0,
      v1: this.v1,
      selected: this.sel,
      selectedName: this.sel >= 0 ? this.m.nameOf(this.sel) : null,
      critical: this.showPath
    };
  }
}
