// Tiles (report --tiles): each brick's cache-blocked loop by level, and each level's bytes per
// second against the read bandwidth of the cache it is sized for (macro L3, midi L2, micro L1)
// when the program measured those. Shown only when the trace has tiles.

function tilesSection(view, body) {
  const caches = view.cache_gbps.some((g) => g > 0);
  if (caches)
    body.append(h(
        'div', {class: 'cards'},
        ...view.cache_gbps.map(
            (g, i) => card(`L${i + 1} read`, g > 0 ? fmtRate(g * 1e9, 'B') : '-',
                           'one thread, as the program measured it'))));
  body.append(dataTable(
      [
        {label: 'Brick', value: (r) => r.name},
        {label: 'Level', value: (r) => r.level},
        {label: 'Tiles', value: (r) => r.count, text: (r) => fmtCount(r.count), num: true},
        {label: 'Time', value: (r) => r.total_ns, text: (r) => fmtNs(r.total_ns), num: true,
         bar: true},
        {label: 'Per tile', value: (r) => r.total_ns / r.count,
         text: (r) => fmtNs(r.total_ns / r.count), num: true},
        {label: 'Elements/s', value: (r) => r.elements_per_second,
         text: (r) => fmtRate(r.elements_per_second, ''), num: true},
        {label: 'Bytes/s', value: (r) => r.bytes_per_second,
         text: (r) => fmtRate(r.bytes_per_second, 'B'), num: true},
        {label: 'Of cache', value: (r) => r.of_cache || 0,
         text: (r) => r.of_cache ? `${fmtPct(r.of_cache)} of ${r.cache}` : '-', num: true},
      ],
      view.bricks,
      {caption: 'Per brick and level: a level\'s bytes/s is per thread (its bytes over its ' +
           'tiles\' own time)'}));
}
