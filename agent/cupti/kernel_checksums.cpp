// Checksum mode (see kernel_checksums.h): the device path (device_digest.h)
// where it can run, the host-copy path where it cannot.
#include "agent/cupti/kernel_checksums.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <iterator>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "agent/cupti/device_digest.h"
#include "agent/cupti/device_reads.h"
#include "agent/cupti/kernel_args.h"
#include "agent/cupti/live_allocations.h"
#include "agent/lifecycle/critical_section.h"
#include "agent/recorder/budget.h"

namespace brickprof::agent::kernel_checksums {
namespace {

struct Taken {
  uint64_t correlation;
  uint32_t arg;
  OutputChecksum checksum;  // node and name filled in at the write
};

// What was not digested, by reason (each a warning of the trace).
struct Skipped {
  std::atomic<uint64_t> captured{0};     // launched while a stream was being captured
  std::atomic<uint64_t> extra{0};        // parameters passed through `extra`
  std::atomic<uint64_t> no_layout{0};    // neither cuFuncGetParamInfo nor PTX describes it
  std::atomic<uint64_t> budget{0};       // digests past BRICKPROF_BUFFER_MB
  std::atomic<uint64_t> reads[6] = {};   // by device_reads::Read (kRead unused)
  // Buffers the device path could not take (the host-copy path did), by
  // device_digest::Refusal (kNone unused).
  std::atomic<uint64_t> refused[static_cast<size_t>(device_digest::Refusal::kCount)] = {};
};

struct State {
  std::mutex mutex;
  std::vector<Taken> taken;
};

State* g_state = new State();  // never destroyed: launches go on during exit
Skipped* g_skipped = new Skipped();

struct Launch {
  CUfunction function = nullptr;
  CUstream stream = nullptr;  // CU_STREAM_PER_THREAD for a _ptsz launch on stream 0
  void** params = nullptr;
  void** extra = nullptr;
};

// The launch's function, stream and parameters from its call's parameters.
bool read_launch(CUpti_CallbackId cbid, const void* p, Launch* out) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
      const auto* l = static_cast<const cuLaunchKernel_params*>(p);
      *out = {l->f, l->hStream, l->kernelParams, l->extra};
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      const auto* l = static_cast<const cuLaunchKernelEx_params*>(p);
      *out = {l->f, l->config != nullptr ? l->config->hStream : nullptr, l->kernelParams, l->extra};
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
      const auto* l = static_cast<const cuLaunchCooperativeKernel_params*>(p);
      *out = {l->f, l->hStream, l->kernelParams, nullptr};
      return true;
    }
    default:
      return false;  // not a single kernel's launch (a graph, a grid of grids)
  }
}

// A _ptsz launch's stream 0 is the thread's default stream, not the
// legacy one: the agent's own work must go where the kernel went.
bool per_thread_default_stream(CUpti_CallbackId cbid) {
  return cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
         cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz ||
         cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz;
}

