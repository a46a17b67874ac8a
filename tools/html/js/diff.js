// The diff page (brickprof diff --json): the verdict, then per brick and per kernel the change of
// the average against the threshold and the minimum time, new and gone entries, changed code.

function diffStatus(e, limits) {
  if (!e.base_count) return 'new';
  if (!e.new_count) return 'gone';
  if (e.regression) return 'regression';
  const beyond = Math.abs(e.change_pct) >= limits.threshold_pct && e.change_pct !== 0;
  if (beyond && e.below_floor) return 'below floor';
  if (beyond) return e.change_pct > 0 ? 'slower' : 'faster';
  return 'unchanged';
}

function diffPage(data) {
  const d = data.diff;
  const r = d.result;
  const limits = {threshold_pct: r.threshold_pct, min_time_ns: r.min_time_ns};
  const entries = r.entries.map((e) => Object.assign({status: diffStatus(e, limits)}, e));
  const changed = entries.filter((e) => e.status !== 'unchanged');
  const slower = entries.filter((e) => e.status === 'slower').length;
  const faster = entries.filter((e) => e.status === 'faster').length;

  const body = section(
      'overview', 'Verdict',
      `Average time per call, BASE ${d.base.file} against NEW ${d.new.file}`);
  body.append(h(
      'div', {class: 'cards'},
      card(
          'Regressions', fmtCount(r.regressions),
          r.regressions ? 'diff exits 1: a CI gate fails' : 'diff exits 0',
          r.regressions ? 'bad' : 'good'),
      card(
          'Limits', `${r.threshold_pct}% and ${fmtNs(r.min_time_ns)}`,
          'a regression grew by more than both: percent of its average, ' +
              'and in total over NEW\'s calls'),
      card(
          'Changed beyond the threshold', fmtCount(slower + faster + r.regressions),
          `${fmtCount(r.regressions + slower)} slower · ${fmtCount(faster)} faster`),
      card(
          'Same name, different code', fmtCount(r.code_changes), 'kernels whose PTX hash changed',
          r.code_changes ? 'warn' : null),
      card(
          'Below the minimum time', fmtCount(r.below_floor),
          `changes of ${r.threshold_pct}% or more that add up to ${fmtNs(r.min_time_ns)} or less`),
      sideCard('Base', d.base), sideCard('New', d.new)));
  if (!changed.length)
    body.append(banner(`No brick or kernel changed by ${r.threshold_pct}% or more.`, 'good'));

  for (const [kind, title] of [['brick', 'Bricks'], ['kernel', 'Kernels']]) {
    const rows = entries.filter((e) => e.kind === kind);
    const sec = section(
        'diff-' + kind + 's', title,
        kind === 'brick' ? 'Matched by name; CPU scope time per call' :
                           'Matched by name and PTX hash; GPU time per launch');
    sec.dataset.kind = kind;
    if (!rows.length) {
      sec.append(h('p', {class: 'muted', text: `No ${kind}s in either trace.`}));
      continue;
    }
    sec.append(diffTable(rows, kind, limits));
  }
}

// One compared trace: its file, process and wall time.
function sideCard(label, side) {
  const c = card(label, h('span', {class: 'name', text: side.file}), [
    side.title, side.span_ns ? `wall ${fmtNs(side.span_ns)}` : null
  ].filter(Boolean).join(' · '));
  c.classList.add('text');
  return c;
}

