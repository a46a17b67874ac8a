// Transfer findings (report --transfers): copies per direction against the link, slow and
// pageable copies, ping-pong, repeated uploads.

function transfersSection(view, body, timeline) {
  const onRow = timeline ? (c) => timeline.showNode(c.node) : null;
  const totals = view.totals || [];
  if (!totals.length) {
    body.append(banner('No host-device copies in this trace.', 'muted'));
    return;
  }
  const link = view.link || {};
  body.append(
      h('div', {class: 'cards'},
        totals.map(
            (t) => card(
                t.direction, fmtBytes(t.bytes),
                `${fmtCount(t.count)} copies in ${fmtNs(t.time_ns)} · ${fmtGbps(t.gbps)}` +
                    (link.gbps && t.gbps !== null ? ` (${fmtPct(t.gbps / link.gbps)} of the link)` :
                                                    ''))),
        card('Link', link.gbps ? fmtGbps(link.gbps) : '–', link.source || ''),
        card(
            'Pageable', fmtCount(view.pageable_count || 0),
            `${fmtBytes(view.pageable_bytes || 0)} copied from or to pageable host memory`,
            view.pageable_count ? 'warn' : null),
        card(
            'Ping-pong', fmtCount((view.ping_pongs || []).length),
            'host ranges that went down and came back up',
            (view.ping_pongs || []).length ? 'warn' : null),
        card(
            'Repeated uploads', fmtCount((view.repeated_uploads || []).length),
            'the same host range uploaded again with no download between',
            (view.repeated_uploads || []).length ? 'warn' : null)));
  const copyColumns = [
    {label: 'Node', value: (c) => c.node, num: true},
    {label: 'Scope', value: (c) => c.scope || '', text: (c) => nameCell(c.scope || '–')},
    {label: 'Bytes', value: (c) => c.bytes, text: (c) => fmtBytes(c.bytes), num: true, bar: true},
    {label: 'Rate', value: (c) => c.gbps, text: (c) => fmtGbps(c.gbps), num: true},
    {label: 'Of link', value: (c) => c.link_share, text: (c) => fmtPct(c.link_share), num: true},
  ];
  const grid = h('div', {class: 'two-col'});
  body.append(grid);
  grid.append(
      h('div', null, h('h3', {text: 'Slow copies (under half the link)'}),
        dataTable(copyColumns, view.slow || [], {sortBy: 2, limit: 8, compact: true, onRow})));
  grid.append(
      h('div', null, h('h3', {text: 'Pageable copies'}),
        dataTable(copyColumns, view.pageable || [], {sortBy: 2, limit: 8, compact: true, onRow})));
  const ranges = [
    {
      label: 'Host address',
      value: (r) => r.host_addr,
      text: (r) => '0x' + Number(r.host_addr).toString(16)
    },
    {label: 'Bytes', value: (r) => r.bytes, text: (r) => fmtBytes(r.bytes), num: true},
  ];
  if ((view.ping_pongs || []).length)
    body.append(h('h3', {text: 'Ping-pong'}), genericTable(view.ping_pongs));
  if ((view.repeated_uploads || []).length) {
    body.append(
        h('h3', {text: 'Repeated uploads'}),
        dataTable(
            ranges.concat([
              {label: 'Uploads', value: (r) => r.uploads, num: true},
              {
                label: 'Wasted',
                value: (r) => r.wasted_bytes,
                text: (r) => fmtBytes(r.wasted_bytes),
                num: true,
                bar: true
              },
              {label: 'Scope', value: (r) => r.scope || '', text: (r) => nameCell(r.scope || '–')},
            ]),
            view.repeated_uploads, {sortBy: 3, limit: 8}));
  }
}