// A digest past the budget is counted, not kept.
void keep(uint64_t correlation, uint32_t arg, const OutputChecksum& c) {
  State& s = *g_state;
  AgentLock lock(s.mutex);
  if (!budget::charge(sizeof(Taken))) {
    g_skipped->budget.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  try {
    s.taken.push_back({correlation, arg, c});
  } catch (const std::bad_alloc&) {
    budget::release(sizeof(Taken));
    g_skipped->budget.fetch_add(1, std::memory_order_relaxed);
  }
}

// A digest from the device path.
void keep_device_digest(const device_digest::Tag& tag, const Digest& digest) {
  OutputChecksum c;
  c.type = tag.type;
  c.source = ChecksumSource::kDevice;
  c.address = tag.address;
  c.digest = digest;
  keep(tag.correlation, tag.arg, c);
}

// diagnostics.checksum_mode: which path digested the kernels, and what the
// device path cost the program (waits for a free slot).
std::string checksum_mode(const GpuState& gpu, const Skipped& k) {
  if (gpu.config.checksums_host_copy) return "host-copy (BRICKPROF_CHECKSUMS=host)";
  const device_digest::Counts device = device_digest::counts();
  uint64_t refused = 0;
  size_t reason = 0;
  for (size_t r = 1; r < std::size(k.refused); ++r) {
    const uint64_t n = k.refused[r].load();
    if (n > 0 && reason == 0) reason = r;
    refused += n;
  }
  if (!device.loaded)
    return reason == 0 ? std::string("device")
                       : std::string("host-copy (the reduction kernels could not run: ") +
                             device_digest::to_string(static_cast<device_digest::Refusal>(reason)) +
                             ")";
  std::string mode = "device (" + std::to_string(device.digests) + " digests; " +
                     std::to_string(device.waits) + " launches waited for a free digest slot";
  if (refused > 0) mode += "; " + std::to_string(refused) + " buffers by host copy";
  return mode + ")";
}

void add_warning(Trace& header, uint64_t n, const std::string& why) {
  if (n > 0) header.diagnostics.warnings.push_back(std::to_string(n) + " " + why);
}

}  // namespace

