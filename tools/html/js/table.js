// Sortable tables: each column says how a row's cell reads and sorts; numeric columns can carry
// a bar of the value against the column's largest; long tables show their top rows first.
//
// column: {label, value: row => sortable value, text?: row => cell content, num?, bar?, title?,
//          cls?: row => extra cell class}

// A table of more rows than this shows this many at most: the rest by sorting.
const MAX_ROWS = 5000;

function dataTable(columns, rows, opts = {}) {
  const limit = opts.limit || 12;
  let sortCol = opts.sortBy === undefined ? -1 : opts.sortBy;
  let desc = opts.desc !== undefined ? opts.desc : true;
  let expanded = rows.length <= limit + 3;
  const maxOf = columns.map(
      (c) => (c.bar ? rows.reduce((m, r) => Math.max(m, Math.abs(c.value(r)) || 0), 0) : 0));
  const table = h('table', {class: 'data' + (opts.compact ? ' compact' : '')});
  if (opts.caption) table.append(h('caption', {text: opts.caption}));
  const headRow = h('tr');
  table.append(h('thead', null, headRow));
  const tbody = h('tbody');
  table.append(tbody);
  const more = h('button', {class: 'more', type: 'button'});
  const wrap = h('div', {class: 'table-wrap'}, table, more);

  columns.forEach((c, i) => {
    const btn = h('button', {type: 'button', title: c.title || null, text: c.label});
    btn.addEventListener('click', () => {
      if (sortCol === i)
        desc = !desc;
      else
        [sortCol, desc] = [i, !!c.num];
      render();
    });
    headRow.append(h('th', {class: c.num ? 'num' : null, scope: 'col'}, btn));
  });
  more.addEventListener('click', () => {
    expanded = !expanded;
    render();
  });

  function sorted() {
    if (sortCol < 0) return rows;
    const v = columns[sortCol].value;
    const out = rows.slice();
    out.sort((a, b) => {
      const x = v(a);
      const y = v(b);
      const r = typeof x === 'string' || typeof y === 'string' ?
          String(x).localeCompare(String(y)) :
          x - y;
      return desc ? -r : r;
    });
    return out;
  }

  function render() {
    headRow.querySelectorAll('th').forEach((th, i) => {
      th.setAttribute('aria-sort', i === sortCol ? (desc ? 'descending' : 'ascending') : 'none');
    });
    const all = sorted();
    const shown = all.slice(0, expanded ? MAX_ROWS : limit);
    tbody.replaceChildren(...shown.map((r) => {
      const tr = h('tr', {class: opts.rowClass ? opts.rowClass(r) : null});
      if (opts.onRow) {
        tr.classList.add('clickable');
        tr.tabIndex = 0;
        tr.addEventListener('click', () => opts.onRow(r));
        tr.addEventListener('keydown', (e) => {
          if (e.key === 'Enter') opts.onRow(r);
        });
      }
      columns.forEach((c, i) => {
        const content = c.text ? c.text(r) : c.value(r);
        const td =
            h('td', {class: [c.num ? 'num' : '', c.cls ? c.cls(r) : ''].join(' ').trim() || null},
              content);
        if (c.bar && maxOf[i] > 0) {
          const share = Math.min(1, Math.abs(c.value(r)) / maxOf[i]);
          td.classList.add('barred');
          td.style.setProperty('--w', (100 * share).toFixed(2) + '%');
        }
        tr.append(td);
      });
      return tr;
    }));
    if (!rows.length) {
      tbody.append(
          h('tr', null,
            h('td', {class: 'empty', colspan: columns.length, text: opts.empty || 'none'})));
    }
    more.hidden = rows.length <= limit + 3;
    more.textContent = expanded ?
        `Show the first ${limit}` :
        rows.length > MAX_ROWS ?
        `Show the first ${fmtCount(MAX_ROWS)} of ${fmtCount(rows.length)} rows (sort to choose)` :
        `Show all ${fmtCount(rows.length)} rows`;
  }
  render();
  return wrap;
}

// A name cell in the monospace face that kernel and scope names read best in.
function nameCell(text) {
  return h('span', {class: 'name', title: text, text});
}
