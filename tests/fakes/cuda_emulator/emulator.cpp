// The emulator's scheduler (see emulator.h). A fiber is a stack and a saved
// stack pointer; switch_stack saves the callee-saved registers of one and
// restores another's, so a switch costs a few nanoseconds (ucontext's
// swapcontext makes a system call each time, and a 32-lane warp reduction
// switches hundreds of times).
#include "emulator.h"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "device_memory.h"
#include "race_shadow.h"

#if !defined(__x86_64__)
#error "the CUDA emulator's fiber switch is written for x86-64"
#endif

// switch_stack(save, load): pushes rbp, rbx, r12-r15, stores rsp in *save,
// loads `load` as rsp, pops the same registers and returns into that fiber.
extern "C" void cuda_emulator_switch_stack(void** save, void* load);
asm(R"(
  .text
  .globl cuda_emulator_switch_stack
  .hidden cuda_emulator_switch_stack
  .type cuda_emulator_switch_stack, @function
cuda_emulator_switch_stack:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size cuda_emulator_switch_stack, .-cuda_emulator_switch_stack
)");

// Static __shared__ variables (cuda_prelude.h puts them in this section);
// the linker defines the bounds when some kernel has one.
extern "C" char __start_cuda_emulator_shared[] __attribute__((weak, visibility("hidden")));
extern "C" char __stop_cuda_emulator_shared[] __attribute__((weak, visibility("hidden")));

