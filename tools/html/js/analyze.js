// The analyzer (report --analyze): per-op summary with the spread of one call, the slowest calls
// and the scope that issued each, memory hotspots, devices, balance and communication.

function analyzeSection(view, body, timeline) {
  const ops = view.ops || [];
  const devices = view.devices || [];
  body.append(
      h('div', {class: 'cards'},
        card('Leaf work', fmtNs(view.total_ns), `${fmtCount(ops.length)} distinct operations`),
        devices.map(
            (d) => card(
                d.device, fmtNs(d.total_ns),
                `${fmtCount(d.ops)} ops` + (d.bytes ? ` · ${fmtBytes(d.bytes)}` : ''))),
        view.imbalance_ratio ?
            card(
                'GPU imbalance', view.imbalance_ratio.toFixed(2) + '×', 'busiest GPU over the mean',
                view.imbalance_ratio > 1.2 ? 'warn' : null) :
            null));
  body.append(
      h('h3', {text: 'Operations'}),
      dataTable(
          [
            {label: 'Name', value: (o) => o.name, text: (o) => nameCell(o.name)},
            {label: 'Kind', value: (o) => o.kind},
            {label: 'Count', value: (o) => o.count, text: (o) => fmtCount(o.count), num: true},
            {
              label: 'Total',
              value: (o) => o.total_ns,
              text: (o) => fmtNs(o.total_ns),
              num: true,
              bar: true
            },
            {label: 'Share', value: (o) => o.share, text: (o) => fmtPct(o.share), num: true},
            {label: 'Avg', value: (o) => o.avg_ns, text: (o) => fmtNs(o.avg_ns), num: true},
            {label: 'Min', value: (o) => o.min_ns, text: (o) => fmtNs(o.min_ns), num: true},
            {
              label: 'Median',
              value: (o) => o.median_ns,
              text: (o) => fmtNs(o.median_ns),
              num: true
            },
            {label: 'p99', value: (o) => o.p99_ns, text: (o) => fmtNs(o.p99_ns), num: true},
            {label: 'Max', value: (o) => o.max_ns, text: (o) => fmtNs(o.max_ns), num: true},
            {
              label: 'Bytes',
              value: (o) => o.bytes || 0,
              text: (o) => (o.bytes ? fmtBytes(o.bytes) : '–'),
              num: true
            },
          ],
          ops, {sortBy: 3, limit: 12}));
  const grid = h('div', {class: 'two-col'});
  body.append(grid);
  grid.append(
      h('div', null, h('h3', {text: 'Slowest calls'}),
        dataTable(
            [
              {label: 'Name', value: (s) => s.name, text: (s) => nameCell(s.name)},
              {
                label: 'Duration',
                value: (s) => s.duration_ns,
                text: (s) => fmtNs(s.duration_ns),
                num: true,
                bar: true
              },
              {
                label: 'Issued in',
                value: (s) => s.scope || '',
                text: (s) => nameCell(s.scope || '–')
              },
              {label: 'Node', value: (s) => s.node, num: true},
            ],
            view.slowest || [], {
              sortBy: 1,
              limit: 10,
              compact: true,
              onRow: timeline ? (s) => timeline.showNode(s.node) : null
            })));
  const hot = view.hotspots || [];
  grid.append(
      h('div', null, h('h3', {text: 'Memory hotspots'}),
        hot.length ? genericTable(hot) : h('p', {class: 'muted', text: 'none'})));
  if ((view.communication || []).length)
    body.append(h('h3', {text: 'Communication'}), genericTable(view.communication));
}

// A table of flat objects whose keys are not known in advance: times by their _ns suffix,
// sizes by "bytes", shares by "share"/"pct".
function genericTable(rows) {
  const keys = Object.keys(rows[0]).filter(
      (k) => rows.every((r) => typeof r[k] !== 'object' || r[k] === null));
  return dataTable(
      keys.map((k) => {
        const num = typeof rows[0][k] === 'number';
        const text = /_ns$/.test(k) ? (r) => fmtNs(r[k]) :
            /bytes/.test(k)         ? (r) => fmtBytes(r[k]) :
            k === 'share'           ? (r) => fmtPct(r[k]) :
            /pct$/.test(k)          ? (r) => `${Number(r[k]).toFixed(1)}%` :
                                      (r) => (num ? fmtCount(r[k]) : String(r[k]));
        return {label: k.replace(/_ns$/, '').replace(/_/g, ' '), value: (r) => r[k], text, num};
      }),
      rows, {limit: 10, compact: true});
}
