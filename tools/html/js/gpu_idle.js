// GPU busy and idle per device (report --gpu-idle): the span split into busy, waiting for the
// host and issued-not-started, gap sizes by decade, the host scopes the GPU waited on, and the
// largest gaps (a click zooms the timeline to one).

const GAP_DECADES = [
  ['under_10us', '< 10µs'], ['10us_100us', '10–100µs'], ['100us_1ms', '100µs–1ms'],
  ['1ms_plus', '≥ 1ms']
];

function gpuIdleSection(view, body, timeline) {
  const devices = view.devices || [];
  if (!devices.length) {
    body.append(banner('No GPU operations in this trace.', 'muted'));
    return;
  }
  for (const d of devices) {
    const box = h('div', {class: 'device'});
    body.append(box);
    box.append(h('h3', {text: `GPU ${d.device}${d.name ? ': ' + d.name : ''}`}));
    box.append(
        h('div', {class: 'cards'},
          card(
              'Busy', fmtPct(d.span_ns > 0 ? d.busy_ns / d.span_ns : 0),
              `${fmtNs(d.busy_ns)} of ${fmtNs(d.span_ns)}, ${fmtCount(d.operations)} operations`),
          card(
              'Kernels alone', fmtPct(d.span_ns > 0 ? d.kernel_busy_ns / d.span_ns : 0),
              fmtNs(d.kernel_busy_ns)),
          card(
              'Idle', fmtNs(d.idle_ns),
              `${fmtCount(d.gaps)} gaps` +
                  (d.outside_capture_ns ?
                       ` · ${fmtNs(d.outside_capture_ns)} between capture windows left out` :
                       '')),
          card(
              'Waiting for the host', fmtPct(d.idle_ns > 0 ? d.host_ns / d.idle_ns : 0),
              `${fmtNs(d.host_ns)} of the idle time: nothing was queued`,
              d.idle_ns > 0 && d.host_ns / d.idle_ns > 0.5 ? 'warn' : null)));
    box.append(stackedBar(
        [
          {value: d.busy_ns, label: 'busy', text: fmtNs(d.busy_ns), cls: 'busy'},
          {value: d.host_ns, label: 'waiting for the host', text: fmtNs(d.host_ns), cls: 'host'},
          {
            value: d.issued_ns,
            label: 'issued, not started',
            text: fmtNs(d.issued_ns),
            cls: 'issued'
          },
          {value: d.unknown_ns, label: 'unknown', text: fmtNs(d.unknown_ns), cls: 'unknown'},
        ],
        d.busy_ns + d.host_ns + d.issued_ns + d.unknown_ns, `GPU ${d.device} span`));

    const sizes = d.gap_sizes || {};
    const maxNs = Math.max(1, ...GAP_DECADES.map(([k]) => (sizes[k] ? sizes[k].ns : 0)));
    const grid = h('div', {class: 'two-col'});
    box.append(grid);
    grid.append(
        h('div', null, h('h4', {text: 'Gap sizes'}),
          h('table', {class: 'data compact'},
            h('thead', null,
              h('tr', null, h('th', {text: 'Gap'}), h('th', {class: 'num', text: 'Count'}),
                h('th', {class: 'num', text: 'Idle time'}))),
            h('tbody', null, GAP_DECADES.map(([k, label]) => {
              const g = sizes[k] || {count: 0, ns: 0};
              const td = h('td', {class: 'num barred', text: fmtNs(g.ns)});
              td.style.setProperty('--w', ((100 * g.ns) / maxNs).toFixed(1) + '%');
              return h(
                  'tr', null, h('td', {text: label}),
                  h('td', {class: 'num', text: fmtCount(g.count)}), td);
            })))));
    grid.append(
        h('div', null, h('h4', {text: 'Host scopes the GPU waited on'}),
          dataTable(
              [
                {label: 'Scope', value: (r) => r.scope, text: (r) => nameCell(r.scope)},
                {
                  label: 'GPU waited',
                  value: (r) => r.ns,
                  text: (r) => fmtNs(r.ns),
                  num: true,
                  bar: true
                },
                {
                  label: 'Of host wait',
                  value: (r) => r.ns,
                  text: (r) => fmtPct(d.host_ns > 0 ? r.ns / d.host_ns : 0),
                  num: true
                },
              ],
              d.host_scopes || [], {sortBy: 1, limit: 8, compact: true})));

    const zoom = (g) => {
      if (!timeline) return;
      const s = g.start_ns - timeline.m.t0;
      timeline.zoomTo(s - g.ns * 0.5, s + g.ns * 1.5);
      document.getElementById('timeline').scrollIntoView({behavior: 'smooth'});
    };
    const t0 = timeline ? timeline.m.t0 : 0;
    box.append(
        h('h4',
          {text: 'Largest gaps' + (timeline ? ' (click one to see it on the timeline)' : '')}),
        dataTable(
            [
              {
                label: 'At',
                value: (g) => g.start_ns,
                text: (g) => '+' + fmtNs(g.start_ns - t0),
                num: true
              },
              {label: 'Gap', value: (g) => g.ns, text: (g) => fmtNs(g.ns), num: true, bar: true},
              {
                label: 'Host part',
                value: (g) => g.host_ns,
                text: (g) => fmtNs(g.host_ns),
                num: true
              },
              {
                label: 'Host was in',
                value: (g) => g.host_scope || '',
                text: (g) => nameCell(g.host_scope || '–')
              },
              {
                label: 'Next operation',
                value: (g) => g.next_name || '',
                text: (g) => nameCell(g.next_name || '–')
              },
              {
                label: 'Launched in',
                value: (g) => g.next_scope || '',
                text: (g) => nameCell(g.next_scope || '–')
              },
            ],
            d.largest_gaps || [], {sortBy: 1, limit: 10, onRow: timeline ? zoom : null}));
  }
}
