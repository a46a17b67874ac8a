// The icicle (flame graph, root on top) of the aggregate tree (contract: tools/html/README.md,
// "icicle"): width is GPU time or CPU time; click a frame to zoom into it, click an ancestor or
// press Escape to zoom out; arrow keys move between frames, Enter zooms.

const IC = {
  row: 20
};

class IcicleView {
  constructor(data, palette) {
    const n = data.name.length;
    for (const k of ['kind', 'parent', 'count', 'total', 'self', 'gpu']) {
      if (!Array.isArray(data[k]) || data[k].length !== n)
        throw new Error(`icicle.${k}: expected ${n} values`);
    }
    this.d = data;
    this.n = n;
    this.palette = palette;
    this.kindName = data.kind.map((k) => data.kinds[k]);
    this.children = Array.from({length: n}, () => []);
    this.depth = new Int32Array(n);
    for (let e = 1; e < n; e++) {
      const p = data.parent[e];
      if (!(p >= 0 && p < e)) throw new Error(`icicle.parent[${e}]: must name an earlier entry`);
      this.children[p].push(e);
      this.depth[e] = this.depth[p] + 1;
    }
    this.maxDepth = this.depth.reduce((a, b) => Math.max(a, b), 0);
    const gpuTotal = n ? data.gpu[0] : 0;
    this.mode = gpuTotal > 0 ? 'gpu' : 'cpu';
    this.zoom = 0;
    this.focus = 0;
    this.build(gpuTotal > 0);
    this.theme = themeColors();
    onThemeChange(() => {
      this.theme = themeColors();
      this.palette.setScheme(this.theme.dark);
      this.paint();
    });
  }

  isGpu(e) {
    const k = this.kindName[e];
    return k === 'kernel' || k === 'transfer' || k === 'memset';
  }

  value(e) {
    if (this.mode === 'gpu') return this.d.gpu[e];
    return this.isGpu(e) ? 0 : this.d.total[e];
  }

  build(hasGpu) {
    const modes = h('div', {class: 'seg', role: 'radiogroup', 'aria-label': 'Frame width'});
    for (const [mode, label] of [['gpu', 'GPU time'], ['cpu', 'CPU time']]) {
      const b =
          h('button',
            {type: 'button', role: 'radio', text: label, disabled: mode === 'gpu' && !hasGpu});
      b.addEventListener('click', () => this.setMode(mode));
      b.dataset.mode = mode;
      modes.append(b);
    }
    this.modes = modes;
    this.crumbs = h('nav', {class: 'crumbs', 'aria-label': 'Zoomed frame'});
    this.canvas = h('canvas', {
      class: 'icicle-canvas',
      tabindex: '0',
      role: 'application',
      'aria-label': 'Flame graph. Click or Enter zooms into a frame, Escape zooms out, ' +
          'arrow keys move between frames.'
    });
    this.status = h('div', {class: 'muted ic-status', 'aria-live': 'polite'});
    this.search = h('input', {
      type: 'search',
      placeholder: 'Find frames by name',
      'aria-label': 'Find frames by name',
      spellcheck: 'false'
    });
    this.search.addEventListener('input', () => this.find(this.search.value));
    this.match = null;
    this.el =
        h('div', {class: 'icicle'}, h('div', {class: 'tl-bar'}, modes, this.search, this.crumbs),
          this.canvas, this.status);
    let width = -1;
    new ResizeObserver(() => requestAnimationFrame(() => {
                         if (this.el.clientWidth !== width) {
                           width = this.el.clientWidth;
                           this.paint();
                         }
                       }))
        .observe(this.el);
    this.bindInput();
    this.update();
  }

  // Frames whose name contains `query` keep their colour, the rest fade.
  find(query) {
    const q = query.trim().toLowerCase();
    this.match = q ?
        Uint8Array.from(this.d.name, (k) => (this.d.strings[k].toLowerCase().includes(q) ? 1 : 0)) :
        null;
    this.paint();
  }

  // Time under matching frames, each counted once (not again under a matching ancestor).
  matchedValue() {
    const inside = new Uint8Array(this.n);
    let sum = 0;
    for (let e = 0; e < this.n; e++) {
      const p = this.d.parent[e];
      inside[e] = p >= 0 && (inside[p] || this.match[p]) ? 1 : 0;
      if (this.match[e] && !inside[e]) sum += this.value(e);
    }
    return sum;
  }

