// Where the numbers changed (brickprof diff --outputs): the runs' output checksums lined up by
// execution path, the first output beyond tolerance marked as the divergence, and what differs
// after it. Every judgement (identical, beyond, the verdict) is the diff's own.

function outputsDiffSection(o) {
  const failed = o.verdict === 'fail';
  const sec = section(
      'diff-outputs', 'Outputs',
      'Output checksums lined up by execution path (layer, brick, kernel ordinal, output name); ' +
          'beyond tolerance: distance > atol·√n + rtol·‖BASE‖ (atol ' + o.atol + ', ' +
          (o.ulp !== undefined ? `${o.ulp} ULP` : `rtol ${o.rtol}`) + ')');
  const firstAt = o.compared.findIndex((c) => c.beyond);
  const changed = o.compared.filter((c) => !c.identical).length;
  sec.append(h(
      'div', {class: 'cards'},
      card('Outputs verdict', failed ? 'FAIL' : 'PASS',
           failed ? 'diff --outputs exits 1' : 'diff --outputs exits 0', failed ? 'bad' : 'good'),
      card('Compared', fmtCount(o.compared.length),
           `${fmtCount(o.base_outputs)} in BASE, ${fmtCount(o.new_outputs)} in NEW`),
      card('Bit-identical', fmtCount(o.identical)),
      card('Within tolerance', fmtCount(o.within), 'not bit-identical, not beyond'),
      card('Beyond', fmtCount(o.beyond), null, o.beyond ? 'bad' : null)));
  sec.append(banner(o.verdict_text, failed ? 'bad' : 'good'));
  if (firstAt >= 0) {
    const f = o.compared[firstAt];
    sec.append(banner(
        `First divergence: ${f.path}, launched under ${f.launched} (rel ${fmtSci(f.rel)}, ` +
            `cosine ${f.cosine.toFixed(6)}); ${firstAt} outputs before it compared, ` +
            `${o.compared.slice(firstAt + 1).filter((c) => c.beyond).length} beyond after it.`,
        'bad'));
  }
  const rows = o.compared.map((c, i) => Object.assign({index: i, status: outputStatus(c, i, firstAt)}, c));
  const only = h('input', {type: 'checkbox', checked: changed > 0});
  const holder = h('div');
  const columns = [
    {label: '#', value: (c) => c.index, num: true},
    {
      label: 'Status',
      value: (c) => c.index,
      text: (c) => h('span', {class: 'badge ' + outputBadge(c.status), text: c.status})
    },
    {label: 'Output', value: (c) => c.path, text: (c) => nameCell(c.path)},
    {label: 'Rel', value: (c) => c.rel, text: (c) => fmtSci(c.rel), num: true,
     title: 'distance over BASE\'s L2 norm'},
    {label: 'RMS', value: (c) => c.rms, text: (c) => fmtSci(c.rms), num: true},
    {label: 'ULP', value: (c) => c.ulp, text: (c) => fmtSci(c.ulp), num: true},
    {label: 'Cosine', value: (c) => c.cosine, text: (c) => c.cosine.toFixed(6), num: true},
    {label: 'Why', value: (c) => c.why || '', text: (c) => h('span', {class: 'why', text: c.why || (c.other_code ? 'other code (PTX hash)' : '')})},
  ];
  const render = () => holder.replaceChildren(dataTable(
      columns, only.checked ? rows.filter((c) => !c.identical) : rows, {
        sortBy: 0,
        desc: false,
        limit: 25,
        empty: 'every output is bit-identical',
        rowClass: (c) => 'st-' + outputBadge(c.status)
      }));
  only.addEventListener('change', render);
  render();
  sec.append(h('label', {class: 'check'}, only,
               `Only outputs that are not bit-identical (${changed} of ${rows.length})`),
             holder);
  for (const [list, side] of [[o.only_base, 'BASE'], [o.only_new, 'NEW']]) {
    if (!list.length) continue;
    sec.append(h('p', {class: 'note', text: `Only in ${side} (${list.length}; aligned past): ` +
                                             list.slice(0, 10).join(' · ') +
                                             (list.length > 10 ? ' …' : '')}));
  }
  return sec;
}

// The first output beyond tolerance is the divergence; those beyond after it are downstream.
function outputStatus(c, i, firstAt) {
  if (c.identical) return 'identical';
  if (!c.beyond) return 'within';
  return i === firstAt ? 'first divergence' : 'beyond';
}

function outputBadge(status) {
  return {'first divergence': 'regression', 'beyond': 'changed', 'within': 'improved'}[status] ||
      'unchanged';
}

function fmtSci(x) {
  if (!x) return '0';
  return Math.abs(x) >= 0.01 && Math.abs(x) < 1000 ? x.toPrecision(3) : x.toExponential(2);
}
