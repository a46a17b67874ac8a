// Start-up: reads the embedded data (schema brickprof-html/1), builds the report or diff page,
// and leaves `window.brickprofPage` for tests and the console.

const SCHEMA = 'brickprof-html/1';

// Builds one section; a view that fails says so in its place (and on the console) instead of
// taking the rest of the page with it.
function guarded(id, title, note, build) {
  const body = section(id, title, note);
  try {
    return build(body);
  } catch (err) {
    console.error(`brickprof: ${title}:`, err);
    body.append(banner(`This view could not be drawn: ${err.message}`, 'bad'));
    return null;
  }
}

function memoryPart(v) {
  guarded(
      'memory', 'Memory',
      'Live bytes per account over the run, the peak and what was live then, headroom, ' +
          'growing scopes, out-of-memory failures',
      (body) => memorySection(v.memory, body));
}

function reportPage(data, page) {
  const v = data.views || {};
  const palette = new Palette(brickCategories(v));
  palette.setScheme(themeColors().dark);
  if (v.under) {
    document.getElementById('main').append(banner(
        `Under "${v.under.name}": ${fmtCount(v.under.scopes)} scopes, ${
            fmtCount(v.under.nodes)} of ${fmtCount(v.under.of_nodes)} nodes.`,
        'muted'));
  }
  if (v.summary)
    guarded('overview', 'Overview', subtitle(v.summary), (body) => summarySection(data, body));
  // Nothing recorded: the overview says so; empty timelines and tables would only look broken.
  // Memory is the exception: a program that allocated without a scope or a launch has it.
  if (v.summary && v.summary.nothing_recorded) {
    if (v.memory && (v.memory.accounts || []).length) memoryPart(v);
    return;
  }

  const cp = v['critical-path'];
  const steps = cp ? criticalSteps(data) : [];
  if (data.timeline) {
    page.timeline = guarded(
        'timeline', 'Timeline',
        'Host threads, each GPU\'s scopes (the span of the GPU work each one launched) ' +
            'and streams, on one clock',
        (body) => {
          const model = new TimelineModel(data.timeline);
          if (model.sampled) {
            body.append(banner(
                `Reduced to what a screen can show: ${
                    model.sampled.how}. Striped slices stand for several; ` +
                    'the trace\'s Chrome export (brickprof report --chrome) holds every one.',
                'warn'));
          }
          const critical =
              cp ? new Set(steps.filter((s) => s.node !== null).map((s) => s.node)) : null;
          const view = new TimelineView(
              model, palette, {criticalNodes: critical && critical.size ? critical : null});
          body.append(view.el);
          return view;
        });
  }
  if (data.icicle) {
    page.icicle = guarded(
        'flame', 'Flame graph',
        'Layer → brick → kernel, merged by name; width is GPU time (of the work launched ' +
            'beneath) or CPU time',
        (body) => {
          const view = new IcicleView(data.icicle, palette);
          if (data.icicle.sampled)
            body.append(banner(`Reduced: ${data.icicle.sampled.how}.`, 'warn'));
          body.append(view.el);
          return view;
        });
  }
  if (v.roofline) {
    page.roofline = guarded(
        'roofline', 'Roofline',
        'Achieved FLOP/s against arithmetic intensity; the roofs are each device\'s peaks',
        (body) => {
          const r = rooflineView(v.roofline);
          body.append(r.el);
          return r;
        });
  }
  if (cp)
    guarded(
        'critical-path', 'Critical path',
        'The longest chain of dependent work; slack is how far the rest could move',
        (body) => criticalPathSection(cp, steps, v['what-if'], body, page.timeline, palette));
  for (const c of data.cuts || []) {
    const sec = document.getElementById(c.view);
    // Cut steps come back whole from the critical_path columns.
    const whole = c.view === 'critical-path' && c.key === 'steps' && data.critical_path;
    if (sec && !whole)
      sec.querySelector('.section-body').append(h('p', {
        class: 'note',
        text: `${c.key.replace(/_/g, ' ')}: the page lists the first ${fmtCount(c.kept)} of ${
            fmtCount(c.of)}.`
      }));
  }
  if (v['gpu-idle'])
    guarded(
        'gpu-idle', 'GPU idle', 'Per device: busy share of its span, and why it sat idle',
        (body) => gpuIdleSection(v['gpu-idle'], body, page.timeline));
  if (v.launches)
    guarded(
        'launches', 'Launches',
        'Per kernel and launch path: launch call, launch-to-start delay, launch-bound kernels',
        (body) => launchesSection(v.launches, body));
  if (v.transfers)
    guarded(
        'transfers', 'Transfers', 'Host-device copies against the link',
        (body) => transfersSection(v.transfers, body, page.timeline));
  if (v.memory) memoryPart(v);
  if (v.analyze)
    guarded(
        'analyze', 'Operations', 'Leaf work per name: count, total and the spread of one call',
        (body) => analyzeSection(v.analyze, body, page.timeline));
  if (v.numerics && v.numerics.outputs)
    guarded(
        'numerics', 'Numerics', 'Output checksums: the first NaN or Inf, and replicas that disagree',
        (body) => numericsSection(v.numerics, body));
  if (v.tokens && (v.tokens.tokens.reports || v.tokens.counters.length))
    guarded(
        'tokens', 'Tokens', 'Tokens per second, time per token per brick, the program\'s counters',
        (body) => tokensSection(v.tokens, body));
  if (v.tiles && v.tiles.bricks.length)
    guarded(
        'tiles', 'Tiles',
        'Each brick\'s cache-blocked loop by level: tiles, time, bytes/s against the cache\'s ' +
            'bandwidth',
        (body) => tilesSection(v.tiles, body));
  if (v['cpu-counters'] && v['cpu-counters'].rows && v['cpu-counters'].rows.length)
    guarded(
        'cpu-counters', 'CPU counters',
        'What the CPU counted in each brick and scope: instructions per cycle, cache misses, ' +
            'time on a CPU',
        (body) => cpuCountersSection(v['cpu-counters'], body));
  if (v['gpu-metrics'] && v['gpu-metrics'].rows.length)
    guarded(
        'gpu-metrics', 'GPU metrics',
        'The GPU\'s counters per brick and kernel: L2 hit rate, DRAM bytes, occupancy, SM ' +
            'throughput',
        (body) => gpuMetricsSection(v['gpu-metrics'], body));
  if (hasRanks(v))
    guarded(
        'ranks', 'Ranks',
        'A job\'s ranks side by side: where each one\'s time went, who arrived last at the ' +
            'collectives, compute imbalance, and the critical path across ranks',
        (body) => ranksSection(v, body));
}