void after_launch(GpuState& s, CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
  Launch launch;
  if (!read_launch(cbid, cb->functionParams, &launch)) return;
  if (launch.stream == nullptr && per_thread_default_stream(cbid)) launch.stream = CU_STREAM_PER_THREAD;
  Skipped& skipped = *g_skipped;
  const bool on_device = !s.config.checksums_host_copy;
  if (on_device) device_digest::collect(s, false, &keep_device_digest);
  const auto* result = static_cast<const CUresult*>(cb->functionReturnValue);
  if (result != nullptr && *result != CUDA_SUCCESS) return;  // nothing ran
  // A captured launch does not run; and a copy on the legacy stream while
  // any capture is open would invalidate the program's capture.
  if (s.open_captures.load(std::memory_order_relaxed) > 0) {
    skipped.captured.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (launch.params == nullptr) {
    skipped.extra.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  std::vector<PointerArg> args;
  const std::string_view name = cb->symbolName != nullptr ? cb->symbolName : "";
  if (pointer_args(s.driver, s.registry, launch.function, name, launch.params, &args) ==
      ArgsFrom::kNone) {
    skipped.no_layout.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  std::vector<uint64_t> seen;  // a buffer passed twice is digested once
  for (const PointerArg& a : args) {
    live_allocations::Allocation allocation;
    if (a.read_only || !live_allocations::find(a.value, &allocation)) continue;
    if (std::find(seen.begin(), seen.end(), a.value) != seen.end()) continue;
    seen.push_back(a.value);
    const uint64_t bytes = allocation.base + allocation.bytes - a.value;
    if (on_device) {
      const device_digest::Tag tag{cb->correlationId, a.index, a.type, a.value,
                                   bytes / element_bytes(a.type)};
      const device_digest::Refusal refusal =
          device_digest::enqueue(s, launch.stream, tag, &keep_device_digest);
      if (refusal == device_digest::Refusal::kNone) continue;
      skipped.refused[static_cast<size_t>(refusal)].fetch_add(1, std::memory_order_relaxed);
    }
    void* copy = nullptr;
    // The first read waits for the stream; the kernel is done for the rest.
    const device_reads::Read r =
        device_reads::copy_to_host(s, launch.stream, false, a.value, bytes, &copy);
    if (r != device_reads::Read::kRead) {
      skipped.reads[static_cast<size_t>(r)].fetch_add(1, std::memory_order_relaxed);
      if (r == device_reads::Read::kSyncFailed || r == device_reads::Read::kNoDriver) return;
      continue;
    }
    OutputChecksum c;
    c.type = a.type;
    c.source = ChecksumSource::kHostCopy;
    c.address = a.value;
    c.digest = digest_of(copy, bytes / element_bytes(a.type), a.type);
    std::free(copy);
    keep(cb->correlationId, a.index, c);
  }
}

void contribute(const GpuState& gpu, const StagedRecords& staged, Trace& header) {
  // What the GPU still has in flight: the trace is written once it is in.
  if (!gpu.config.checksums_host_copy) device_digest::collect(gpu, true, &keep_device_digest);
  State& s = *g_state;
  const Skipped& k = *g_skipped;
  std::vector<Taken> taken;
  {
    AgentLock lock(s.mutex);
    taken = s.taken;
  }
  // In launch order, each launch's buffers in parameter order, whichever
  // path took them and whenever the GPU finished.
  std::stable_sort(taken.begin(), taken.end(), [](const Taken& a, const Taken& b) {
    return a.correlation != b.correlation ? a.correlation < b.correlation : a.arg < b.arg;
  });
  header.diagnostics.checksum_mode = checksum_mode(gpu, k);
  // The kernel node of each correlation: the kept kernel records'.
  std::vector<std::pair<uint64_t, uint32_t>> kernels;
  for (size_t i = 0; i < staged.size(); ++i) {
    const StagedRecord& r = staged[i];
    if (r.node.kind == NodeKind::kKernel && r.id != kNoNode && r.detail.graph_node == 0)
      kernels.emplace_back(r.detail.correlation, r.id);
  }
  std::sort(kernels.begin(), kernels.end());
  uint64_t unplaced = 0;
  for (Taken& t : taken) {
    auto at = std::lower_bound(kernels.begin(), kernels.end(),
                               std::pair<uint64_t, uint32_t>{t.correlation, 0});
    if (at == kernels.end() || at->first != t.correlation) {
      ++unplaced;  // its kernel's record was dropped or left out
      continue;
    }
    t.checksum.node = at->second;
    t.checksum.name = header.strings.intern("arg" + std::to_string(t.arg));
    header.checksums.push_back(t.checksum);
  }
  add_warning(header, k.captured.load(),
              "kernel launches not digested (checksum mode): launched while a stream was being "
              "captured");
  add_warning(header, k.extra.load(),
              "kernel launches not digested (checksum mode): parameters passed through `extra`");
  add_warning(header, k.no_layout.load(),
              "kernel launches not digested (checksum mode): neither cuFuncGetParamInfo nor a PTX "
              "module describes their parameters");
  for (size_t r = 1; r < std::size(k.reads); ++r)
    add_warning(header, k.reads[r].load(),
                std::string("kernel buffers not digested (checksum mode): ") +
                    device_reads::to_string(static_cast<device_reads::Read>(r)));
  add_warning(header, k.budget.load() + unplaced,
              "kernel digests left out (checksum mode): past BRICKPROF_BUFFER_MB, or their "
              "kernel's record was not kept");
  for (size_t r = 1; r < std::size(k.refused); ++r)
    add_warning(header, k.refused[r].load(),
                std::string("kernel buffers digested by the host-copy path instead of on the GPU "
                            "(checksum mode): ") +
                    device_digest::to_string(static_cast<device_digest::Refusal>(r)));
  const device_digest::Counts device = device_digest::counts();
  add_warning(header, device.lost,
              "kernel digests lost on the GPU (checksum mode): their event failed (a context "
              "destroyed before they were collected)");
  add_warning(header, live_allocations::dropped(),
              "device allocations not tracked (checksum mode): pointers into them were not "
              "digested");
  add_warning(header, device_reads::unremembered_calls(),
              "of the agent's own copies and syncs (checksum mode) show in the trace: too many to "
              "remember");
}

void context_destroying(const GpuState& s, CUcontext ctx) {
  if (!s.config.checksums_host_copy)
    device_digest::context_destroying(s, ctx, &keep_device_digest);
}

void reset_after_fork() {
  g_state = new State();  // the parent's is abandoned: its lock may be held
  g_skipped = new Skipped();
  device_digest::reset_after_fork();
}

}  // namespace brickprof::agent::kernel_checksums
