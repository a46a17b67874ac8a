// Output checksums (report --numerics): the first output holding a NaN or Inf, and in a merged
// job the outputs ranks disagree on. Shown only when the trace recorded checksums.

function numericsSection(view, body) {
  const first = view.first_nonfinite;
  body.append(
      h('div', {class: 'cards'},
        card('Outputs checked', fmtCount(view.outputs), 'digests of what bricks and kernels wrote'),
        card(
            'With NaN or Inf', fmtCount(view.nonfinite_outputs),
            `${fmtCount(view.nan)} NaN, ${fmtCount(view.inf)} Inf`,
            view.nonfinite_outputs ? 'warn' : null)));
  if (first) {
    body.append(banner(
        `First NaN/Inf: ${first.path} (launched under ${first.launched}): ${fmtCount(first.nan)} NaN ` +
            `and ${fmtCount(first.inf)} Inf of ${fmtCount(first.count)} elements; the ` +
            `${fmtCount(first.index)} outputs before it were finite.`,
        'warn'));
  } else {
    body.append(banner('Every output is finite.', 'muted'));
  }
  if (view.replicas_compared) {
    const rows = view.replica_mismatches || [];
    body.append(h('p', {
      text: `${fmtCount(view.replicas_compared)} outputs every rank has; ${
          fmtCount(rows.length)} differ from the first rank's bytes.`
    }));
    for (const m of rows.slice(0, 20))
      body.append(h('p', {class: 'note', text: `${m.path}: ${m.ranks.join(', ')}`}));
  }
}
