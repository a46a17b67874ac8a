// The overview: cards for the span (and the time outside every scope), GPU busy share or why there
// is no GPU, top bricks, diagnostics and anything dropped, capture windows and what the page
// reduced; then the brick and category tables (report --summary). A run that recorded nothing
// says so, and what would record something, instead.

const DROP_COUNTERS = [
  ['dropped_events', 'events dropped (buffer full)'],
  ['ignored_api_calls', 'scope API calls with arguments left out'],
  ['dropped_activity_records', 'CUPTI activity records dropped'],
  ['zero_timestamp_records', 'records with a zero timestamp'],
  ['unbalanced_pops', 'unbalanced scope pops'],
  ['open_scopes_at_exit', 'scopes still open at exit'],
  ['scopes_cut_by_capture', 'scopes cut by a capture window'],
  ['records_outside_capture', 'records outside the capture windows'],
];

function summarySection(data, body) {
  const v = data.views;
  const s = v.summary || {};
  const p = s.process || {};
  const cards = h('div', {class: 'cards'});
  body.append(cards);

  const tl = data.timeline;
  const spanSub = [];
  if (s.outside_scopes_ns !== null && s.outside_scopes_ns !== undefined)
    spanSub.push(`${fmtNs(s.outside_scopes_ns)} of it outside every scope`);
  else if (tl && !s.nothing_recorded)
    spanSub.push(`${fmtNs(tl.span_ns)} from the first to the last event`);
  if (p.rank !== undefined && p.rank >= 0) spanSub.push(`rank ${p.rank}`);
  cards.append(card('Wall time', fmtNs(p.duration_ns), spanSub.join(' · ')));
  if (s.nothing_recorded) {
    // One line that says why the page is empty, and what would fill it.
    body.prepend(banner(s.nothing_recorded, 'warn'));
    cards.append(card('Recorded', 'nothing', 'no scope, NVTX range or GPU work ran', 'warn'));
  } else {
    const slow = s.slowest_kernel;
    const kernels = s.no_gpu ? [] : [`${fmtCount(s.kernels)} kernels`];
    if (slow && slow.name)
      kernels.push(`slowest ${slow.name} ${fmtNs(slow.gpu_ns)}` + (slow.brick ? ` in ${slow.brick}` : ''));
    cards.append(card(
        'Recorded', `${fmtCount(s.nodes)} nodes`,
        ['each a recorded scope or GPU operation'].concat(kernels).join(' · ')));
  }

  const idle = v['gpu-idle'];
  if (s.no_gpu) {
    // One plain line instead of a GPU figure that is not there: "GPU: <what>; <why>".
    const line = s.no_gpu.replace(/^GPU: /, '');
    const cut = line.indexOf('; ');
    cards.append(card('GPU', cut < 0 ? line : line.slice(0, cut), cut < 0 ? '' : line.slice(cut + 2)));
  } else if (idle && idle.devices && idle.devices.length) {
    for (const d of idle.devices) {
      const busy = d.span_ns > 0 ? d.busy_ns / d.span_ns : 0;
      cards.append(card(
          `GPU ${d.device} busy`, fmtPct(busy),
          h('span', null, meter(busy),
            ` kernels ${fmtPct(d.span_ns > 0 ? d.kernel_busy_ns / d.span_ns : 0)} · idle ${
                fmtNs(d.idle_ns)}, ` +
                `${fmtPct(d.idle_ns > 0 ? d.host_ns / d.idle_ns : 0)} of it waiting for the host`),
          busy < 0.5 ? 'warn' : null));
    }
  } else if (idle) {
    cards.append(card('GPU busy', 'no GPU work', 'the trace holds no kernels, copies or memsets'));
  }

  // Ranked by the GPU time they launched when there is any, else by their CPU time.
  const onGpu = (s.bricks || []).some((b) => b.gpu_ns > 0);
  const metric = (b) => (onGpu ? b.gpu_ns || 0 : b.total_ns);
  const other = (b) =>
      (onGpu ? `CPU ${fmtNs(b.total_ns)}` :
           b.gpu_ns ? `GPU ${fmtNs(b.gpu_ns)}` :
                      '');
  const bricks = (s.bricks || []).slice().sort((a, b) => metric(b) - metric(a));
  if (bricks.length) {
    const top = bricks.slice(0, 5);
    const max = metric(top[0]) || 1;
    cards.append(
        h('div', {class: 'card wide'},
          h('div', {class: 'card-label', text: `Top bricks (${onGpu ? 'GPU' : 'CPU'} time)`}),
          h('ol', {class: 'top-list'},
            top.map(
                (b) =>
                    h('li', null, h('span', {class: 'name', text: b.name}),
                      h('span', {class: 'mini-bar'},
                        h('span', {style: `width:${((100 * metric(b)) / max).toFixed(1)}%`})),
                      h('span', {class: 'num', text: fmtNs(metric(b))}),
                      h('span', {class: 'num muted', text: other(b)}))))));
  }

  const diag = s.diagnostics || {};
  const dropped = DROP_COUNTERS.filter(([k]) => diag[k] > 0);
  const warnings = diag.warnings || [];
  const reduced =
      [data.timeline && data.timeline.sampled, data.icicle && data.icicle.sampled].filter(Boolean);
  const nvtxUsed = diag.nvtx && !/^not (loaded|linked|started)/.test(diag.nvtx);
  const lines = [
    s.no_gpu ? null : h('div', null, h('b', {text: 'CUPTI '}), diag.cupti || '–'),
    nvtxUsed ? h('div', null, h('b', {text: 'NVTX '}), diag.nvtx) : null,
    dropped.length ?
        dropped.map(
            ([k, label]) => h('div', {class: 'bad-text'}, `${fmtCount(diag[k])} ${label}`)) :
        h('div', {class: 'good-text'}, 'Nothing dropped: every event and record is in the trace.'),
    diag.scope_balanced === false ?
        h('div', {class: 'bad-text', text: 'scope pushes and pops do not balance'}) :
        null,
    warnings.map((w) => h('div', {class: 'warn-text', text: 'warning: ' + w})),
  ];
  cards.append(
      h('div', {
        class: 'card wide' +
            (dropped.length || diag.scope_balanced === false ? ' bad' :
                 warnings.length                             ? ' warn' :
                                                               '')
      },
        h('div', {class: 'card-label', text: 'Diagnostics'}), h('div', {class: 'diag'}, lines)));

  const windows = (tl && tl.windows) || [];
  const inWindows = windows.reduce((a, [s0, e0]) => a + (e0 - s0), 0);
  cards.append(card(
      'Capture', diag.capture || 'all',
      windows.length ? `${windows.length} window${windows.length === 1 ? '' : 's'}, ${
                           fmtNs(inWindows)} recorded; time outside is shaded on the timeline` :
                       'recorded from start to exit'));
  if (reduced.length) {
    cards.append(card(
        'Reduced for the page',
        reduced.map((r) => `${fmtCount(r.kept)} of ${fmtCount(r.of)}`).join(', '),
        reduced.map((r) => r.how).join('; '), 'warn'));
  }
  if (s.sources && s.sources.length) {
    cards.append(card(
        'Merged from', `${s.sources.length} processes`,
        s.sources.map((x) => x.label || x.program).join(', ')));
  }

  if (bricks.length) {
    body.append(h('p', {
      class: 'note',
      text: 'A brick is one step of a model layer the program marked (RmsNorm, QkvProjection, ' +
          '...: BRICKPROF_BRICK, brickprof.brick() or an NVTX range named like one); elem/s is ' +
          'the elements a brick declared, per second of its time.'
    }));
    const cats = s.categories || [];
    if (cats.length) {
      body.append(
          h('h3', {text: 'Brick time by category'}),
          stackedBar(
              cats.map((c) => ({
                         value: c.total_ns,
                         label: c.name,
                         text: fmtNs(c.total_ns),
                         cls: 'cat-' + c.name
                       })),
              0, 'Brick time by category'));
    }
    body.append(
        h('h3', {text: 'Bricks'}),
        dataTable(
            [
              {label: 'Brick', value: (b) => b.name, text: (b) => nameCell(b.name)},
              {label: 'Category', value: (b) => b.category || ''},
              {label: 'Count', value: (b) => b.count, text: (b) => fmtCount(b.count), num: true},
              {label: 'Avg', value: (b) => b.avg_ns, text: (b) => fmtNs(b.avg_ns), num: true},
              {label: 'Min', value: (b) => b.min_ns, text: (b) => fmtNs(b.min_ns), num: true},
              {label: 'Max', value: (b) => b.max_ns, text: (b) => fmtNs(b.max_ns), num: true},
              {
                label: 'Total',
                value: (b) => b.total_ns,
                text: (b) => fmtNs(b.total_ns),
                num: true,
                bar: true
              },
              // No GPU column in a run without GPU work: it would say '–' on every row.
              s.no_gpu ? null : {
                label: 'GPU',
                value: (b) => b.gpu_ns || 0,
                text: (b) => (b.gpu_ns ? fmtNs(b.gpu_ns) : '–'),
                num: true,
                bar: true,
                title: 'measured time of the GPU work the brick launched'
              },
              {
                label: 'elem/s',
                value: (b) => b.elements_per_s || 0,
                text: (b) => (b.elements_per_s ? fmtRate(b.elements_per_s) : '–'),
                num: true,
                title: 'the elements the brick declared, per second of its time'
              },
            ].filter(Boolean),
            s.bricks, {sortBy: 6, desc: true, limit: 15}));
  }
}

function meter(fraction) {
  const m = h('span', {class: 'meter'}, h('span'));
  m.firstChild.style.width = (100 * Math.min(1, Math.max(0, fraction))).toFixed(1) + '%';
  return m;
}
