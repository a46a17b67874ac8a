// The timeline's data decoded for drawing (contract: tools/html/README.md, "timeline"): typed
// columns, each lane's rows of slices in start order, the launch flows, and the lookups the view
// needs (what is under a point, what encloses a slice, what a slice launched).

class TimelineModel {
  constructor(tl) {
    const cols = tl.slices;
    const n = cols.dur.length;
    for (const k of ['start', 'dur', 'depth', 'name', 'kind', 'node']) {
      if (!Array.isArray(cols[k]) || cols[k].length !== n)
        throw new Error(`timeline.slices.${k}: expected ${n} values`);
    }
    this.n = n;
    this.strings = tl.strings;
    this.kinds = tl.kinds;
    this.span = tl.span_ns;
    this.t0 = tl.t0_ns;
    this.sampled = tl.sampled || null;
    this.windows = tl.windows || [];
    this.devices = new Map((tl.devices || []).map((d) => [d.id, d.name]));
    this.start = new Float64Array(n);
    this.dur = Float64Array.from(cols.dur);
    this.depth = Int32Array.from(cols.depth);
    this.name = Int32Array.from(cols.name);
    this.kind = Uint8Array.from(cols.kind);
    this.node = new Float64Array(n);
    this.lane = new Int32Array(n);
    // How many recorded slices a slice stands for (a reduced timeline merges short neighbours).
    this.merged = cols.merged ? Int32Array.from(cols.merged) : null;
    if (this.merged && this.merged.length !== n)
      throw new Error(`timeline.slices.merged: expected ${n} values`);
    this.gpuKind = Uint8Array.from(
        this.kinds, (k) => (k === 'kernel' || k === 'transfer' || k === 'memset' ? 1 : 0));

    // Lanes hold consecutive slices; start and node are deltas within a lane.
    this.lanes = [];
    let i = 0;
    tl.lanes.forEach((lane, li) => {
      const first = i;
      let start = 0;
      let node = 0;
      for (let k = 0; k < lane.count; k++, i++) {
        if (i >= n)
          throw new Error(`timeline.lanes[${li}].count: more slices than the ${n} listed`);
        start += cols.start[i];
        node += cols.node[i];
        this.start[i] = start;
        this.node[i] = node;
        this.lane[i] = li;
      }
      this.lanes.push(Object.assign({}, lane, {index: li, first, rows: this.buildRows(first, i)}));
    });
    if (i !== n) throw new Error(`timeline.lanes: counts add up to ${i}, not ${n}`);

    const f = tl.flows || {from: [], to: [], at: []};
    if (f.to.length !== f.from.length || f.at.length !== f.from.length)
      throw new Error('timeline.flows: columns of different lengths');
    this.flowFrom = Int32Array.from(f.from);
    this.flowTo = Int32Array.from(f.to);
    this.flowAt = Float64Array.from(f.at);
    this.flowOf = new Int32Array(n).fill(-1);  // GPU slice -> its flow
    const launched = new Int32Array(n + 1);    // host slice -> its flows, in CSR form
    for (let k = 0; k < this.flowTo.length; k++) {
      const [from, to] = [this.flowFrom[k], this.flowTo[k]];
      if (!(from >= 0 && from < n && to >= 0 && to < n))
        throw new Error(`timeline.flows[${k}]: no such slice`);
      this.flowOf[to] = k;
      launched[this.flowFrom[k] + 1]++;
    }
    for (let k = 0; k < n; k++) launched[k + 1] += launched[k];
    const cursor = launched.slice(0, n);
    this.launchedBy = new Int32Array(this.flowTo.length);
    for (let k = 0; k < this.flowTo.length; k++) this.launchedBy[cursor[this.flowFrom[k]]++] = k;
    this.launchedStart = launched;
    this.nodeIndex = null;
  }

  // Rows of one lane: per depth the slice indices in start order, their starts and the longest.
  buildRows(first, end) {
    const counts = [];
    for (let i = first; i < end; i++) counts[this.depth[i]] = (counts[this.depth[i]] || 0) + 1;
    const rows = counts.map(
        (c) =>
            ({idx: new Int32Array(c || 0), starts: new Float64Array(c || 0), maxDur: 0, fill: 0}));
    for (let i = first; i < end; i++) {
      const r = rows[this.depth[i]];
      r.idx[r.fill] = i;
      r.starts[r.fill++] = this.start[i];
      if (this.dur[i] > r.maxDur) r.maxDur = this.dur[i];
    }
    return rows;
  }

