// Checksum mode's host-copy path (see kernel_checksums.h).
#include "agent/cupti/kernel_checksums.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <iterator>
#include <mutex>
#include <new>
#include <string>
#include <vector>

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
};

struct State {
  std::mutex mutex;
  std::vector<Taken> taken;
};

State* g_state = new State();  // never destroyed: launches go on during exit
Skipped* g_skipped = new Skipped();

struct Launch {
  CUfunction function = nullptr;
  CUstream stream = nullptr;
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

void add_warning(Trace& header, uint64_t n, const std::string& why) {
  if (n > 0) header.diagnostics.warnings.push_back(std::to_string(n) + " " + why);
}

}  // namespace

void after_launch(GpuState& s, CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
  Launch launch;
  if (!read_launch(cbid, cb->functionParams, &launch)) return;
  Skipped& skipped = *g_skipped;
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

void contribute(const GpuState&, const StagedRecords& staged, Trace& header) {
  State& s = *g_state;
  const Skipped& k = *g_skipped;
  std::vector<Taken> taken;
  {
    AgentLock lock(s.mutex);
    taken = s.taken;
  }
  header.diagnostics.checksum_mode = "host-copy";
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
  add_warning(header, live_allocations::dropped(),
              "device allocations not tracked (checksum mode): pointers into them were not "
              "digested");
  add_warning(header, device_reads::unremembered_calls(),
              "of the agent's own copies and syncs (checksum mode) show in the trace: too many to "
              "remember");
}

void reset_after_fork() {
  g_state = new State();  // the parent's is abandoned: its lock may be held
  g_skipped = new Skipped();
}

}  // namespace brickprof::agent::kernel_checksums