function diffTable(rows, kind, limits) {
  const maxPct = Math.min(
      200,
      rows.reduce(
          (m, e) => Math.max(m, e.base_count && e.new_count ? Math.abs(e.change_pct) : 0), 1));
  const only = h('input', {type: 'checkbox', checked: true});
  const holder = h('div');
  const changedRows = rows.filter((e) => e.status !== 'unchanged');
  const columns = [
    {
      label: 'Status',
      value: (e) => statusRank(e.status),
      text: (e) => h('span', {class: 'badge ' + e.status.replace(' ', '-'), text: e.status})
    },
    {
      label: kind === 'brick' ? 'Brick' : 'Kernel',
      value: (e) => e.name,
      text: (e) => nameCell(e.name)
    },
    {
      label: 'Base avg',
      value: (e) => e.base_avg_ns,
      text: (e) => (e.base_count ? fmtNs(e.base_avg_ns) : '–'),
      num: true
    },
    {
      label: 'New avg',
      value: (e) => e.new_avg_ns,
      text: (e) => (e.new_count ? fmtNs(e.new_avg_ns) : '–'),
      num: true
    },
    {
      label: 'Change',
      value: (e) => e.change_pct,
      text: (e) => changeBar(e, maxPct, limits),
      title: 'change of the average, against the threshold (dashed)'
    },
    {
      label: '%',
      value: (e) => e.change_pct,
      text: (e) => (e.base_count && e.new_count ? fmtSignedPct(e.change_pct) : '–'),
      num: true,
      cls: (e) =>
          (e.change_pct > 0 && e.status !== 'unchanged'     ? 'bad-text' :
               e.change_pct < 0 && e.status !== 'unchanged' ? 'good-text' :
                                                              '')
    },
    {
      label: 'In total',
      value: (e) => e.change_ns,
      text: (e) => (e.base_count && e.new_count ? fmtSignedNs(e.change_ns) : '–'),
      num: true,
      title: '(new average - base average) x NEW\'s count'
    },
    {
      label: 'Calls',
      value: (e) => e.new_count,
      text: (e) => `${fmtCount(e.base_count)} → ${fmtCount(e.new_count)}`,
      num: true
    },
  ];
  if (kind === 'kernel') {
    columns.push({
      label: 'PTX',
      value: (e) => e.ptx_hash || '',
      text: (e) =>
          h('span', {class: 'name', title: `base ${e.base_ptx_hash} new ${e.ptx_hash}`},
            e.code_changed ? `${shortHash(e.base_ptx_hash)} → ${shortHash(e.ptx_hash)}` :
                             shortHash(e.ptx_hash || e.base_ptx_hash)),
      cls: (e) => (e.code_changed ? 'warn-text' : '')
    });
  }
  const render = () =>
      holder.replaceChildren(dataTable(columns, only.checked ? changedRows : rows, {
        sortBy: 0,
        desc: false,
        limit: 25,
        empty: 'nothing changed beyond the threshold',
        rowClass: (e) => 'st-' + e.status.replace(' ', '-')
      }));
  only.addEventListener('change', render);
  render();
  return h(
      'div', null,
      h('label', {class: 'check'}, only,
        `Only what changed (${changedRows.length} of ${rows.length})`),
      holder);
}

function statusRank(s) {
  return ['regression', 'slower', 'new', 'gone', 'faster', 'below floor', 'unchanged'].indexOf(s);
}

function shortHash(hash) {
  if (!hash) return '–';
  return hash.replace(/^0x0*/, '0x').slice(0, 12);
}

// A bar from the middle: right and red for slower, left and green for faster; dashed marks at
// plus and minus the threshold.
function changeBar(e, maxPct, limits) {
  const box = h('span', {class: 'div-bar'});
  if (!(e.base_count && e.new_count)) return box;
  const share = Math.min(1, Math.abs(e.change_pct) / maxPct);
  const bar = h('span', {class: e.change_pct > 0 ? 'up' : 'down'});
  bar.style.width = (50 * share).toFixed(2) + '%';
  const mark = (50 * Math.min(1, limits.threshold_pct / maxPct)).toFixed(2);
  const lo = h('i', {class: 'thr'});
  lo.style.left = `calc(50% - ${mark}%)`;
  const hi = h('i', {class: 'thr'});
  hi.style.left = `calc(50% + ${mark}%)`;
  box.append(bar, lo, hi);
  return box;
}
