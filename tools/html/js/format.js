// Numbers as brickprof's text output prints them (trace/model/format.cpp): durations, IEC sizes,
// SI rates, shares.

// "850ns" under 1 µs, "12.3µs" under 1 ms, "1.23ms" under 1 s, else "4.56s"; the unit is chosen
// after rounding.
function fmtNs(ns) {
  if (ns === null || ns === undefined || !Number.isFinite(ns)) return '–';
  const v = Math.round(Math.abs(ns));
  const sign = ns < 0 && v > 0 ? '-' : '';
  if (v < 1000) return sign + v + 'ns';
  const us10 = Math.round(v / 100);
  if (us10 < 10000) return sign + (us10 / 10).toFixed(1) + 'µs';
  const ms100 = Math.round(v / 1e4);
  if (ms100 < 100000) return sign + (ms100 / 100).toFixed(2) + 'ms';
  return sign + (Math.round(v / 1e7) / 100).toFixed(2) + 's';
}

// A time on the timeline's ruler: as few decimals as the tick step needs.
function fmtTick(ns, step) {
  const units = [[1e9, 's'], [1e6, 'ms'], [1e3, 'µs'], [1, 'ns']];
  const [scale, unit] = units.find(([s]) => Math.abs(ns) >= s || s === 1) || units[3];
  const digits = Math.max(0, Math.min(6, Math.ceil(-Math.log10(step / scale) - 1e-9)));
  return (ns / scale).toFixed(digits) + unit;
}

function fmtBytes(bytes) {
  if (!Number.isFinite(bytes)) return '–';
  if (bytes < 1024) return Math.round(bytes) + 'B';
  const units = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  let v = bytes / 1024;
  let u = 0;
  while (u + 1 < units.length && Math.round(v * 10) >= 10240) {
    v /= 1024;
    u++;
  }
  return (Math.round(v * 10) / 10).toFixed(1) + units[u];
}

// SI rate, two decimals once prefixed: "950", "12.50K"; with a unit "12.50GB/s", "1.23TFLOP/s".
function fmtRate(perSecond, unit) {
  let v = Number.isFinite(perSecond) && perSecond > 0 ? perSecond : 0;
  const prefixes = ['', 'K', 'M', 'G', 'T', 'P'];
  let p = 0;
  while (p + 1 < prefixes.length && v >= (p === 0 ? 999.5 : 999.995)) {
    v /= 1000;
    p++;
  }
  return v.toFixed(p === 0 ? 0 : 2) + prefixes[p] + (unit ? unit + '/s' : '');
}

function fmtPct(fraction, decimals = 1) {
  return Number.isFinite(fraction) ? (100 * fraction).toFixed(decimals) + '%' : '–';
}

function fmtCount(n) {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–';
}

// A signed change: "+12.5%", "-3.0%".
function fmtSignedPct(pct) {
  if (!Number.isFinite(pct)) return '–';
  return (pct > 0 ? '+' : '') + pct.toFixed(1) + '%';
}

function fmtSignedNs(ns) {
  return (ns > 0 ? '+' : '') + fmtNs(ns);
}

// GFLOP/s and GB/s figures as the roofline prints them.
function fmtGflops(g) {
  return fmtRate(g * 1e9, 'FLOP');
}

// null: no rate (zero-length copies only).
function fmtGbps(g) {
  return g === null || g === undefined ? 'n/a' : fmtRate(g * 1e9, 'B');
}
