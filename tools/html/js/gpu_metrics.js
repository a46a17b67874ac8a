// GPU metrics (report --gpu-metrics): the GPU's counters per brick, kernel, layer and scope,
// from the kernels CUPTI's range profiler profiled (one occurrence in N of each scope path).
// Shown only when the trace has profiled kernels.

// A column's heading: the default metrics by what they mean, others as named.
const GPU_METRIC_HEADINGS = {
  'lts__t_sector_hit_rate.pct': 'L2 hit',
  'dram__bytes_read.sum': 'DRAM read',
  'dram__bytes_write.sum': 'DRAM write',
  'sm__warps_active.avg.pct_of_peak_sustained_active': 'Occupancy',
  'sm__throughput.avg.pct_of_peak_sustained_elapsed': 'SM busy',
  'lts__t_sectors.sum': 'L2 sectors',
  'sm__cycles_active.sum': 'SM cycles',
  'gpu__time_duration.sum': 'GPU time',
};

function gpuMetricText(metric, v) {
  if (v === null || v === undefined) return '-';
  if (metric.endsWith('.pct') || metric.includes('.pct_')) return v.toFixed(1) + '%';
  if (metric.includes('bytes')) return fmtBytes(v);
  if (metric === 'gpu__time_duration.sum') return fmtNs(v);
  return v < 10000 ? fmtCount(v) : fmtRate(v, '');
}

function gpuMetricsSection(view, body) {
  body.append(h('p', {class: 'note', text: `GPU metrics: ${view.status}`}));
  const columns = [
    {label: 'Kind', value: (r) => r.kind},
    {label: 'Name', value: (r) => r.name},
    {label: 'Profiled', value: (r) => r.nodes, text: (r) => fmtCount(r.nodes), num: true},
    {label: 'Kernels', value: (r) => r.kernels, text: (r) => fmtCount(r.kernels), num: true},
    ...view.metrics.map((m) => ({
      label: GPU_METRIC_HEADINGS[m] || m,
      value: (r) => (r.values[m] === null || r.values[m] === undefined ? -1 : r.values[m]),
      text: (r) => gpuMetricText(m, r.values[m]),
      num: true,
    })),
  ];
  body.append(dataTable(columns, view.rows, {
    caption: 'A scope\'s figures are its profiled kernels\': counts summed, rates weighted by ' +
        `the count each is a share of; the kernels of 1 in ${view.every} occurrences of each ` +
        'scope path were profiled'
  }));
}
