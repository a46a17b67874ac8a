// Kernel launches (report --launches): what the launch call cost the host, how long kernels waited
// to start, which ran shorter than their launch call (launch-bound), direct against graph.

function launchesSection(view, body) {
  if (!view.kernels) {
    body.append(banner('No kernel launches in this trace.', 'muted'));
    return;
  }
  const g = view.graph || {};
  const spread = (s) =>
      (s && s.count ?
           `median ${fmtNs(s.median_ns)} · p99 ${fmtNs(s.p99_ns)} · max ${fmtNs(s.max_ns)}` :
           'none');
  body.append(
      h('div', {class: 'cards'},
        card(
            'Kernels', fmtCount(view.kernels),
            `${fmtCount(view.direct)} launched one by one · ${fmtCount(g.kernels || 0)} from ${
                fmtCount(g.launches || 0)} graph launches` +
                (g.whole ? ` · ${fmtCount(g.whole)} graph replays traced whole` : '')),
        card(
            'Launch-bound', fmtCount(view.shorter_than_call),
            `direct kernels shorter on the GPU than their launch call (${
                fmtNs(view.shorter_gpu_ns)} GPU time); a CUDA graph is the usual cure`,
            view.shorter_than_call > 0 ? 'warn' : null),
        card(
            'Launch call', view.call && view.call.count ? fmtNs(view.call.median_ns) : '–',
            spread(view.call)),
        card(
            'Launch to start', view.delay && view.delay.count ? fmtNs(view.delay.median_ns) : '–',
            spread(view.delay)),
        g.launches ? card(
                         'Graph launch call', fmtNs(g.call.median_ns),
                         `${spread(g.call)}; first kernel starts ${
                             fmtNs(g.first_delay.median_ns)} after (median)`) :
                     null));
  const med = (s) => (s && s.count ? s.median_ns : 0);
  body.append(dataTable(
      [
        {label: 'Kernel', value: (k) => k.name, text: (k) => nameCell(k.name)},
        {label: 'Path', value: (k) => (k.from_graph ? 'graph' : 'direct')},
        {label: 'Count', value: (k) => k.count, text: (k) => fmtCount(k.count), num: true},
        {
          label: 'GPU total',
          value: (k) => k.gpu.total_ns,
          text: (k) => fmtNs(k.gpu.total_ns),
          num: true,
          bar: true
        },
        {label: 'GPU median', value: (k) => med(k.gpu), text: (k) => fmtNs(med(k.gpu)), num: true},
        {
          label: 'Call median',
          value: (k) => med(k.call),
          text: (k) => (k.call.count ? fmtNs(k.call.median_ns) : '–'),
          num: true
        },
        {
          label: 'Delay median',
          value: (k) => med(k.delay),
          text: (k) => (k.delay.count ? fmtNs(k.delay.median_ns) : '–'),
          num: true
        },
        {
          label: 'Delay p99',
          value: (k) => (k.delay.count ? k.delay.p99_ns : 0),
          text: (k) => (k.delay.count ? fmtNs(k.delay.p99_ns) : '–'),
          num: true
        },
        {
          label: 'Shorter than call',
          value: (k) => k.shorter_than_call,
          text: (k) => (k.shorter_than_call ? fmtCount(k.shorter_than_call) : '–'),
          num: true,
          cls: (k) => (k.shorter_than_call ? 'warn-text' : '')
        },
      ],
      view.by_kernel || [], {sortBy: 3, limit: 15}));
}
