// What check_page.py asks of a loaded report page, read through window.brickprofPage and the
// DOM. Evaluated in the page after it is ready; defines window.probe.
window.probe = (() => {
  const page = window.brickprofPage;
  const tl = () => page.timeline;
  const all = (selector) => [...document.querySelectorAll(selector)];

  // Scrolls so an element's top sits under the sticky top bar.
  function show(id) {
    document.getElementById(id).scrollIntoView({block: 'start'});
    window.scrollBy(0, -60);
  }

  return {
    show,
    sections: () => all('section').map((s) => s.id),
    failedViews: () => all('.banner.bad').length,
    rooflinePoints: () => all('.roofline-chart .point').map((p) => [p.dataset.kind, p.dataset.name]),

    // Per lane: its kind and keys, and the trace node of each slice.
    lanes: () => tl().m.lanes.map((l) => {
      const nodes = [];
      for (let i = l.first; i < l.first + l.count; i++) nodes.push(tl().m.node[i]);
      return {kind: l.kind, tid: l.tid, device: l.device, stream: l.stream, nodes};
    }),
    // Launch arrows as (host node, GPU node).
    flows: () => {
      const m = tl().m;
      return Array.from(m.flowTo, (to, k) => [m.node[m.flowFrom[k]], m.node[to]]);
    },
    // The longest GPU operation, else the longest host slice (not on a range lane).
    longestSlice: () => {
      const m = tl().m;
      let best = -1;
      for (let i = 0; i < m.n; i++) {
        if (m.lanes[m.lane[i]].kind === 'range') continue;
        const better = best < 0 || m.isGpu(i) > m.isGpu(best) ||
            (m.isGpu(i) === m.isGpu(best) && m.dur[i] > m.dur[best]);
        if (better) best = i;
      }
      return best;
    },
    firstMerged: () => {
      const m = tl().m;
      for (let i = 0; i < m.n; i++) if (m.mergedCount(i) > 1) return i;
      return -1;
    },
    // Nodes shown as recorded (not merged), off the range lanes.
    recordedNodes: () => {
      const m = tl().m;
      const out = [];
      for (let i = 0; i < m.n; i++) {
        if (m.lanes[m.lane[i]].kind !== 'range' && m.mergedCount(i) === 1) out.push(m.node[i]);
      }
      return out;
    },
    slice: (i) => ({name: tl().m.nameOf(i), gpu: tl().m.isGpu(i), launched: tl().m.flowOf[i] >= 0}),
    // Zooms so slice i fills the middle fifth of the view, scrolled into sight; returns the page
    // coordinates of its middle.
    aim: (i, spread) => {
      const t = tl();
      const m = t.m;
      t.zoomTo(m.start[i] - m.dur[i] * spread, m.start[i] + m.dur[i] * (spread + 1));
      show('timeline');
      t.reveal(i);
      t.paint();
      const r = t.canvas.getBoundingClientRect();
      return [r.left + t.timeToX(m.start[i] + m.dur[i] / 2),
        r.top + t.rowTop(i) - t.scroller.scrollTop + 8];
    },
    state: () => tl().state(),
    scale: () => tl().scale,
    focusTimeline: () => tl().canvas.focus(),
    tooltip: () => {
      const el = document.getElementById('tooltip');
      const title = el.querySelector('.tip-title');
      return {hidden: el.hidden, title: title ? title.textContent : null, text: el.textContent};
    },
    details: () => document.querySelector('.tl-details').textContent,
    critical: () => {
      document.getElementById('tl-critical').click();
      let marked = 0;
      for (const v of tl().onPath) marked += v;
      return {on: tl().state().critical, marked};
    },
    reducedBanner: () => (document.querySelector('#timeline .banner.warn') || {}).textContent || '',

    // The flame graph's root in both widths.
    icicleTotals: () => {
      const v = page.icicle;
      const mode = v.mode;
      v.setMode('cpu');
      const cpu = v.value(0);
      v.setMode('gpu');
      const gpu = v.value(0);
      v.setMode(mode);
      return {cpu, gpu};
    },
    // The widest child of the root and the page coordinates of its middle.
    icicleChild: () => {
      const v = page.icicle;
      show('flame');
      const c = v.children[0].filter((e) => v.value(e) > 0).sort((a, b) => v.value(b) - v.value(a))[0];
      const r = v.canvas.getBoundingClientRect();
      return [c, r.left + (v.x[c] + v.value(c) / 2) * v.scale, r.top + 30];
    },
    icicleZoom: () => page.icicle.zoom,
    // Finds frames named like `text`; returns the status line.
    icicleFind: (text) => {
      page.icicle.search.value = text;
      page.icicle.search.dispatchEvent(new Event('input'));
      return page.icicle.status.textContent;
    },
    diffKernels: () => all('#diff-kernels tbody tr').map((r) => [...r.cells].map((c) => c.textContent)),
    diffOutputs: () => all('#diff-outputs tbody tr').map((r) => [...r.cells].map((c) => c.textContent)),
    outputsText: () => document.getElementById('diff-outputs').textContent,
    crumbs: () => all('.crumbs .crumb').length,
    focusIcicle: () => page.icicle.canvas.focus(),

    // Nothing selected, outlined or found; the whole trace in view.
    plainTimeline: () => {
      const t = tl();
      t.select(-1);
      t.setCritical(false);
      t.find('');
      t.reset(false);
      t.paint();
    },
    // The timeline's plot (right of the lane names, under the ruler), in page coordinates.
    plotRect: () => {
      const t = tl();
      const r = t.canvas.getBoundingClientRect();
      const top = 24;  // the ruler
      return [r.left + t.x0, r.top + window.scrollY + top, r.width - t.x0, r.height - top];
    },
    rect: (selector) => {
      const r = document.querySelector(selector).getBoundingClientRect();
      return [r.left, r.top + window.scrollY, r.width, r.height];
    },
    diffBricks: () => all('#diff-bricks tbody tr').map((r) => [...r.cells].map((c) => c.textContent)),
    cards: () => all('#overview .card').map((c) => c.textContent),
  };
})();