  setMode(mode) {
    this.mode = mode;
    if (this.value(this.zoom) <= 0) this.zoom = 0;
    this.update();
  }

  zoomTo(e) {
    this.zoom = e;
    this.focus = e;
    this.update();
  }

  update() {
    for (const b of this.modes.children)
      b.setAttribute('aria-checked', b.dataset.mode === this.mode ? 'true' : 'false');
    this.layout();
    const chain = [];
    for (let e = this.zoom; e >= 0; e = this.d.parent[e]) chain.push(e);
    chain.reverse();
    this.crumbs.replaceChildren(
        ...chain
            .map((e, k) => {
              const b = h('button', {type: 'button', class: 'crumb', text: this.nameOf(e)});
              b.addEventListener('click', () => this.zoomTo(e));
              return k ? [h('span', {class: 'sep', text: '›'}), b] : b;
            })
            .flat());
    this.paint();
  }

  nameOf(e) {
    return this.d.strings[this.d.name[e]];
  }

  // x offsets (in units of value) of every frame within the root, parents before children.
  layout() {
    this.x = new Float64Array(this.n);
    for (let e = 0; e < this.n; e++) {
      let x = this.x[e];
      for (const c of this.children[e]) {
        this.x[c] = x;
        x += this.value(c);
      }
    }
  }

  paint() {
    const W = this.el.clientWidth;
    if (W <= 0 || !this.x) return;
    const rows = this.maxDepth + 1;
    const H = rows * IC.row + 2;
    const ctx = fitCanvas(this.canvas, W, H);
    const th = this.theme;
    this.palette.setScheme(th.dark);
    ctx.fillStyle = th.bg;
    ctx.fillRect(0, 0, W, H);
    const z = this.zoom;
    const zv = this.value(z);
    this.scale = zv > 0 ? W / zv : 0;
    ctx.font = `11px ${th.font}`;
    ctx.textBaseline = 'middle';
    // Ancestors of the zoomed frame span the width, faded.
    for (let e = this.d.parent[z]; e >= 0; e = this.d.parent[e]) this.frame(ctx, e, 0, W, true);
    if (this.scale > 0) {
      const todo = [z];
      while (todo.length) {
        const e = todo.pop();
        const xa = (this.x[e] - this.x[z]) * this.scale;
        const w = this.value(e) * this.scale;
        if (w < 0.4) continue;
        this.frame(ctx, e, xa, w, false);
        for (const c of this.children[e]) todo.push(c);
      }
    }
    const total = this.value(0);
    if (this.match) {
      let frames = 0;
      for (let e = 0; e < this.n; e++) frames += this.match[e] && this.value(e) > 0 ? 1 : 0;
      const sum = this.matchedValue();
      this.status.textContent =
          `${fmtCount(frames)} frame${frames === 1 ? '' : 's'} match: ${fmtNs(sum)}, ` +
          `${fmtPct(total > 0 ? sum / total : 0)} of all ${
              this.mode === 'gpu' ? 'GPU' : 'CPU'} time`;
      return;
    }
    this.status.textContent = zv > 0 ?
        `${this.nameOf(z)}: ${fmtNs(zv)} of ${this.mode === 'gpu' ? 'GPU' : 'CPU'} time` +
            (z ? `, ${fmtPct(zv / total)} of all` : '') :
                 `No ${this.mode === 'gpu' ? 'GPU' : 'CPU'         } time under this frame.`;
  }

  frame(ctx, e, xa, w, faded) {
    const y = this.depth[e] * IC.row;
    const [fillColor, textColor] = this.palette.of(this.kindName[e], this.nameOf(e));
    ctx.globalAlpha = this.match && !this.match[e] ? 0.2 : faded ? 0.45 : 1;
    ctx.fillStyle = fillColor;
    ctx.fillRect(xa, y, Math.max(w - (w > 3 ? 1 : 0), 0.6), IC.row - 1);
    if (e === this.focus && document.activeElement === this.canvas) {
      ctx.strokeStyle = this.theme.select;
      ctx.lineWidth = 2;
      ctx.strokeRect(xa + 1, y + 1, Math.max(w - 3, 1), IC.row - 3);
    }
    if (w > 30) {
      const count = this.d.count[e] > 1 ? ` ×${fmtCount(this.d.count[e])}` : '';
      const label = fitText(ctx, this.nameOf(e) + count, w - 8);
      if (label) {
        ctx.fillStyle = textColor;
        ctx.fillText(label, xa + 4, y + IC.row / 2);
      }
    }
    ctx.globalAlpha = 1;
  }

