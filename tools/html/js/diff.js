// The diff page (brickprof diff --json): the gate's verdict and why, then per brick and per
// kernel what the gate made of it; with --outputs, first where the numbers changed
// (output_diff.js). Every judgement is the diff's own (verdict, problems, each
// entry's status, figures and why): the page draws them and decides nothing.

function diffPage(data) {
  const d = data.diff;
  const r = d.result;
  const failed = r.verdict === 'fail';
  const notCounted = r.within_spread + r.below_floor;
  // diff --outputs: its verdict is the exit code's, the times' below it for reference.
  if (d.outputs) outputsDiffSection(d.outputs);

  const body = section(
      'overview', 'Verdict',
      `BASE ${d.base.file} against NEW ${d.new.file}, judged per call beyond the others' common ` +
          'move, at 99% confidence from the spread of the calls');
  body.append(h(
      'div', {class: 'cards'},
      d.outputs ? card('Times verdict', failed ? 'FAIL' : 'PASS',
                       'the time gate: diff without --outputs', failed ? 'bad' : 'good') :
                  card('Verdict', failed ? 'FAIL' : 'PASS',
                       failed ? 'diff exits 1: a CI gate fails' : 'diff exits 0',
                       failed ? 'bad' : 'good'),
      card('Regressions', fmtCount(r.regressions), null, r.regressions ? 'bad' : null),
      card('Limits', `${r.threshold_pct}% and ${limitsFloor(r)}`,
           'a regression is slower per call, or called more often, by more than the threshold ' +
               'beyond the others\' move, and adds more than the floor'),
      card(
          'Same name, different code', fmtCount(r.code_changes), 'kernels whose PTX hash changed',
          r.code_changes ? 'warn' : null),
      card(
          'Not counted', fmtCount(notCounted),
          `${fmtCount(r.within_spread)} within the spread of their calls · ` +
              `${fmtCount(r.below_floor)} below the floor`),
      sideCard('Base', d.base), sideCard('New', d.new)));
  // The verdict line as diff prints it, then each reason beyond single entries and each note.
  body.append(banner(r.verdict_text, failed ? 'bad' : 'good'));
  for (const p of r.problems) body.append(banner(p, 'bad'));
  for (const t of [r.bricks, r.kernels])
    if (t.note) body.append(banner(t.note, 'warn'));

  for (const [kind, title] of [['brick', 'Bricks'], ['kernel', 'Kernels']]) {
    const rows = r.entries.filter((e) => e.kind === kind);
    const sec = section(
        'diff-' + kind + 's', title,
        kind === 'brick' ? 'Matched by name; CPU scope time per call' :
                           'Matched by name and PTX hash; GPU time per launch');
    sec.dataset.kind = kind;
    if (!rows.length) {
      sec.append(h('p', {class: 'muted', text: `No ${kind}s in either trace.`}));
      continue;
    }
    sec.append(diffTable(rows, kind));
  }
}

// The floor of each kind present, as diff's text gives it.
function limitsFloor(r) {
  const parts = [];
  if (r.bricks.base_calls || r.bricks.new_calls || !(r.kernels.base_calls || r.kernels.new_calls))
    parts.push(fmtNs(r.bricks.floor_ns) + (r.kernels.base_calls ? ' (bricks)' : ''));
  if (r.kernels.base_calls || r.kernels.new_calls)
    parts.push(fmtNs(r.kernels.floor_ns) + (parts.length ? ' (kernels)' : ''));
  return parts.join(', ');
}

// One compared trace: its file, process and wall time.
function sideCard(label, side) {
  const c = card(label, h('span', {class: 'name', text: side.file}), [
    side.title, side.span_ns ? `wall ${fmtNs(side.span_ns)}` : null
  ].filter(Boolean).join(' · '));
  c.classList.add('text');
  return c;
}

