// The ranks of a merged job (report --ranks, --collectives, --imbalance, --rank-path): each
// rank's time split into compute, waiting in collectives, communication, memory and idle; the
// collectives' arrival skew and stragglers; compute imbalance per layer and brick; the critical
// path across ranks and what making one rank as fast as the median would save.

// Only a job of several ranks has something to compare.
function hasRanks(v) {
  return !!(v.ranks && (v.ranks.ranks || []).length > 1);
}

function rankLabel(ranks, index) {
  const r = (ranks || []).find((x) => x.index === index);
  return r ? r.label : `rank ${index}`;
}

function ranksSection(v, body) {
  const labels = v.ranks.ranks;
  const rows = v.ranks.rows || [];
  const coll = v.collectives;
  const path = v['rank-path'];
  const stragglers =
      coll ? (coll.per_rank || []).slice().sort((a, b) => b.last_arrivals - a.last_arrivals) : [];
  const slowest = stragglers.length && stragglers[0].last_arrivals > 0 ? stragglers[0] : null;
  const best = path && (path.what_if || []).length ? path.what_if[0] : null;
  const span = path ? path.measured_end_ns - path.start_ns : 0;
  body.append(
      h('div', {class: 'cards'},
        card('Ranks', fmtCount(labels.length), `${fmtCount(rows.length)} timelines`),
        coll ? card(
                   'Collectives', fmtCount(coll.instances_count),
                   coll.incomplete ? `${fmtCount(coll.incomplete)} not matched on every rank` :
                                     'each matched on every rank') :
                                     null,
        slowest ?
                                  card(
                                      'Last to arrive', rankLabel(labels, slowest.rank),
                                      `last at ${fmtCount(slowest.last_arrivals)} of ${fmtCount(coll.instances_count)} ` +
                    `collectives; the others waited ${
                        fmtNs(coll.ops.reduce((s, o) => s + o.wait_ns, 0))}`,
                'warn') :
                                  null,
        best ? card(
                                         'What if', fmtNs(best.saving_ns),
                                         `saved if ${rankLabel(labels, best.rank)} were as fast as the median rank (×${
                       best.scale.toFixed(2)} own work)` +
                       (span > 0 ? `, ${fmtPct(best.saving_ns / span)} of the span` : '')) :
                                                         null));

  body.append(h('h3', {text: 'Where each rank\'s time went'}));
  for (const r of rows) {
    const parts = [
      {value: r.compute_ns, label: 'compute', text: fmtNs(r.compute_ns), cls: 'busy'},
      {
        value: r.waiting_ns,
        label: 'waiting in collectives',
        text: fmtNs(r.waiting_ns),
        cls: 'host'
      },
      {
        value: r.communication_ns,
        label: 'communication',
        text: fmtNs(r.communication_ns),
        cls: 'issued'
      },
      {value: r.memory_ns, label: 'memory', text: fmtNs(r.memory_ns), cls: 'memory'},
      {value: r.idle_ns, label: 'idle', text: fmtNs(r.idle_ns), cls: 'unknown'},
    ];
    body.append(
        h('div', {class: 'rank-row'},
          h('span', {class: 'rank-label', text: `${rankLabel(labels, r.rank)} (${r.timeline})`}),
          stackedBar(parts, r.span_ns, `${rankLabel(labels, r.rank)} span`)));
  }
  body.append(dataTable(
      [
        {label: 'Rank', value: (r) => r.rank, text: (r) => rankLabel(labels, r.rank)},
        {label: 'On', value: (r) => r.timeline},
        {label: 'Span', value: (r) => r.span_ns, text: (r) => fmtNs(r.span_ns), num: true},
        {
          label: 'Compute',
          value: (r) => r.compute_share,
          text: (r) => fmtPct(r.compute_share),
          num: true,
          bar: true
        },
        {
          label: 'Waiting',
          value: (r) => r.waiting_share,
          text: (r) => fmtPct(r.waiting_share),
          num: true,
          bar: true
        },
        {
          label: 'Communication',
          value: (r) => r.communication_share,
          text: (r) => fmtPct(r.communication_share),
          num: true
        },
        {
          label: 'Memory',
          value: (r) => r.memory_share,
          text: (r) => fmtPct(r.memory_share),
          num: true
        },
        {label: 'Idle', value: (r) => r.idle_share, text: (r) => fmtPct(r.idle_share), num: true},
        {
          label: 'Overlap',
          value: (r) => r.overlap_ns,
          text: (r) => fmtNs(r.overlap_ns),
          num: true,
          title: 'communication overlapped with compute'
        },
      ],
      rows, {compact: true, sortBy: 0, desc: false}));

  const memory = v.ranks.memory || [];
  if (memory.length) {
    body.append(h('h3', {text: 'Memory per rank (peak live bytes; headroom of a GPU\'s memory)'}));
    body.append(dataTable(
        [
          {label: 'Rank', value: (m) => m.rank, text: (m) => rankLabel(labels, m.rank)},
          {label: 'Account', value: (m) => m.label},
          {label: 'Peak', value: (m) => m.peak_bytes, text: (m) => fmtBytes(m.peak_bytes),
           num: true, bar: true},
          {
            label: 'Headroom',
            value: (m) => m.headroom_bytes,
            text: (m) => m.memory_bytes ? `${fmtBytes(m.headroom_bytes)} of ${
                                              fmtBytes(m.memory_bytes)}` :
                                          '–',
            num: true
          },
        ],
        memory, {compact: true, sortBy: 0, desc: false}));
  }

  if (coll && (coll.ops || []).length) {
    body.append(h('h3', {text: 'Collectives'}));
    const grid = h('div', {class: 'two-col'});
    body.append(grid);
    grid.append(
        h('div', null, h('h4', {text: 'Per operation'}),
          dataTable(
              [
                {label: 'Operation', value: (o) => o.op},
                {
                  label: 'Instances',
                  value: (o) => o.instances,
                  text: (o) => fmtCount(o.instances),
                  num: true
                },
                {label: 'Bytes', value: (o) => o.bytes, text: (o) => fmtBytes(o.bytes), num: true},
                {
                  label: 'Skew',
                  value: (o) => o.skew_ns,
                  text: (o) => fmtNs(o.skew_ns),
                  num: true,
                  bar: true,
                  title: 'first to last arrival, summed over the instances'
                },
                {
                  label: 'Max skew',
                  value: (o) => o.max_skew_ns,
                  text: (o) => fmtNs(o.max_skew_ns),
                  num: true
                },
                {label: 'Wait', value: (o) => o.wait_ns, text: (o) => fmtNs(o.wait_ns), num: true},
              ],
              coll.ops, {compact: true, sortBy: 3})));
    grid.append(
        h('div', null, h('h4', {text: 'Per rank'}),
          dataTable(
              [
                {label: 'Rank', value: (r) => r.rank, text: (r) => rankLabel(labels, r.rank)},
                {label: 'Calls', value: (r) => r.calls, text: (r) => fmtCount(r.calls), num: true},
                {
                  label: 'In calls',
                  value: (r) => r.call_ns,
                  text: (r) => fmtNs(r.call_ns),
                  num: true
                },
                {
                  label: 'Waiting',
                  value: (r) => r.wait_ns,
                  text: (r) => fmtNs(r.wait_ns),
                  num: true,
                  bar: true
                },
                {
                  label: 'Last to arrive',
                  value: (r) => r.last_arrivals,
                  text: (r) => fmtCount(r.last_arrivals),
                  num: true,
                  cls: (r) => (slowest && r.rank === slowest.rank ? 'worse' : null)
                },
              ],
              coll.per_rank || [], {compact: true, sortBy: 0, desc: false})));
  }

  const imb = v.imbalance;
  if (imb && ((imb.layers || []).length || (imb.bricks || []).length)) {
    body.append(h('h3', {text: 'Compute imbalance'}));
    const columns = (key, title) =>
        [{
          label: title,
          value: (x) => x[key],
          text: (x) => (key === 'layer' ? `Layer ${x.layer}` : nameCell(x.brick))
        },
         ...labels.map((r, i) => ({
                         label: r.label,
                         value: (x) => x.compute_ns[i],
                         text: (x) => fmtNs(x.compute_ns[i]),
                         num: true,
                         cls: (x) => (x.straggler === i ? 'worse' : null)
                       })),
         {
           label: 'Max / mean',
           value: (x) => x.max_over_mean,
           text: (x) => x.max_over_mean.toFixed(2),
           num: true,
           bar: true
         },
         {
           label: 'Straggler',
           value: (x) => x.straggler,
           text: (x) => rankLabel(labels, x.straggler)
         },
         {
           label: 'Excess each',
           value: (x) => x.excess_per_instance_ns,
           text: (x) => fmtNs(x.excess_per_instance_ns),
           num: true
         },
    ];
    const grid = h('div', {class: 'two-col'});
    body.append(grid);
    if ((imb.layers || []).length)
      grid.append(
          h('div', null, h('h4', {text: 'Per layer'}),
            dataTable(
                columns('layer', 'Layer'), imb.layers, {compact: true, sortBy: 0, desc: false})));
    if ((imb.bricks || []).length)
      grid.append(h(
          'div', null, h('h4', {text: 'Per brick'}),
          dataTable(
              columns('brick', 'Brick'), imb.bricks, {compact: true, sortBy: labels.length + 1})));
  }

  if (path && (path.shares || []).length) {
    body.append(h('h3', {text: 'Critical path across ranks'}));
    body.append(h('p', {
      class: 'note',
      text: `${fmtNs(span)} from the first rank's start to the last rank's end, through ${
          fmtCount(
              path.collectives)} blocking collective calls (a collective ends when its last rank arrives).`
    }));
    body.append(dataTable(
        [
          {label: 'Rank', value: (s) => s.rank, text: (s) => rankLabel(labels, s.rank)},
          {label: 'Own work', value: (s) => s.work_ns, text: (s) => fmtNs(s.work_ns), num: true},
          {
            label: 'On the path',
            value: (s) => s.on_path_ns,
            text: (s) => fmtNs(s.on_path_ns),
            num: true,
            bar: true
          },
          {
            label: 'Share',
            value: (s) => (span > 0 ? s.on_path_ns / span : 0),
            text: (s) => fmtPct(span > 0 ? s.on_path_ns / span : 0),
            num: true
          },
        ],
        path.shares, {compact: true, sortBy: 2}));
  }
}
