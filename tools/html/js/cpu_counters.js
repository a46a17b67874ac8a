// CPU counters (report --cpu-counters): what the CPU's counters counted in each brick and scope,
// and the ratios read from them (IPC, cache miss rate, LLC misses per thousand instructions, the
// share of the time on a CPU). Shown only when the trace has them; the events are the trace's
// (hardware ones with a PMU, the kernel's software ones without).

function cpuCountersSection(view, body) {
  body.append(h('p', {class: 'note', text: `Counted: ${view.status}.`}));
  const has = (key) => view.rows.some((r) => r[key] !== null && r[key] !== undefined);
  const ratio = (label, key, text) => ({
    label,
    value: (r) => (r[key] === null || r[key] === undefined ? -1 : r[key]),
    text: (r) => (r[key] === null || r[key] === undefined ? '-' : text(r[key])),
    num: true,
  });
  const columns = [
    {label: 'Kind', value: (r) => r.kind},
    {label: 'Name', value: (r) => r.name},
    {label: 'Scopes', value: (r) => r.scopes, text: (r) => fmtCount(r.scopes), num: true},
    {label: 'Time', value: (r) => r.total_ns, text: (r) => fmtNs(r.total_ns), num: true,
     bar: true},
    ...view.events.map((e) => ({
      label: e,
      value: (r) => r.values[e] || 0,
      text: (r) => (e in r.values ? fmtCount(r.values[e]) : '-'),
      num: true,
    })),
  ];
  if (has('ipc')) columns.push(ratio('IPC', 'ipc', (x) => x.toFixed(2)));
  if (has('cache_miss_rate')) columns.push(ratio('Miss rate', 'cache_miss_rate', (x) => fmtPct(x)));
  if (has('llc_mpki')) columns.push(ratio('LLC MPKI', 'llc_mpki', (x) => x.toFixed(2)));
  if (has('on_cpu_share')) columns.push(ratio('On CPU', 'on_cpu_share', (x) => fmtPct(x)));
  body.append(dataTable(
      columns, view.rows,
      {caption: 'Per brick and scope: each one\'s counts include the scopes inside it, as its ' +
           'time does; counted in user space on the scope\'s thread'}));
}
