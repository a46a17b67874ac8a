// Tokens and the program's own counters (report --tokens): tokens per second over the time that
// produced them, each brick's time per token, and every counter's samples. Shown only when the
// program reported tokens or counters.

function tokensSection(view, body) {
  const t = view.tokens;
  if (t.reports) {
    body.append(h(
        'div', {class: 'cards'},
        card('Tokens', fmtCount(t.tokens), `${fmtCount(t.reports)} reports`),
        card('Tokens per second', t.tokens_per_second.toFixed(2),
             `over ${fmtNs(t.window_ns)}: ${fmtCount(t.scopes)} outermost scopes` +
                 (t.outside_scopes ? ' and the whole run' : '')),
        card('Time per token', fmtNs(t.ns_per_token), 'that time over the tokens')));
  }
  if (view.bricks.length)
    body.append(dataTable(
        [
          {label: 'Brick', value: (b) => b.name},
          {label: 'Total', value: (b) => b.total_ns, text: (b) => fmtNs(b.total_ns), num: true},
          {label: 'Per token', value: (b) => b.ns_per_token, text: (b) => fmtNs(b.ns_per_token),
           num: true, bar: true},
          {label: 'Tokens/s', value: (b) => b.tokens_per_second,
           text: (b) => b.tokens_per_second.toFixed(2), num: true},
        ],
        view.bricks, {sortBy: 2, caption: 'Per brick: its total time per token of the run'}));
  if (view.counters.length)
    body.append(dataTable(
        [
          {label: 'Counter', value: (c) => c.name},
          {label: 'Samples', value: (c) => c.samples, text: (c) => fmtCount(c.samples), num: true},
          {label: 'Min', value: (c) => c.min, text: (c) => String(c.min), num: true},
          {label: 'Mean', value: (c) => c.mean, text: (c) => c.mean.toPrecision(6), num: true},
          {label: 'Max', value: (c) => c.max, text: (c) => String(c.max), num: true},
          {label: 'Last', value: (c) => c.last, text: (c) => String(c.last), num: true},
        ],
        view.counters, {caption: 'The program\'s own counters'}));
}
