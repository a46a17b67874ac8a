// The critical path (report --critical-path): its length against the measured span, where its
// time goes by name, its steps in order, and the slack of what is off it; what-if results.

function criticalPathSection(cp, steps, whatIf, body, timeline, palette) {
  const facts =
      h('div', {class: 'cards'},
        card(
            'Critical path', fmtNs(cp.length_ns),
            `${
                fmtPct(
                    cp.measured_span_ns > 0 ?
                        cp.length_ns / cp.measured_span_ns :
                        0)} of the measured span ${fmtNs(cp.measured_span_ns)}`),
        card(
            'Activities', fmtCount(cp.activities),
            `${fmtCount(steps.length)} on the path · ${cp.busy_lanes} busy lane${
                cp.busy_lanes === 1 ? '' : 's'}`),
        card(
            'Shape', cp.parallel ? 'parallel' : 'one lane',
            cp.parallel ? 'lanes overlap: slack below shows what could move' :
                          'the path is the timeline itself'));
  body.append(facts);
  if (cp.measured_span_ns > 0 &&
      Math.abs(cp.length_ns - cp.measured_span_ns) > 0.01 * cp.measured_span_ns) {
    body.append(banner(
        `The modelled path (${fmtNs(cp.length_ns)}) differs from the measured span (${
            fmtNs(cp.measured_span_ns)}) by more than 1%: launch latency is not modelled.`,
        'muted'));
  }
  if (timeline && steps.length) {
    const btn =
        h('button', {type: 'button', class: 'primary', text: 'Show the path on the timeline'});
    btn.addEventListener('click', () => {
      timeline.setCritical(true);
      document.getElementById('timeline').scrollIntoView({behavior: 'smooth'});
    });
    body.append(h('p', null, btn));
  }

  // Where the path's time goes, by what ran.
  const byName = new Map();
  for (const s of steps) {
    const key = s.kind + '\u0000' + s.name;
    const agg = byName.get(key) || {name: s.name, kind: s.kind, steps: 0, ns: 0};
    agg.steps++;
    agg.ns += s.duration_ns;
    byName.set(key, agg);
  }
  const parts = [...byName.values()].sort((a, b) => b.ns - a.ns);
  const total = parts.reduce((a, p) => a + p.ns, 0);
  if (parts.length) {
    const top = parts.slice(0, 8);
    const rest = total - top.reduce((a, p) => a + p.ns, 0);
    const bar = top.map(
        (p) => (
            {value: p.ns, label: p.name, text: fmtNs(p.ns), color: palette.of(p.kind, p.name)[0]}));
    if (rest > 0) bar.push({value: rest, label: 'other', text: fmtNs(rest), cls: 'rest'});
    body.append(
        h('h3', {text: 'Where the path\'s time goes'}),
        stackedBar(bar, total, 'Critical path time by name'));
  }
  const grid = h('div', {class: 'two-col'});
  body.append(grid);
  grid.append(
      h('div', null, h('h3', {text: 'By name'}),
        dataTable(
            [
              {label: 'Name', value: (p) => p.name, text: (p) => nameCell(p.name)},
              {label: 'Kind', value: (p) => p.kind},
              {label: 'Steps', value: (p) => p.steps, text: (p) => fmtCount(p.steps), num: true},
              {label: 'Time', value: (p) => p.ns, text: (p) => fmtNs(p.ns), num: true, bar: true},
              {
                label: 'Share',
                value: (p) => p.ns,
                text: (p) => fmtPct(total > 0 ? p.ns / total : 0),
                num: true
              },
            ],
            parts, {sortBy: 3, limit: 10})));

  const opps = cp.opportunities || [];
  const focus = (r) => timeline.showNode(r.node);
  grid.append(h(
      'div', null, h('h3', {text: 'Slack: what could move'}),
      dataTable(
          [
            {label: 'Name', value: (o) => o.name, text: (o) => nameCell(o.name)},
            {label: 'Kind', value: (o) => o.kind},
            {
              label: 'Duration',
              value: (o) => o.duration_ns,
              text: (o) => fmtNs(o.duration_ns),
              num: true
            },
            {
              label: 'Slack',
              value: (o) => o.slack_ns,
              text: (o) => fmtNs(o.slack_ns),
              num: true,
              bar: true
            },
          ],
          opps,
          {sortBy: 3, limit: 10, onRow: timeline ? focus : null, empty: 'nothing off the path'})));

  // The steps in order, consecutive pieces of one node merged, with the time so far.
  const merged = [];
  for (const s of steps) {
    const last = merged[merged.length - 1];
    if (last && last.node === s.node && last.name === s.name && s.node !== null) {
      last.duration_ns += s.duration_ns;
      last.pieces++;
    } else {
      merged.push(Object.assign({pieces: 1}, s));
    }
  }
  let at = 0;
  merged.forEach((s, k) => {
    s.order = k + 1;
    s.at = at;
    at += s.duration_ns;
  });
  const laneText = (l) =>
      (!l                         ? '' :
           l.thread !== undefined ? `thread ${l.thread}` :
                                    `GPU ${l.device} stream ${l.stream}`);
  body.append(
      h('h3', {text: 'Steps'}),
      dataTable(
          [
            {label: '#', value: (s) => s.order, num: true},
            {label: 'Name', value: (s) => s.name, text: (s) => nameCell(s.name)},
            {label: 'Kind', value: (s) => s.kind},
            {label: 'Lane', value: (s) => laneText(s.lane)},
            {label: 'At', value: (s) => s.at, text: (s) => '+' + fmtNs(s.at), num: true},
            {
              label: 'Duration',
              value: (s) => s.duration_ns,
              text: (s) => fmtNs(s.duration_ns),
              num: true,
              bar: true
            },
          ],
          merged, {sortBy: 0, desc: false, limit: 12, onRow: timeline ? focus : null}));

  if (whatIf && whatIf.length) {
    body.append(
        h('h3', {text: 'What if'}),
        dataTable(
            [
              {label: 'Target', value: (r) => r.target, text: (r) => nameCell(r.target)},
              {label: 'Faster', value: (r) => r.factor, text: (r) => `${r.factor}×`, num: true},
              {label: 'Activities', value: (r) => r.matched_activities, num: true},
              {
                label: 'Before',
                value: (r) => r.before_ns,
                text: (r) => fmtNs(r.before_ns),
                num: true
              },
              {label: 'After', value: (r) => r.after_ns, text: (r) => fmtNs(r.after_ns), num: true},
              {
                label: 'Saved',
                value: (r) => r.saved_ns,
                text: (r) => `${fmtNs(r.saved_ns)} (${(r.saved_pct || 0).toFixed(1)}%)`,
                num: true,
                bar: true
              },
            ],
            whatIf, {limit: 20}));
  }
}