function diffTable(rows, kind) {
  const both = (e) => e.base_count && e.new_count;
  const maxPct = Math.min(
      200,
      rows.reduce(
          (m, e) => Math.max(m, both(e) ? Math.abs(e.relative_pct) : 0, both(e) ? e.limit_pct : 0),
          1));
  const only = h('input', {type: 'checkbox', checked: true});
  const holder = h('div');
  const listedRows = rows.filter((e) => e.listed);
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
      label: 'Base median',
      value: (e) => e.base_median_ns,
      text: (e) => (e.base_count ? fmtNs(e.base_median_ns) : '–'),
      num: true
    },
    {
      label: 'New median',
      value: (e) => e.new_median_ns,
      text: (e) => (e.new_count ? fmtNs(e.new_median_ns) : '–'),
      num: true
    },
    {
      label: 'Change',
      value: (e) => e.relative_pct,
      text: (e) => changeBar(e, maxPct),
      title: 'per call beyond the others\' move, its 99% interval (whisker) and the limit (dashed)'
    },
    {
      label: '%',
      value: (e) => e.relative_pct,
      text: (e) => (both(e) ? fmtSignedPct(e.relative_pct) : '–'),
      num: true,
      title: 'per call, beyond the others\' common move',
      cls: (e) => (e.status === 'regression' ? 'bad-text' : e.status === 'improved' ? 'good-text' : '')
    },
    {
      label: '99%',
      value: (e) => e.relative_low_pct,
      text: (e) => (both(e) ?
                        `${fmtSignedPct(e.relative_low_pct)} to ${fmtSignedPct(e.relative_high_pct)}` :
                        '–'),
      title: 'the interval the spread of its calls allows'
    },
    {
      label: 'Adds',
      value: (e) => e.added_ns,
      text: (e) => fmtSignedNs(e.added_ns),
      num: true,
      title: 'the time it adds to NEW beyond the others\' move, counts included'
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
  columns.push({label: 'Why', value: (e) => e.why, text: (e) => h('span', {class: 'why', text: e.why})});
  const render = () =>
      holder.replaceChildren(dataTable(columns, only.checked ? listedRows : rows, {
        sortBy: 0,
        desc: false,
        limit: 25,
        empty: 'nothing the gate lists: no regression, no change beyond the limits and the floor',
        rowClass: (e) => 'st-' + e.status.replace(' ', '-')
      }));
  only.addEventListener('change', render);
  render();
  return h(
      'div', null,
      h('label', {class: 'check'}, only,
        `Only what diff lists (${listedRows.length} of ${rows.length})`),
      holder);
}

function statusRank(s) {
  return [
    'regression', 'changed', 'new', 'gone', 'improved', 'below floor', 'within spread', 'unchanged'
  ].indexOf(s);
}

function shortHash(hash) {
  if (!hash) return '–';
  return hash.replace(/^0x0*/, '0x').slice(0, 12);
}

// A bar from the middle for the change beyond the others' move: right and red for slower, left
// and green for faster, a whisker for its 99% interval; dashed marks at plus and minus the limit.
function changeBar(e, maxPct) {
  const box = h('span', {class: 'div-bar'});
  if (!(e.base_count && e.new_count)) return box;
  const at = (pct) => 50 * Math.max(-1, Math.min(1, pct / maxPct));
  const bar = h('span', {class: e.relative_pct > 0 ? 'up' : 'down'});
  bar.style.width = Math.abs(at(e.relative_pct)).toFixed(2) + '%';
  const whisker = h('i', {class: 'ci'});
  whisker.style.left = `calc(50% + ${at(e.relative_low_pct).toFixed(2)}%)`;
  whisker.style.width = `${(at(e.relative_high_pct) - at(e.relative_low_pct)).toFixed(2)}%`;
  const mark = Math.abs(at(e.limit_pct)).toFixed(2);
  const lo = h('i', {class: 'thr'});
  lo.style.left = `calc(50% - ${mark}%)`;
  const hi = h('i', {class: 'thr'});
  hi.style.left = `calc(50% + ${mark}%)`;
  box.append(bar, whisker, lo, hi);
  return box;
}
