// Memory (report --memory): each account's peak and headroom, its live bytes over the run as a
// step chart (the view's `timeline`), what was live at the peak, growing repeated scopes and
// out-of-memory failures.

const MC = {w: 920, h: 300, l: 74, r: 16, t: 14, b: 38};

// Live bytes of every account over the run, one step line each, a shared time axis from the
// first change.
function memoryChart(accounts) {
  const series = accounts.filter((a) => (a.timeline || []).length);
  if (!series.length) return null;
  let t0 = Infinity, t1 = -Infinity, ymax = 0;
  for (const a of series)
    for (const [t, v] of a.timeline) {
      t0 = Math.min(t0, t);
      t1 = Math.max(t1, t);
      ymax = Math.max(ymax, v);
    }
  if (t1 <= t0) t1 = t0 + 1;
  if (ymax <= 0) ymax = 1;
  const pw = MC.w - MC.l - MC.r, ph = MC.h - MC.t - MC.b;
  const sx = (t) => MC.l + ((t - t0) / (t1 - t0)) * pw;
  const sy = (v) => MC.t + ph - (v / ymax) * ph;
  const chart = svg('svg', {
    class: 'memory-chart',
    viewBox: `0 0 ${MC.w} ${MC.h}`,
    role: 'img',
    'aria-label': `Live memory over the run: ${series.length} account(s), the highest ${
        fmtBytes(ymax)}`
  });
  const grid = svg('g', {class: 'grid'}), axes = svg('g', {class: 'axes'});
  for (let k = 0; k <= 4; k++) {
    const v = (ymax * k) / 4;
    grid.append(svg('line', {x1: MC.l, x2: MC.l + pw, y1: sy(v), y2: sy(v)}));
    axes.append(svg('text', {x: MC.l - 8, y: sy(v) + 4, 'text-anchor': 'end', text: fmtBytes(v)}));
  }
  for (let k = 0; k <= 5; k++) {
    const t = t0 + ((t1 - t0) * k) / 5;
    axes.append(svg(
        'text', {x: sx(t), y: MC.t + ph + 16, 'text-anchor': 'middle', text: fmtNs(t - t0)}));
  }
  axes.append(svg('rect', {class: 'frame', x: MC.l, y: MC.t, width: pw, height: ph}));
  axes.append(svg('text', {
    class: 'title',
    x: MC.l + pw / 2,
    y: MC.h - 4,
    'text-anchor': 'middle',
    text: 'time from the first allocation'
  }));
  chart.append(grid, axes);
  series.forEach((a, i) => {
    let d = '';
    let last = null;
    for (const [t, v] of a.timeline) {
      const x = sx(t).toFixed(1), y = sy(v).toFixed(1);
      d += last === null ? `M${x} ${sy(0).toFixed(1)}V${y}` : `H${x}V${y}`;
      last = y;
    }
    d += `H${(MC.l + pw).toFixed(1)}`;
    const line = svg('path', {class: `memory-line dev${i % 6}`, d});
    line.append(svg('title', {text: `${a.label}: peak ${fmtBytes(a.peak_bytes)}`}));
    chart.append(line);
  });
  const legend = h('div', {class: 'legend'},
                   series.map((a, i) => h('span', null, h('i', {class: `swatch dev${i % 6}`}),
                                          `${a.label} (peak ${fmtBytes(a.peak_bytes)})`)));
  return h('div', {class: 'chart-box'}, chart, legend);
}

function memorySection(view, body) {
  const accounts = view.accounts || [];
  if (!accounts.length) {
    body.append(banner('No memory events in this trace.', 'muted'));
    return;
  }
  const oom = view.out_of_memory || {};
  body.append(h(
      'div', {class: 'cards'},
      accounts.map((a) => {
        const when = a.peak ? ` in ${a.peak.scope || '(outside every scope)'}` : '';
        const room = a.memory_bytes ? `; ${fmtBytes(a.headroom_bytes)} headroom of ${
                                          fmtBytes(a.memory_bytes)}` :
                                      '';
        return card(a.label, fmtBytes(a.peak_bytes), `peak${when}${room}`,
                    a.memory_bytes && a.headroom_bytes < a.memory_bytes / 10 ? 'warn' : null);
      }),
      card('Out of memory', fmtCount(oom.count || 0),
           'allocations that failed with CUDA_ERROR_OUT_OF_MEMORY', oom.count ? 'bad' : null),
      card('Growing scopes', fmtCount((view.growing || []).length),
           'repeated scopes whose every run left memory behind',
           (view.growing || []).length ? 'warn' : null)));
  const chart = memoryChart(accounts);
  if (chart) body.append(chart);
  const groupColumns = (key, label) => [
    {label, value: (g) => g[key] || '', text: (g) => nameCell(g[key] || '–')},
    {label: 'Bytes', value: (g) => g.bytes, text: (g) => fmtBytes(g.bytes), num: true, bar: true},
    {label: 'Allocations', value: (g) => g.allocations, num: true},
  ];
  for (const a of accounts) {
    if (!(a.peak_by_scope || []).length) continue;
    const grid = h('div', {class: 'two-col'});
    grid.append(
        h('div', null, h('h3', {text: `${a.label}: live at the peak, by scope`}),
          dataTable(groupColumns('scope', 'Scope'), a.peak_by_scope,
                    {sortBy: 1, limit: 8, compact: true})),
        h('div', null, h('h3', {text: 'by Python line'}),
          dataTable(groupColumns('python', 'Python line'), a.peak_by_python || [],
                    {sortBy: 1, limit: 8, compact: true})));
    body.append(grid);
  }
  if ((view.growing || []).length) {
    body.append(
        h('h3', {text: 'Repeated scopes whose allocations survive every run'}),
        dataTable(
            [
              {label: 'Scope', value: (g) => g.scope || '', text: (g) => nameCell(g.scope || '–')},
              {label: 'Account', value: (g) => (accounts[g.account] || {}).label || ''},
              {label: 'Runs', value: (g) => g.runs, num: true},
              {
                label: 'Per run',
                value: (g) => g.per_run_bytes,
                text: (g) => fmtBytes(g.per_run_bytes),
                num: true,
                bar: true
              },
              {label: 'In all', value: (g) => g.total_bytes, text: (g) => fmtBytes(g.total_bytes),
               num: true},
            ],
            view.growing, {sortBy: 4, limit: 8}));
  }
  for (const f of oom.failures || []) {
    const a = accounts[f.account] || {};
    body.append(
        h('h3', {
          text: `Out of memory: ${f.api} asked ${fmtBytes(f.bytes)} of ${a.label} in ${
              f.scope || '(outside every scope)'} with ${fmtBytes(f.live_bytes)} live` +
              (f.memory_bytes ? ` of ${fmtBytes(f.memory_bytes)}` : '')
        }),
        dataTable(groupColumns('scope', 'Live then, by scope'), f.live_by_scope || [],
                  {sortBy: 1, limit: 8, compact: true}));
  }
}