namespace cuda_emulator {
namespace {

constexpr unsigned kWarp = 32;
constexpr size_t kStackBytes = 128 * 1024;
constexpr unsigned kMaxThreads = 1024;  // per block, as on every CUDA GPU

enum class FiberState { kRunnable, kAtBlockBarrier, kAtWarpBarrier, kDone };

struct Fiber {
  void* sp = nullptr;
  Dim3 index;
  FiberState state = FiberState::kRunnable;
  unsigned shuffles = 0;  // how many this thread has done: picks the slot set
};

// Shuffle values go to alternating slot sets: a lane can write set s again
// only after the next shuffle's barrier, which every lane reaches after
// reading set s. One barrier per shuffle instead of two.
struct Warp {
  unsigned live = 0;         // lanes that have not returned
  unsigned arrived = 0;      // lanes waiting at the current warp barrier
  uint32_t slots[2][kWarp];  // shuffle values
};

struct Run {
  const char* kernel = "";
  Dim3 grid, block, block_index;
  uint32_t block_linear = 0;
  uint32_t epoch = 0;  // __syncthreads this block has passed
  ThreadBody body = nullptr;
  void* context = nullptr;
  std::vector<Fiber> fibers;
  std::vector<Warp> warps;
  unsigned current = 0;
  unsigned live = 0;
  unsigned at_block_barrier = 0;
  const char* barrier_site = nullptr;  // where the first thread called __syncthreads
  void* scheduler_sp = nullptr;
  void* shared = nullptr;
  size_t shared_bytes = 0;
  std::string error;
};

Run* g_run = nullptr;
// The OS thread running g_run's fibers: the race hooks ignore instrumented
// code running anywhere else. (A thread_local in this dlopened library
// would cost a __tls_get_addr call per memory access.)
pthread_t g_run_thread;

RaceShadow g_race_shadow;
DeviceAllocations g_allocations;
// Held by a launch from start to end, and by changes to g_allocations.
std::mutex g_launch_mutex;

struct StaticShared {
  char* begin = nullptr;
  size_t bytes = 0;
};

StaticShared static_shared() {
  if (__start_cuda_emulator_shared == nullptr) return {};
  return {__start_cuda_emulator_shared,
          static_cast<size_t>(__stop_cuda_emulator_shared - __start_cuda_emulator_shared)};
}

// Stacks for the largest block seen, each with a guard page below it; and
// dynamic shared memory that ends at a guard page. Never freed: reused by
// every launch of the process.
struct Memory {
  char* stacks = nullptr;
  unsigned stack_count = 0;
  char* shared_end = nullptr;  // the guard page after the shared region
  size_t shared_capacity = 0;
};

Memory& memory() {
  static Memory m;
  return m;
}

size_t page_size() {
  static const size_t bytes = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return bytes;
}

char* stack_top(unsigned i) {
  return memory().stacks + i * (kStackBytes + page_size()) + kStackBytes;
}

bool reserve_stacks(unsigned threads) {
  Memory& m = memory();
  if (threads <= m.stack_count) return true;
  const size_t slot = kStackBytes + page_size();
  char* p = static_cast<char*>(mmap(nullptr, slot * threads, PROT_READ | PROT_WRITE,
                                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));
  if (p == MAP_FAILED) return false;
  for (unsigned i = 0; i < threads; ++i) mprotect(p + i * slot, page_size(), PROT_NONE);
  if (m.stacks) munmap(m.stacks - page_size(), slot * m.stack_count);
  m.stacks = p + page_size();  // slot i: guard page, then stack i
  m.stack_count = threads;
  return true;
}

// The region's last `bytes` (rounded up to 16 for float4 alignment), so a
// read or write past the end faults on the guard page.
void* shared_region(size_t bytes) {
  Memory& m = memory();
  const size_t page = page_size();
  const size_t rounded = (bytes + 15) / 16 * 16;
  if (m.shared_end == nullptr || rounded > m.shared_capacity) {
    const size_t capacity = (rounded + page - 1) / page * page;
    char* p = static_cast<char*>(mmap(nullptr, capacity + page, PROT_READ | PROT_WRITE,
                                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (p == MAP_FAILED) return nullptr;
    mprotect(p + capacity, page, PROT_NONE);
    if (m.shared_end) munmap(m.shared_end - m.shared_capacity, m.shared_capacity + page);
    m.shared_end = p + capacity;
    m.shared_capacity = capacity;
  }
  return m.shared_end - rounded;
}

Fiber& current_fiber() { return g_run->fibers[g_run->current]; }

[[noreturn]] void fiber_exit();

// The first frame of every fiber: runs the thread, then never returns.
[[noreturn]] void fiber_main() {
  g_run->body(g_run->context);
  fiber_exit();
}

void yield() { cuda_emulator_switch_stack(&current_fiber().sp, g_run->scheduler_sp); }

// A linear index within `extent` as CUDA's (x, y, z), x fastest.
Dim3 unflatten(unsigned linear, const Dim3& extent) {
  return Dim3{linear % extent.x, linear / extent.x % extent.y, linear / (extent.x * extent.y)};
}

std::string text(const Dim3& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

// Stops the block: the scheduler sees the error and leaves the fibers.
[[noreturn]] void fail(const std::string& what) {
  Run& r = *g_run;
  if (r.error.empty())
    r.error = std::string(r.kernel) + ": block " + text(r.block_index) + " thread " +
              text(current_fiber().index) + ": " + what;
  current_fiber().state = FiberState::kDone;
  yield();
  __builtin_unreachable();
}

void release_block_barrier() {
  Run& r = *g_run;
  for (Fiber& f : r.fibers)
    if (f.state == FiberState::kAtBlockBarrier) f.state = FiberState::kRunnable;
  r.at_block_barrier = 0;
  r.barrier_site = nullptr;
  ++r.epoch;
}

[[noreturn]] void fiber_exit() {
  Run& r = *g_run;
  current_fiber().state = FiberState::kDone;
  --r.live;
  --r.warps[r.current / kWarp].live;
  // Threads that returned no longer hold a __syncthreads back.
  if (r.at_block_barrier > 0 && r.at_block_barrier == r.live) release_block_barrier();
  yield();
  __builtin_unreachable();
}

// Waits until every lane of the current warp has arrived.
void warp_barrier() {
  Run& r = *g_run;
  Warp& w = r.warps[r.current / kWarp];
  if (++w.arrived < w.live) {
    current_fiber().state = FiberState::kAtWarpBarrier;
    yield();
    return;
  }
  w.arrived = 0;
  const unsigned first = r.current / kWarp * kWarp;
  for (unsigned i = first; i < first + kWarp && i < r.fibers.size(); ++i)
    if (r.fibers[i].state == FiberState::kAtWarpBarrier) r.fibers[i].state = FiberState::kRunnable;
}

void* initial_stack(unsigned i) {
  auto top = reinterpret_cast<uintptr_t>(stack_top(i)) & ~uintptr_t{15};
  void** sp = reinterpret_cast<void**>(top);
  *--sp = nullptr;  // fiber_main's return address: entered as if called (rsp = 8 mod 16)
  *--sp = reinterpret_cast<void*>(&fiber_main);  // where switch_stack's ret goes
  for (int reg = 0; reg < 6; ++reg) *--sp = nullptr;
  return sp;
}

void run_block(Run& r) {
  const unsigned n = r.block.x * r.block.y * r.block.z;
  r.live = n;
  r.at_block_barrier = 0;
  r.barrier_site = nullptr;
  r.epoch = 0;
  r.block_linear = r.block_index.x + r.grid.x * (r.block_index.y + r.grid.y * r.block_index.z);
  // Shared memory starts undefined on a GPU: NaNs make a read before the
  // write show in the results.
  std::memset(r.shared, 0xff, r.shared_bytes);
  const StaticShared fixed = static_shared();
  if (fixed.bytes > 0) std::memset(fixed.begin, 0xff, fixed.bytes);
  g_race_shadow.begin_block();
  for (unsigned i = 0; i < n; ++i) {
    Fiber& f = r.fibers[i];
    f.sp = initial_stack(i);
    f.state = FiberState::kRunnable;
    f.shuffles = 0;
    f.index = unflatten(i, r.block);
  }
  for (unsigned w = 0; w < r.warps.size(); ++w) {
    r.warps[w].live = std::min(kWarp, n - w * kWarp);
    r.warps[w].arrived = 0;
  }
  while (r.live > 0 && r.error.empty()) {
    bool ran = false;
    for (unsigned i = 0; i < n && r.error.empty(); ++i) {
      if (r.fibers[i].state != FiberState::kRunnable) continue;
      r.current = i;
      cuda_emulator_switch_stack(&r.scheduler_sp, r.fibers[i].sp);
      ran = true;
    }
    if (!ran && r.error.empty()) {
      unsigned block_waiting = 0, warp_waiting = 0;
      for (unsigned i = 0; i < n; ++i) {
        block_waiting += r.fibers[i].state == FiberState::kAtBlockBarrier;
        warp_waiting += r.fibers[i].state == FiberState::kAtWarpBarrier;
      }
      r.error = std::string(r.kernel) + ": block " + text(r.block_index) + ": deadlock: " +
                std::to_string(block_waiting) + " threads wait at __syncthreads, " +
                std::to_string(warp_waiting) + " at a warp shuffle, " +
                std::to_string(n - r.live) + " returned (a barrier some threads never reach)";
    }
  }
}

}  // namespace

const Dim3& thread_idx() { return current_fiber().index; }
const Dim3& block_idx() { return g_run->block_index; }
const Dim3& block_dim() { return g_run->block; }
const Dim3& grid_dim() { return g_run->grid; }
void* dynamic_shared() { return g_run->shared; }

void sync_threads(const char* site) {
  Run& r = *g_run;
  // Every thread must wait at the same __syncthreads (CUDA leaves it
  // undefined otherwise): compare source lines, which the compiler cannot
  // duplicate as it may duplicate the call itself.
  if (r.at_block_barrier == 0) {
    r.barrier_site = site;
  } else if (std::strcmp(site, r.barrier_site) != 0) {
    fail(std::string("threads wait at different __syncthreads calls (") + r.barrier_site +
         " and " + site + ": a barrier inside divergent code)");
  }
  if (++r.at_block_barrier == r.live) {
    release_block_barrier();
    return;
  }
  current_fiber().state = FiberState::kAtBlockBarrier;
  yield();
}

uint32_t shuffle_xor(uint32_t bits, unsigned mask, int lane_mask, int width) {
  Run& r = *g_run;
  if (mask != 0xffffffffu || width != static_cast<int>(kWarp))
    fail("only full-warp __shfl_xor_sync (mask 0xffffffff, width 32) is emulated");
  Warp& w = r.warps[r.current / kWarp];
  if (w.live != kWarp)
    fail("__shfl_xor_sync with a full mask in a warp of " + std::to_string(w.live) +
         " live lanes (a partial warp, or lanes that returned)");
  const unsigned lane = r.current % kWarp;
  uint32_t* slots = w.slots[current_fiber().shuffles++ % 2];
  slots[lane] = bits;
  warp_barrier();  // every lane has written
  return slots[(lane ^ static_cast<unsigned>(lane_mask)) % kWarp];
}

namespace {

std::string hex(uintptr_t a) {
  char s[32];
  std::snprintf(s, sizeof s, "%#lx", static_cast<unsigned long>(a));
  return s;
}

bool on_fiber_stack(uintptr_t a) {
  const Memory& m = memory();
  const auto first = reinterpret_cast<uintptr_t>(m.stacks) - page_size();
  return a >= first && a < first + m.stack_count * (kStackBytes + page_size());
}

[[noreturn]] void fail_race(const Race& race, bool write, const std::string& where) {
  const Run& r = *g_run;
  std::string other = "thread " + text(unflatten(race.other.thread, r.block));
  if (race.other.block != r.block_linear)
    other = "block " + text(unflatten(race.other.block, r.grid)) + " " + other;
  const char* did = race.kind == RaceKind::kWriteAfterRead ? " read" : " wrote";
  std::string what = "data race: " + std::string(write ? "writes " : "reads ") + where +
                     " that " + other + did;
  what += race.other.block != r.block_linear
              ? " (blocks of one launch are not ordered)"
              : " with no __syncthreads between (a missing barrier)";
  fail(what);
}

}  // namespace

void check_access(const void* p, size_t size, bool write) {
  Run* run = g_run;
  if (run == nullptr || size == 0 || !pthread_equal(g_run_thread, pthread_self())) return;
  Run& r = *run;
  const auto a = reinterpret_cast<uintptr_t>(p);
  if (on_fiber_stack(a)) return;  // a thread's own locals
  // The emulator's own state behind threadIdx, blockIdx, ...: read only.
  const auto state = reinterpret_cast<uintptr_t>(&r);
  const auto fibers = reinterpret_cast<uintptr_t>(r.fibers.data());
  if ((a >= state && a < state + sizeof r) || (a >= fibers && a < fibers + r.fibers.size() * sizeof(Fiber)))
    return;
  const Accessor who{r.block_linear, r.epoch, r.current};
  const auto dynamic = reinterpret_cast<uintptr_t>(r.shared);
  const StaticShared fixed = static_shared();
  const auto fixed_begin = reinterpret_cast<uintptr_t>(fixed.begin);
  if (a >= fixed_begin && a < fixed_begin + fixed.bytes) {
    const Race race = g_race_shadow.access_shared(a - fixed_begin, size, write, who);
    if (race.kind != RaceKind::kNone)
      fail_race(race, write, "static shared memory (byte " + std::to_string(a - fixed_begin) + ")");
  } else if (a >= dynamic && a < dynamic + r.shared_bytes) {
    // Dynamic shared words follow the static ones in the shadow.
    const size_t after_fixed = (fixed.bytes + 3) / 4 * 4;
    const Race race = g_race_shadow.access_shared(after_fixed + (a - dynamic), size, write, who);
    if (race.kind != RaceKind::kNone)
      fail_race(race, write, "dynamic shared memory (byte " + std::to_string(a - dynamic) + ")");
  } else {
    const std::string outside = g_allocations.check(a, size);
    if (!outside.empty())
      fail(std::string("out of bounds: ") + (write ? "writes " : "reads ") + std::to_string(size) +
           " bytes at " + hex(a) + ", which " + outside);
    const Race race = g_race_shadow.access_global(a, size, write, who);
    if (race.kind != RaceKind::kNone) fail_race(race, write, "global memory at " + hex(a));
  }
}

void track_allocation(const void* begin, size_t bytes) {
  std::lock_guard<std::mutex> lock(g_launch_mutex);
  g_allocations.add(reinterpret_cast<uintptr_t>(begin), bytes);
}

void forget_allocation(const void* begin) {
  std::lock_guard<std::mutex> lock(g_launch_mutex);
  g_allocations.remove(reinterpret_cast<uintptr_t>(begin));
}

void report_misaligned(const void* address, unsigned alignment, const char* type,
                       const char* file, unsigned line) {
  char what[256];
  std::snprintf(what, sizeof what, "misaligned address %p: %s needs %u-byte alignment (%s:%u)",
                address, type, alignment, file, line);
  if (g_run == nullptr || !pthread_equal(g_run_thread, pthread_self())) {
    std::fprintf(stderr, "cuda_emulator: %s\n", what);
    std::abort();
  }
  fail(what);
}

std::string launch(const char* kernel, Dim3 grid, Dim3 block, unsigned shared_bytes,
                   ThreadBody body, void* context) {
  std::lock_guard<std::mutex> lock(g_launch_mutex);
  const uint64_t threads = uint64_t{block.x} * block.y * block.z;
  const std::string name(kernel);
  if (threads == 0 || threads > kMaxThreads)
    return name + ": " + std::to_string(threads) + " threads per block (1 to 1024 allowed)";
  if (uint64_t{grid.x} * grid.y * grid.z == 0) return name + ": empty grid";
  if (!reserve_stacks(static_cast<unsigned>(threads))) return name + ": no memory for fiber stacks";
  Run r;
  r.kernel = kernel;
  r.grid = grid;
  r.block = block;
  r.body = body;
  r.context = context;
  r.fibers.resize(threads);
  r.warps.resize((threads + kWarp - 1) / kWarp);
  r.shared = shared_region(shared_bytes);
  r.shared_bytes = shared_bytes;
  if (r.shared == nullptr) return name + ": no memory for shared memory";
  g_race_shadow.begin_launch();
  g_run_thread = pthread_self();
  g_run = &r;
  for (unsigned z = 0; z < grid.z && r.error.empty(); ++z)
    for (unsigned y = 0; y < grid.y && r.error.empty(); ++y)
      for (unsigned x = 0; x < grid.x && r.error.empty(); ++x) {
        r.block_index = Dim3{x, y, z};
        run_block(r);
      }
  g_run = nullptr;
  return r.error;
}

}  // namespace cuda_emulator
