// The exit write, streamed: every output format is written from the
// recorder's events without building the whole Trace, so the write's peak
// memory is the event buffer plus a bounded amount (and, in a final write,
// the event buffer is given back as it is read).
//
// The Trace the write used to build cost ~100 bytes a node against 24 + 16
// bytes of events a scope, and each exporter then built its own indexes:
// a full 256 MB buffer peaked near 830 MB. Here:
//
//  1. Plan (constructor): each thread's events are read once, in thread
//     order, with the same walk the Trace replay uses (thread_walk.h), so
//     node ids, parents and times are the replay's. It counts nodes (a
//     thread's ids are one contiguous block), the diagnostics counts, and
//     the threads that own nodes; attributes GPU records in place (each
//     CUDA call writes its scope into the records it launched, found by
//     correlation: gpu_attribution.h); collects NVTX start/end ranges and
//     places them on lanes. Nothing per node is kept.
//  2. Walk (first write()): the threads are read again, interleaved as a
//     depth-first walk of the trace visits them: roots (each thread's
//     outermost scopes, ranges, GPU work with no launching scope) in
//     (start, id) order, each root's subtree in full, a scope's GPU work
//     between its children by start time. That is the order the aggregate
//     tree (tree, DOT, folded) numbers its entries in, so it is built here
//     entry by entry, as are the brick statistics, with state bounded by
//     nesting depth (open scopes) and by the aggregate itself. Each closed
//     CPU node becomes a 48-byte record at its id's slot in an unlinked
//     temporary file (node_spill.h): nodes close scope-after-contents, the
//     formats list them by id. A consuming write frees each chunk of
//     events once read.
//  3. Write: each format is its sink (trace/output/formats.h), the one
//     `brickprof report` writes with, fed here (Impl::feed) as a held
//     trace feeds it there (whole_trace.h): JSON and Chrome get the spill's
//     nodes in id order (ranges and GPU records come from memory); tree,
//     DOT and folded the aggregate; Perfetto each thread's id block in the
//     order its track lists slices (trace_stream_perfetto.cpp).
//
// GPU work launched outside every scope with a Python stack goes under
// synthetic scopes of its innermost Python frame in every output but the
// JSON (trace_stream_python.cpp), made at the walk's start from the staged
// records as `brickprof report` makes them from the JSON, with its ids.
//
// The outputs are byte for byte what the same sinks write of the Trace of
// the same events (tests/agent/cupti/stream_golden_test.cpp checks it on a recorded
// trace with threads, NVTX ranges, capture windows and fake-CUPTI records).
// It relies on one thing the Trace path does not: a thread's pushes are in
// start order (the cycle counter is monotonic), so its push order is its
// depth-first order.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "agent/capture/capture.h"
#include "agent/gpu_source.h"
#include "agent/recorder/clock.h"
#include "agent/recorder/recorder.h"
#include "agent/recorder/thread_walk.h"
#include "trace/model/trace.h"
#include "trace/output/formats.h"
#include "trace/output/sink.h"

namespace brickprof::agent {

class TraceStream {
 public:
  // Plans the write (pass 1) over a snapshot. `gpu` may be null; it must
  // outlive the stream. `consume`: the write frees events as it reads them
  // (the process is ending; after a dump that did not end it, keep them).
  // The node spill goes in `spill_dir` (the outputs' directory).
  TraceStream(std::vector<Recorder::ThreadEvents> threads, const Clock& clock, uint64_t end_tsc,
              std::vector<capture::Window> windows, GpuDump* gpu, bool consume,
              const std::string& spill_dir);
  ~TraceStream();
  TraceStream(const TraceStream&) = delete;
  TraceStream& operator=(const TraceStream&) = delete;

  const WalkCounts& counts() const;
  uint32_t range_lanes() const;
  // GPU records left out: launched outside the capture windows.
  uint64_t gpu_left_out() const;
  // Every thread id a CPU node is on (threads, range lanes), for the
  // trace's threads[].
  const std::set<uint32_t>& node_threads() const;
  // Thread names the recorder noted (for threads that have exited), and the
  // range lanes' names.
  std::map<uint32_t, std::string> noted_names() const;
  // No node at all: no scope, range or GPU work (the trace says
  // kNothingRecorded, and so does brickprof run).
  bool recorded_nothing() const;
  // What the trace's warnings should say about the write itself ("" if
  // nothing): the node spill had no file and took memory.
  const std::string& note() const;

  // Writes each format through `sink`: `header` holds everything but the
  // nodes (process, diagnostics, devices, threads, ptx). Says what was
  // written and what failed; never throws. A consuming stream writes once.
  WrittenOutputs write(const Trace& header, const std::vector<std::string>& formats,
                       OutputSink& sink);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace brickprof::agent
