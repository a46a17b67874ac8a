// The roofline chart (SVG, log-log): achieved FLOP/s against arithmetic intensity, each device's
// memory and compute roofs, one point per kernel (circle) and per brick (diamond) of the report's
// roofline view; entries above their roof are ringed. Hover or focus a point for its figures.

const RL = {
  w: 920,
  h: 430,
  l: 64,
  r: 170,
  t: 16,
  b: 46
};

function rooflineView(view) {
  const entries = (view && view.entries) || [];
  const wrap = h('div', {class: 'roofline'});
  if (!entries.length) {
    wrap.append(banner(
        'No kernel or brick carries FLOP or byte counts, ' +
            'so there is nothing to place on a roofline.',
        'muted'));
    return {el: wrap, points: 0};
  }
  const devices = new Map();
  for (const e of entries) {
    if (!devices.has(e.on))
      devices.set(
          e.on,
          {
            gflops: e.peak_gflops,
            gbps: e.peak_gbps,
            source: e.peaks_source,
            label: e.peaks_label,
            index: devices.size
          });
  }
  const finite = (v) => Number.isFinite(v) && v > 0;
  const xsData = entries.map((e) => e.intensity).filter(finite);
  const ysData = entries.map((e) => e.gflops).filter(finite);
  const ridges = [...devices.values()]
                     .filter((d) => finite(d.gflops) && finite(d.gbps))
                     .map((d) => d.gflops / d.gbps);
  const peaks = [...devices.values()].map((d) => d.gflops).filter(finite);
  const decade = (v, up) => Math.pow(10, up ? Math.ceil(Math.log10(v)) : Math.floor(Math.log10(v)));
  const xv = xsData.concat(ridges);
  const yv = ysData.concat(peaks);
  const xmin = decade((xv.length ? Math.min(...xv) : 0.1) / 2, false);
  const xmax = decade((xv.length ? Math.max(...xv) : 10) * 2, true);
  const ymin = decade((yv.length ? Math.min(...yv) : 1) / 2, false);
  const ymax = decade((yv.length ? Math.max(...yv) : 10) * 1.6, true);
  const lx = (v) => Math.log10(v);
  const pw = RL.w - RL.l - RL.r;
  const ph = RL.h - RL.t - RL.b;
  const sx = (v) => RL.l + ((lx(v) - lx(xmin)) / (lx(xmax) - lx(xmin))) * pw;
  const sy = (v) => RL.t + ph - ((lx(v) - lx(ymin)) / (lx(ymax) - lx(ymin))) * ph;
  const clampX = (v) => (v > 0 ? Math.min(Math.max(v, xmin), xmax) : xmin);
  const clampY = (v) => (v > 0 ? Math.min(Math.max(v, ymin), ymax) : ymin);

  const chart = svg('svg', {
    class: 'roofline-chart',
    viewBox: `0 0 ${RL.w} ${RL.h}`,
    role: 'img',
    'aria-label': `Roofline: ${entries.length} kernels and bricks against the roofs of ${
        devices.size} device(s)`
  });
  const grid = svg('g', {class: 'grid'});
  const axes = svg('g', {class: 'axes'});
  for (let v = xmin; v <= xmax * 1.0001; v *= 10) {
    grid.append(svg('line', {x1: sx(v), x2: sx(v), y1: RL.t, y2: RL.t + ph}));
    axes.append(
        svg('text', {x: sx(v), y: RL.t + ph + 16, 'text-anchor': 'middle', text: shortNumber(v)}));
  }
  for (let v = ymin; v <= ymax * 1.0001; v *= 10) {
    grid.append(svg('line', {x1: RL.l, x2: RL.l + pw, y1: sy(v), y2: sy(v)}));
    axes.append(
        svg('text', {x: RL.l - 8, y: sy(v) + 4, 'text-anchor': 'end', text: shortNumber(v * 1e9)}));
  }
  axes.append(svg('rect', {class: 'frame', x: RL.l, y: RL.t, width: pw, height: ph}));
  axes.append(svg('text', {
    class: 'title',
    x: RL.l + pw / 2,
    y: RL.h - 8,
    'text-anchor': 'middle',
    text: 'arithmetic intensity (FLOP/byte)'
  }));
  axes.append(svg('text', {
    class: 'title',
    x: 14,
    y: RL.t + ph / 2,
    'text-anchor': 'middle',
    transform: `rotate(-90 14 ${RL.t + ph / 2})`,
    text: 'achieved FLOP/s'
  }));
  chart.append(grid, axes);

  const roofs = svg('g', {class: 'roofs'});
  for (const [on, d] of devices) {
    if (!finite(d.gflops) || !finite(d.gbps)) continue;
    const ridge = d.gflops / d.gbps;
    const x0 = Math.max(xmin, ymin / d.gbps);
    const pts = [[x0, d.gbps * x0], [ridge, d.gflops], [xmax, d.gflops]];
    const cls = `roof dev${d.index % 6}`;
    roofs.append(svg('polyline', {
      class: cls,
      points: pts.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' ')
    }));
    roofs.append(
        svg('text', {class: `roof-label dev${d.index % 6}`, x: RL.l + pw + 6, y: sy(d.gflops) + 4},
            `${on} ${fmtGflops(d.gflops)}`));
    // The bandwidth along the memory roof, near its low end.
    const bx = Math.min(x0 * 2.2, ridge / 3);
    if (bx > x0) {
      const angle =
          (Math.atan2(sy(d.gbps * bx * 4) - sy(d.gbps * bx), sx(bx * 4) - sx(bx)) * 180) / Math.PI;
      roofs.append(
          svg('text', {
            class: `roof-label dev${d.index % 6}`,
            x: sx(bx),
            y: sy(d.gbps * bx) - 6,
            transform: `rotate(${angle.toFixed(1)} ${sx(bx).toFixed(1)} ${
                (sy(d.gbps * bx) - 6).toFixed(1)})`
          },
              fmtGbps(d.gbps)));
    }
    roofs.append(svg('line', {
      class: `ridge dev${d.index % 6}`,
      x1: sx(ridge),
      x2: sx(ridge),
      y1: sy(d.gflops),
      y2: RL.t + ph
    }));
  }
  chart.append(roofs);

  const points = svg('g', {class: 'points'});
  const byEntry = new Map();
  let offChart = 0;
  // Bricks first, so the (usually smaller) kernel circles sit on top.
  const order = entries.map((e, i) => i)
                    .sort(
                        (a, b) => (entries[a].kind === 'brick' ? 0 : 1) -
                            (entries[b].kind === 'brick' ? 0 : 1));
  for (const i of order) {
    const e = entries[i];
    const d = devices.get(e.on);
    const edge = !(finite(e.intensity) && finite(e.gflops));
    offChart += edge;
    const x =
        sx(clampX(typeof e.intensity === 'number' ? e.intensity : Infinity));  // no bytes: infinite
    const y = sy(clampY(e.gflops));
    const cls = [
      'point', e.kind, `dev${d.index % 6}`, e.above_roof ? 'above' : '', edge ? 'edge' : ''
    ].join(' ').trim();
    const label = `${e.kind} ${e.name} on ${e.on}: ${fmtGflops(e.gflops)} at ${
        fmtIntensity(e.intensity)} FLOP/B, ${fmtPct(e.efficiency)} of its roof`;
    const shape = e.kind === 'brick' ?
        svg('path', {d: `M${x.toFixed(1)} ${(y - 6.5).toFixed(1)}l6.5 6.5l-6.5 6.5l-6.5 -6.5z`}) :
        svg('circle', {cx: x.toFixed(1), cy: y.toFixed(1), r: 4.5});
    fill(
        shape, {
          class: cls,
          tabindex: '0',
          'aria-label': label,
          'data-name': e.name,
          'data-kind': e.kind,
          'data-on': e.on
        },
        []);
    const show = (cx, cy) => tooltip.show(cx, cy, e.name, rooflineFacts(e));
    shape.addEventListener('pointerenter', (ev) => show(ev.clientX, ev.clientY));
    shape.addEventListener('pointermove', (ev) => show(ev.clientX, ev.clientY));
    shape.addEventListener('pointerleave', () => tooltip.hide());
    shape.addEventListener('focus', () => {
      const r = shape.getBoundingClientRect();
      show(r.right, r.bottom);
    });
    shape.addEventListener('blur', () => tooltip.hide());
    points.append(shape);
    byEntry.set(e, shape);
  }
  chart.append(points);

  const legend =
      h('div', {class: 'legend'}, h('span', null, h('i', {class: 'key-circle'}), 'kernel'),
        h('span', null, h('i', {class: 'key-diamond'}), 'brick'),
        h('span', null, h('i', {class: 'key-above'}), 'above its roof'),
        [...devices].map(
            ([on, d]) =>
                // Headed by the device and, for a CPU, its instruction set; the whole source
                // in the tooltip.
                h('span', {title: d.source || null}, h('i', {class: `swatch dev${d.index % 6}`}),
                  `${d.label || on}: ${fmtGflops(d.gflops)}, ${fmtGbps(d.gbps)}, ridge ${
                      fmtIntensity(d.gflops / d.gbps)} FLOP/B`,
                  d.source && !d.label ? ` (${d.source})` : '')));
  const above = entries.filter((e) => e.above_roof).length;
  const notes = [];
  if (above)
    notes.push(`${above} ${above === 1 ? 'entry is' : 'entries are'} above ${
        above === 1 ?
            'its' :
            'their'} roof: the annotated bytes came partly from cache, or the peaks are low.`);
  if (offChart)
    notes.push(
        `${offChart} ${offChart === 1 ? 'entry has' : 'entries have'} no FLOPs or no bytes and ${
            offChart === 1 ? 'sits' : 'sit'} on the chart's edge.`);
  if (view.unannotated_kernels)
    notes.push(
        fmtCount(view.unannotated_kernels) +
        ' kernel launches carry no work annotation and are not shown.');
  wrap.append(
      h('div', {class: 'chart-box'}, chart), legend,
      ...notes.map((t) => h('p', {class: 'note', text: t})));

  const highlight = (e) => {
    for (const el of points.querySelectorAll('.hl')) el.classList.remove('hl');
    const el = byEntry.get(e);
    if (el) {
      el.classList.add('hl');
      el.parentNode.append(el);
      chart.scrollIntoView({block: 'nearest', behavior: 'smooth'});
    }
  };
  wrap.append(dataTable(
      [
        {label: 'Name', value: (e) => e.name, text: (e) => nameCell(e.name)},
        {label: 'Kind', value: (e) => e.kind},
        {label: 'On', value: (e) => e.on},
        {label: 'Count', value: (e) => e.count, text: (e) => fmtCount(e.count), num: true},
        {
          label: 'Time',
          value: (e) => e.time_ns,
          text: (e) => fmtNs(e.time_ns),
          num: true,
          bar: true
        },
        {
          label: 'FLOP/B',
          value: (e) => e.intensity || 0,
          text: (e) => fmtIntensity(e.intensity),
          num: true
        },
        {label: 'FLOP/s', value: (e) => e.gflops, text: (e) => fmtGflops(e.gflops), num: true},
        {label: 'B/s', value: (e) => e.gbps, text: (e) => fmtGbps(e.gbps), num: true},
        {label: 'Bound', value: (e) => e.bound},
        {
          label: 'Of roof',
          value: (e) => e.efficiency,
          text: (e) => fmtPct(e.efficiency),
          num: true,
          bar: true,
          cls: (e) => (e.above_roof ? 'bad-text' : '')
        },
        {
          label: 'Work from',
          value: (e) => e.work_source,
          title: 'where the FLOP and byte counts come from'
        },
      ],
      entries, {sortBy: 4, desc: true, limit: 10, onRow: highlight}));
  return {el: wrap, points: entries.length};
}