  kindOf(i) {
    return this.kinds[this.kind[i]];
  }

  nameOf(i) {
    return this.strings[this.name[i]];
  }

  isGpu(i) {
    return this.gpuKind[this.kind[i]] === 1;
  }

  mergedCount(i) {
    return this.merged ? this.merged[i] : 1;
  }

  // First position in `row` whose slice may end after `t` (starts are sorted; no slice is
  // longer than maxDur).
  firstFrom(row, t) {
    return lowerBound(row.starts, t - row.maxDur);
  }

  // The slice at time t in row `depth` of `lane`, or the nearest within `slack` ns; -1 if none.
  hit(lane, depth, t, slack) {
    const row = this.lanes[lane].rows[depth];
    if (!row || !row.idx.length) return -1;
    let best = -1;
    let bestGap = Infinity;
    const stop = upperBound(row.starts, t + slack);
    for (let p = this.firstFrom(row, t - slack); p < stop; p++) {
      const i = row.idx[p];
      const s = this.start[i];
      const e = s + this.dur[i];
      const gap = t < s ? s - t : t > e ? t - e : 0;
      if (gap <= slack && (gap < bestGap || (gap === bestGap && gap === 0))) {
        best = i;
        bestGap = gap;
      }
    }
    return best;
  }

  // The slice one row up that encloses slice i on its lane, or -1.
  parentOf(i) {
    const d = this.depth[i];
    if (d === 0) return -1;
    const row = this.lanes[this.lane[i]].rows[d - 1];
    if (!row) return -1;
    const s = this.start[i];
    const e = s + this.dur[i];
    for (let p = upperBound(row.starts, s) - 1; p >= 0; p--) {
      const j = row.idx[p];
      if (this.start[j] + this.dur[j] >= e) return j;
      if (this.start[j] < s - row.maxDur) break;
    }
    return -1;
  }

  // Slices one row down within slice i, in start order.
  childrenOf(i) {
    const row = this.lanes[this.lane[i]].rows[this.depth[i] + 1];
    const out = [];
    if (!row) return out;
    const s = this.start[i];
    const e = s + this.dur[i];
    for (let p = lowerBound(row.starts, s); p < row.idx.length && row.starts[p] < e; p++) {
      const j = row.idx[p];
      if (this.start[j] + this.dur[j] <= e) out.push(j);
    }
    return out;
  }

  // Duration minus the children's (host slices); a GPU operation's is its duration.
  selfTime(i) {
    let t = this.dur[i];
    for (const c of this.childrenOf(i)) t -= this.dur[c];
    return Math.max(0, t);
  }

  // Slices in the same row just before and after slice i.
  neighbour(i, step) {
    const row = this.lanes[this.lane[i]].rows[this.depth[i]];
    let p = lowerBound(row.starts, this.start[i]);
    while (p < row.idx.length && row.idx[p] !== i) p++;
    const q = p + step;
    return q >= 0 && q < row.idx.length ? row.idx[q] : -1;
  }

  // Flows out of host slice i (indices into the flow columns).
  flowsFrom(i) {
    return this.launchedBy.subarray(this.launchedStart[i], this.launchedStart[i + 1]);
  }

  // The slices of node id `node` (a scope has one on its thread and one per GPU range lane).
  slicesOfNode(node) {
    if (!this.nodeIndex) {
      this.nodeIndex = new Map();
      for (let i = 0; i < this.n; i++) {
        const list = this.nodeIndex.get(this.node[i]);
        if (list)
          list.push(i);
        else
          this.nodeIndex.set(this.node[i], [i]);
      }
    }
    return this.nodeIndex.get(node) || [];
  }

  // Names along the enclosing slices, outermost first.
  path(i) {
    const out = [];
    for (let p = this.parentOf(i); p >= 0; p = this.parentOf(p)) out.push(this.nameOf(p));
    return out.reverse();
  }
}

function lowerBound(sorted, x) {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

function upperBound(sorted, x) {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] <= x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}