// The critical path's steps: the view's list, or all of them from the compact columns a writer
// adds when it cut that list (contract: "critical_path").
function criticalSteps(data) {
  const c = data.critical_path;
  if (!c) return data.views['critical-path'].steps || [];
  const lanes = (data.timeline && data.timeline.lanes) || [];
  return c.node.map((node, k) => {
    const lane = lanes[c.lane[k]];
    return {
      node: node < 0 ? null : node,
      name: c.strings[c.name[k]],
      kind: c.kinds[c.kind[k]],
      duration_ns: c.dur[k],
      lane: !lane                ? null :
          lane.kind === 'thread' ? {thread: lane.tid} :
                                   {device: lane.device, stream: lane.stream}
    };
  });
}

function subtitle(s) {
  const p = s.process || {};
  const parts =
      [p.program, p.pid !== undefined ? `pid ${p.pid}` : null, p.host ? `on ${p.host}` : null];
  return parts.filter(Boolean).join(' · ');
}

function boot() {
  const page = {ready: false, format: {fmtNs, fmtBytes, fmtRate, fmtTick}};
  window.brickprofPage = page;
  let data;
  try {
    data = JSON.parse(document.getElementById('brickprof-data').textContent);
  } catch (err) {
    document.getElementById('main').append(
        banner(`The embedded report data is not JSON: ${err.message}`, 'bad'));
    console.error('brickprof: embedded data:', err);
    return;
  }
  if (!data || data.schema !== SCHEMA) {
    document.getElementById('main').append(
        banner(`The embedded data is not ${SCHEMA} (schema: ${data && data.schema}).`, 'bad'));
    console.error('brickprof: unknown schema', data && data.schema);
    return;
  }
  page.data = data;
  document.title =
      `${data.title || 'trace'} · brickprof ${data.kind === 'diff' ? 'diff' : 'report'}`;
  document.getElementById('title').textContent = data.title || '';
  if (data.kind === 'diff')
    diffPage(data);
  else
    reportPage(data, page);
  page.ready = true;
  document.documentElement.dataset.ready = 'true';
}

boot();