function rooflineFacts(e) {
  const rows = [
    ['kind', `${e.kind} on ${e.on}`],
    ['count', fmtCount(e.count)],
    ['time', fmtNs(e.time_ns)],
    ['work', `${fmtRate(e.flops)} FLOP, ${fmtBytes(e.bytes)} (${e.work_source})`],
    ['intensity', `${fmtIntensity(e.intensity)} FLOP/B`],
    ['achieved', `${fmtGflops(e.gflops)}, ${fmtGbps(e.gbps)}`],
    ['roof here', `${fmtGflops(e.roof_gflops)} (${e.bound} bound)`],
    ['of the roof', fmtPct(e.efficiency)],
  ];
  if (e.above_roof) rows.push(['above roof', 'bytes partly from cache, or low peaks']);
  return rows;
}

function fmtIntensity(v) {
  if (v === null || v === undefined) return '∞';
  if (!Number.isFinite(v)) return '∞';
  if (v === 0) return '0';
  return v >= 100 ? v.toFixed(0) :
      v >= 10     ? v.toFixed(1) :
      v >= 0.1    ? v.toFixed(2) :
                    v.toPrecision(2);
}

// Axis labels: 0.01, 0.1, 1, 10, 1K, 1M, 1G, 1T.
function shortNumber(v) {
  if (v < 1) return String(Number(v.toPrecision(1)));
  const units = [[1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'K']];
  for (const [s, u] of units)
    if (v >= s) return String(Math.round(v / s)) + u;
  return String(Math.round(v));
}