  // The frame under a point, or -1.
  hitAt(x, y) {
    const depth = Math.floor(y / IC.row);
    const z = this.zoom;
    if (depth < this.depth[z]) {
      for (let e = z; e >= 0; e = this.d.parent[e])
        if (this.depth[e] === depth) return e;
      return -1;
    }
    if (!(this.scale > 0)) return -1;
    const v = this.x[z] + x / this.scale;
    let e = z;
    if (v < this.x[z] || v >= this.x[z] + this.value(z)) return -1;
    while (this.depth[e] < depth) {
      const next = this.children[e].find(
          (c) => this.value(c) > 0 && v >= this.x[c] && v < this.x[c] + this.value(c));
      if (next === undefined) return -1;
      e = next;
    }
    return e;
  }

  tooltipFor(e, clientX, clientY) {
    const d = this.d;
    const rows = [['kind', this.kindName[e]], ['count', fmtCount(d.count[e])]];
    if (!this.isGpu(e) && e > 0)
      rows.push(['CPU time', fmtNs(d.total[e])], ['CPU self', fmtNs(d.self[e])]);
    if (d.gpu[e] > 0)
      rows.push([this.isGpu(e) ? 'GPU time' : 'GPU time under it', fmtNs(d.gpu[e])]);
    const all = this.value(0);
    if (all > 0 && this.value(e) > 0)
      rows.push([
        'share', `${fmtPct(this.value(e) / all)} of all ${this.mode === 'gpu' ? 'GPU' : 'CPU'} time`
      ]);
    tooltip.show(clientX, clientY, this.nameOf(e), rows);
  }

  bindInput() {
    const c = this.canvas;
    c.addEventListener('pointermove', (e) => {
      const f = this.hitAt(e.offsetX, e.offsetY);
      c.style.cursor = f >= 0 ? 'pointer' : 'default';
      if (f >= 0)
        this.tooltipFor(f, e.clientX, e.clientY);
      else
        tooltip.hide();
    });
    c.addEventListener('pointerleave', () => tooltip.hide());
    c.addEventListener('focus', () => this.paint());
    c.addEventListener('blur', () => this.paint());
    c.addEventListener('click', (e) => {
      const f = this.hitAt(e.offsetX, e.offsetY);
      if (f >= 0) this.zoomTo(f);
    });
    c.addEventListener('keydown', (e) => {
      const f = this.focus;
      const visible = (x) => x >= 0 && this.value(x) > 0;
      let handled = true;
      switch (e.key) {
        case 'Escape':
        case 'Backspace':
          if (this.d.parent[this.zoom] >= 0) this.zoomTo(this.d.parent[this.zoom]);
          break;
        case 'Home':
          this.zoomTo(0);
          break;
        case 'Enter':
        case ' ':
          this.zoomTo(f);
          break;
        case 'ArrowDown': {
          const c0 = this.children[f].find(visible);
          if (c0 !== undefined) this.focus = c0;
          break;
        }
        case 'ArrowUp':
          if (this.d.parent[f] >= 0) this.focus = this.d.parent[f];
          break;
        case 'ArrowLeft':
        case 'ArrowRight': {
          const p = this.d.parent[f];
          if (p < 0) break;
          const sibs = this.children[p].filter(visible);
          const k = sibs.indexOf(f) + (e.key === 'ArrowRight' ? 1 : -1);
          if (k >= 0 && k < sibs.length) this.focus = sibs[k];
          break;
        }
        default:
          handled = false;
      }
      if (handled) {
        e.preventDefault();
        this.paint();
        this.status.textContent = `${this.nameOf(this.focus)} (${this.kindName[this.focus]}): ${
            fmtNs(this.value(this.focus))}`;
      }
    });
  }
}
