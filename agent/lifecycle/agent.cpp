// The agent's life cycle (see agent.h): start once from any entry point, dump
// once at exit (again after an exec that failed), and never disturb the
// host: every failure becomes a warning and a line in the trace's diagnostics.
#include "agent/lifecycle/agent.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <mutex>

#include "agent/capture/capture.h"
#include "agent/gpu_source.h"
#include "agent/io/compressed_formats.h"
#include "agent/io/host_peaks.h"
#include "agent/python/python_frames.h"
#include "agent/io/log.h"
#include "agent/io/output.h"
#include "agent/io/process_info.h"
#include "agent/io/trace_stream.h"
#include "agent/lifecycle/critical_section.h"
#include "agent/lifecycle/handler_stack.h"
#include "agent/lifecycle/signals.h"
#include "agent/lifecycle/write_deadline.h"
#include "agent/recorder/clock.h"
#include "agent/recorder/recorder.h"
#include "trace/output/atomic_file.h"
#include "trace/output/formats.h"
#include "trace/output/sink.h"

namespace brickprof::agent {

// From agent/nvtx and agent/mpi when they are linked in (the unit-test core
// library has neither): weak, so the core stands alone.
__attribute__((weak)) std::string nvtx_status();
namespace mpi {
__attribute__((weak)) void contribute_header(Trace& header);  // agent/mpi/contribute.h
}

namespace {

enum class State { kNew, kStarting, kStarted, kInert };

std::atomic<State> g_state{State::kNew};
std::atomic<bool> g_dumped{false};
// The process the agent's state belongs to: set at start and in a fork
// child (atfork handlers do not run for vfork, so a vfork child differs).
std::atomic<pid_t> g_pid{0};
// Writes a trace even if it recorded nothing (process_info.h): not a
// forked child, nor a program the started one ran.
bool g_started_process = true;
// The thread writing the trace now, 0 when none: one write at a time.
std::atomic<pid_t> g_writer{0};
bool g_recording_before_exec = true;
GpuSource* g_gpu = nullptr;  // never freed: CUPTI may call back late
int64_t g_start_ns = 0;

// Built on first use and never freed: the LD_PRELOAD constructor can run
// before this file's dynamic initialisers, and the dump runs after them.
Config& the_config() {
  static Config* c = new Config();
  return *c;
}
std::string& gpu_status() {
  static std::string* s = new std::string("not started");
  return *s;
}
// Where the trace written before an exec went: if that exec failed, the
// next write replaces it.
std::string& pre_exec_written() {
  static std::string* s = new std::string();
  return *s;
}

// Signals whose default action ends the process: the trace is written
// first. The crash signals too: a trace cut short by an assert, an abort()
// in a CUDA_CHECK or a segfault shows in its open scopes where it died.
struct DumpSignal {
  int number;
  const char* name;
};
constexpr DumpSignal kDumpSignals[] = {
    {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"},   {SIGHUP, "SIGHUP"},
    {SIGQUIT, "SIGQUIT"}, {SIGABRT, "SIGABRT"}, {SIGSEGV, "SIGSEGV"},
    {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},   {SIGILL, "SIGILL"}};

// Raised by the faulting code itself: returning would run it again.
bool is_crash(int sig) {
  return sig == SIGABRT || sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL;
}

const char* getenv_wrapper(const char* name) { return std::getenv(name); }

// Another copy of the agent (a different file) already owns the process.
// Compares load bases: taking &brickprof_get_api here would go through the
// GOT and name the other copy's function too.
bool another_agent_is_active() {
  void* sym = dlsym(RTLD_DEFAULT, "brickprof_get_api");
  Dl_info theirs, ours;
  if (!sym || !dladdr(sym, &theirs)) return false;
  if (!dladdr(reinterpret_cast<void*>(&getenv_wrapper), &ours)) return false;
  return theirs.dli_fbase != ours.dli_fbase;
}

volatile sig_atomic_t g_dying_signal = 0;
// The thread whose handler writes the trace for that signal, 0 for none.
std::atomic<pid_t> g_dying_thread{0};

pid_t this_thread() { return static_cast<pid_t>(syscall(SYS_gettid)); }

// A signal that ends the process is being handled on another thread,
// which writes the trace and then dies of it. Without the agent the
// process would already be gone: this thread must not leave first by a
// way of its own (exit, _exit, an exec), with another status. It waits to
// be ended with the others (the write's deadline bounds the wait).
void wait_if_another_thread_is_dying() {
  const pid_t dying = g_dying_thread.load();
  if (dying == 0 || dying == this_thread() || getpid() != g_pid.load()) return;
  for (;;) pause();
}

// Dies of `sig` as the program would have without the agent, once its
// handler returns (the signal is blocked until then). A trace file still
// being written, a write cut short, is removed first.
void die_of(int sig) {
  remove_unfinished_files();
  signals::die_by_default(sig);
  raise(sig);
}

// Past the deadline of a trace write started by a signal: die of that
// signal now. Only async-signal-safe calls.
void give_up_dying(const void*) {
  log_error_in_signal_handler(
      "the trace write did not finish within BRICKPROF_SIGNAL_DUMP_SECONDS of the signal; "
      "the process ends without waiting for it");
  const int sig = g_dying_signal;
  die_of(sig);
  sigset_t unblock;
  sigemptyset(&unblock);
  sigaddset(&unblock, sig);
  pthread_sigmask(SIG_UNBLOCK, &unblock, nullptr);  // we run inside its handler
  _exit(128 + sig);                                 // not reached: the default action terminates
}

// The trace write of a signal's handler. It can block forever on a lock
// the interrupted code holds (malloc's, stdio's): the deadline bounds it.
void write_while_dying(void*) {
  WriteDeadline deadline(the_config().signal_dump_seconds, AfterWrite::kProcessEnds,
                         give_up_dying, nullptr);
  dump_at_exit();
}

// In the kernel while the program's disposition of a dump signal is
// SIG_DFL (signals.h).
void on_dump_signal(int sig, siginfo_t* info, void* context) {
  critical::delete_redelivery_timer(info);  // a held signal sent again
  if (getpid() != g_pid.load()) {  // a vfork child: its parent's memory, not ours to write
    signals::die_by_default(sig);
    raise(sig);
    return;
  }
  // The program may have set its own since the signal arrived: as if it
  // had been in place.
  const struct sigaction program = signals::program_action(sig);
  if (!signals::is_default(program)) {
    if (program.sa_handler == SIG_IGN) return;
    if (program.sa_flags & SA_SIGINFO)
      program.sa_sigaction(sig, info, context);
    else
      program.sa_handler(sig);
    return;
  }
  // Inside the agent's locks or a CUPTI callback the write would wait for
  // itself: a signal that can wait is raised again when the thread leaves;
  // a crash there cannot wait, and ends the process without a trace.
  if (CriticalSection::inside() && !is_crash(sig)) {
    CriticalSection::hold(sig);
    return;
  }
  // The default action would kill the process: write the trace first, then
  // die of the same signal so the parent sees the same status.
  if (CriticalSection::inside()) {
    log_error_in_signal_handler("crashed inside the agent; no trace written");
  } else {
    g_dying_signal = sig;
    g_dying_thread.store(this_thread());
    // The handler may be on a stack of a few KiB (a small thread's, a
    // goroutine's, an alternate signal stack): the write gets its own.
    run_on_handler_stack(write_while_dying, nullptr);
  }
  die_of(sig);
}

void install_signal_handlers() {
  // Loaded by dlopen (CUDA or NVTX injection alone), the program's
  // sigaction is libc's and would show it our handler: none, then.
  if (!signals::interposed()) {
    log_info("not preloaded: no trace is written when a signal ends the program");
    return;
  }
  int numbers[std::size(kDumpSignals)];
  // While one trace write runs in a handler, the others wait (a second
  // fault inside it then ends the process at once, as without the agent).
  sigset_t all_dump_signals;
  sigemptyset(&all_dump_signals);
  for (size_t i = 0; i < std::size(kDumpSignals); ++i) {
    numbers[i] = kDumpSignals[i].number;
    sigaddset(&all_dump_signals, numbers[i]);
  }
  signals::manage(numbers, static_cast<int>(std::size(kDumpSignals)), on_dump_signal,
                  all_dump_signals);
}

void after_fork_in_child() {
  Recorder::reset_after_fork();
  host_peaks_after_fork();
  g_pid.store(getpid());
  g_started_process = false;
  g_writer.store(0);  // a parent's thread may have been writing
  g_dying_thread.store(0);
  pre_exec_written().clear();
  g_dumped.store(false);
  g_gpu = nullptr;  // CUDA does not survive fork
  gpu_status() = "unavailable: forked child";
  g_start_ns = monotonic_ns();
}

void start() {
  g_pid.store(getpid());
  the_config() = read_config(getenv_wrapper);
  Clock::init(the_config().test_clock_shift_ns);
  Recorder::set_clock_is_tsc(Clock::uses_tsc());
  g_start_ns = monotonic_ns();
  settle_compressed_formats(the_config());
  // The folder the program started in: it may chdir before the trace is written.
  char cwd[PATH_MAX];
  the_config().output =
      anchor_output_pattern(the_config().output, getcwd(cwd, sizeof cwd) ? cwd : "");
  g_started_process =
      is_started_process(the_config().run_pid, reinterpret_cast<const void*>(&getenv_wrapper));
  set_log_level(the_config().log_level);
  for (const std::string& w : the_config().warnings) log_warn(w);
  Recorder::set_capacity(the_config().buffer_bytes);
  capture::configure(the_config().capture, the_config().capture_scope,
                     the_config().capture_every, the_config().capture_max);
  if (!Recorder::start_cpu_counters(the_config().cpu_counters) &&
      the_config().cpu_counters != cpu_counters::Mode::kOff)
    log_info("CPU counters " + cpu_counters::status());
  std::atexit([] { dump_at_exit(); });
  // quick_exit skips atexit but runs these (after the program's own, which
  // were registered later), then _exit through libc's internal symbol.
  std::at_quick_exit([] { dump_at_exit(); });
  install_signal_handlers();
  pthread_atfork(nullptr, nullptr, after_fork_in_child);
  if (!the_config().gpu) {
    gpu_status() = "off (BRICKPROF_GPU=off)";
  } else {
    std::string status;
    g_gpu = start_gpu_source(the_config(), &status).release();
    gpu_status() = status;
    if (!g_gpu) log_info("GPU capture " + status);
  }
  // The program's own memory events carry Python stacks too; where there
  // is a GPU source, it has looked for the interpreter already (once: a
  // program without Python pays one failed lookup).
  if (!g_gpu) python::start(the_config().python_depth);
  log_debug("started; clock " + std::string(Clock::uses_tsc() ? "tsc" : "clock_gettime"));
}

// The trace's header: everything but the nodes, which `stream` writes.
Trace build_header(const TraceStream& stream, GpuDump* gpu, const Clock& clock, uint64_t end_ticks,
                   const std::vector<capture::Window>& windows) {
  Trace trace;
  trace.process = process_info(g_start_ns, clock.to_ns(end_ticks), the_config().cmdline);
  trace.threads = thread_infos(stream.node_threads(), stream.noted_names());
  Diagnostics& d = trace.diagnostics;
  d.cupti = gpu_status();
  d.nvtx = nvtx_status ? nvtx_status() : "not linked";
  d.cpu_counters = cpu_counters::status();
  // Asked for where there is no GPU source: the range profiler never ran
  // (with one, the source says what it did).
  if (!the_config().gpu_metrics.empty() && gpu == nullptr)
    d.gpu_metrics = "refused: no GPU capture (" + gpu_status() + ")";
  d.dropped_events = Recorder::dropped_events();
  d.dropped_names = Recorder::dropped_names();
  d.ignored_api_calls = Recorder::ignored_api_calls();
  d.unbalanced_pops = stream.counts().unbalanced_pops;
  d.open_scopes_at_exit = stream.counts().open_scopes_at_exit;
  d.capture = capture::describe(clock.ns_per_tick());
  for (const capture::Window& w : windows)  // a window open at exit ends there
    d.capture_windows.push_back(
        {clock.to_ns(w.start_tsc), clock.to_ns(w.end_tsc ? w.end_tsc : end_ticks)});
  d.scopes_cut_by_capture = stream.counts().scopes_cut_by_capture;
  d.warnings = the_config().warnings;
  if (std::string why = capture::why_nothing_was_recorded(); !why.empty())
    d.warnings.push_back(why);
  if (const int sig = g_dying_signal; sig != 0) {
    for (const DumpSignal& known : kDumpSignals)
      if (known.number == sig)
        d.warnings.push_back(std::string("the process was killed by ") + known.name +
                             "; the trace was written in its handler (scopes still open "
                             "were open when it arrived)");
  }
  if (d.dropped_events)
    d.warnings.push_back("event buffer cap (BRICKPROF_BUFFER_MB) reached: " +
                         std::to_string(d.dropped_events) + " events dropped");
  if (d.ignored_api_calls)
    d.warnings.push_back(std::to_string(d.ignored_api_calls) +
                         " scope API calls left out: their arguments cannot be kept (a tile "
                         "level outside macro/midi/micro, a counter value that is not finite, "
                         "shapes past 512 bytes)");
  if (d.dropped_names)
    d.warnings.push_back(
        "name table full (BRICKPROF_BUFFER_MB): " + std::to_string(d.dropped_names) +
        " scopes with run-time names recorded as \"(other)\"");
  if (!stream.note().empty()) d.warnings.push_back(stream.note());
  // Checksum mode asked for where no GPU source runs: nothing was digested
  // (the GPU source, when there is one, says how it digested instead).
  if (the_config().checksums)
    d.checksum_mode = "none (no GPU source in this process: no kernel was digested)";
  if (mpi::contribute_header) mpi::contribute_header(trace);  // communicators, rank, clock offset
  if (gpu)
    gpu->contribute_header(trace, stream.gpu_left_out());  // devices[]: GPUs first, Python stacks
  else
    python::contribute(trace);  // the stacks of the program's memory events
  add_host_device(trace);
  return trace;
}

// Where the node spill goes: the outputs' directory.
std::string directory_of(const std::string& prefix) {
  size_t slash = prefix.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : prefix.substr(0, slash);
}

// Takes the writer's place. With `wait`, waits for a write on another
// thread (an exec hook's: the exec replaces us, or it failed and the trace
// is due again), but no longer than that write's own deadline; never for
// one on this thread (a signal arrived mid-write).
bool take_writer(bool wait) {
  const pid_t me = this_thread();
  const int64_t give_up_ns =
      monotonic_ns() + (the_config().signal_dump_seconds + 1) * int64_t{1000000000};
  pid_t expected = 0;
  while (!g_writer.compare_exchange_strong(expected, me)) {
    if (expected == me || !wait || monotonic_ns() > give_up_ns) return false;
    expected = 0;
    sched_yield();
  }
  return true;
}

// The trace written before an exec goes to <prefix>.pre-exec: the new image
// keeps the pid, and when it also keeps the name (a program that re-runs
// itself, a BRICKPROF_OUTPUT without %n) its trace takes <prefix>. One that
// an earlier exec in the chain wrote keeps its name too: -2, -3...
std::string pre_exec_prefix(const std::string& prefix) {
  const std::vector<std::string>& formats = the_config().formats;
  std::string name = prefix + ".pre-exec";
  for (int n = 2; n < 100 && name != pre_exec_written() && outputs_exist(formats, name); ++n)
    name = prefix + ".pre-exec-" + std::to_string(n);
  return name;
}

// Which write: the last (at exit: events freed as they are read), one
// before an exec (under its own name, events kept: the exec may fail), or
// one while the program goes on (BRICKPROF_DUMP_ON=oom: events kept, and
// the next write replaces its files).
enum class WriteKind { kFinal, kBeforeExec, kGoingOn };

// Builds and writes the trace; `why`, if any, joins its warnings. A trace
// a failed exec left under another name is removed once this one is out.
void write_trace(const std::string& why, WriteKind kind) {
  const bool before_exec = kind == WriteKind::kBeforeExec;
  try {
    // Streamed (agent/io/trace_stream.h): the events are read, not copied
    // into a Trace; before an exec, which may fail and record on, they are
    // kept, else freed as they are read.
    capture::freeze(true);    // the recorder is off from here
    FileSizeSignalHeld held;  // the node spill and the outputs alike
    if (g_gpu) g_gpu->flush();
    const uint64_t end_ticks = Clock::ticks();
    const Clock clock = Clock::fit_now();
    const std::vector<capture::Window> windows = capture::windows();
    std::string prefix = output_prefix(
        the_config(), process_info(g_start_ns, clock.to_ns(end_ticks), the_config().cmdline));
    if (before_exec) prefix = pre_exec_prefix(prefix);
    std::unique_ptr<GpuDump> gpu = g_gpu ? g_gpu->begin_dump() : nullptr;
    TraceStream stream(Recorder::snapshot(), clock, end_ticks, windows, gpu.get(),
                       /*consume=*/kind == WriteKind::kFinal, directory_of(prefix));
    Trace header = build_header(stream, gpu.get(), clock, end_ticks, windows);
    if (!why.empty()) header.diagnostics.warnings.push_back(why);
    FileSink sink(prefix);
    const WrittenOutputs written = stream.write(header, the_config().formats, sink);
    list_in_manifest(the_config().run_manifest, written.files, stream.recorded_nothing());
    if (!written.failures.empty()) {
      std::string missing;
      for (const std::string& failure : written.failures)
        missing += (missing.empty() ? "" : "; ") + failure;
      log_warn("trace files not written: " + missing);
      for (const std::string& file : written.files) log_info("wrote " + file);
      return;
    }
    log_info("wrote " + prefix + ".*");
    std::string& replaced = pre_exec_written();
    if (!replaced.empty() && replaced != prefix) remove_outputs(the_config().formats, replaced);
    replaced = before_exec ? prefix : std::string();
  } catch (const std::exception& e) {
    log_error(std::string("could not write the trace: ") + e.what());
  } catch (...) {
    log_error("could not write the trace");
  }
}

}  // namespace

void ensure_started() {
  State expected = State::kNew;
  if (!g_state.compare_exchange_strong(expected, State::kStarting)) {
    // Someone else is starting: wait until they are done (it is quick).
    while (g_state.load() == State::kStarting) sched_yield();
    return;
  }
  try {
    if (another_agent_is_active()) {
      Recorder::set_enabled(false);
      g_state.store(State::kInert);
      return;
    }
    start();
  } catch (...) {
    Recorder::set_enabled(false);  // carry on untouched
  }
  g_state.store(State::kStarted);
}

const Config& config() { return the_config(); }

void dump_at_exit() {
  if (g_state.load() != State::kStarted) return;
  wait_if_another_thread_is_dying();
  // As at exec and _exit: a process that recorded nothing leaves no file
  // (a shell's subshell, the programs a script runs), unless the user
  // started it.
  if (!g_started_process && !Recorder::recorded_anything()) return;
  if (!take_writer(/*wait=*/true)) return;
  if (!g_dumped.exchange(true)) write_trace("", WriteKind::kFinal);
  g_writer.store(0);
}

bool should_save_before_leaving(bool before_exec) {
  // Before an exec that recorded nothing, the new image (same pid) writes.
  return g_state.load() == State::kStarted && getpid() == g_pid.load() &&
         (Recorder::recorded_anything() || (g_started_process && !before_exec));
}

bool save_before_leaving(const std::string& why, bool before_exec) {
  wait_if_another_thread_is_dying();
  if (!take_writer(/*wait=*/false)) return false;
  bool wrote = !g_dumped.exchange(true);
  if (wrote) {
    g_recording_before_exec = Recorder::enabled();
    write_trace(why, before_exec ? WriteKind::kBeforeExec : WriteKind::kFinal);
  }
  g_writer.store(0);
  return wrote;
}

void save_at_out_of_memory(const std::string& why) {
  if (g_state.load() != State::kStarted || getpid() != g_pid.load()) return;
  if (the_config().dump_on != DumpOn::kOutOfMemory) return;
  // A program near its memory's end may fail many allocations (a caching
  // allocator frees its cache and tries again): the first failure writes,
  // then at most one every few seconds.
  constexpr int64_t kBetweenWrites = 10'000'000'000;
  static std::atomic<int64_t> last_write_ns{0};
  const int64_t now = monotonic_ns();
  const int64_t last = last_write_ns.load();
  if (last != 0 && now - last < kBetweenWrites) return;
  // Another write under way has these events already.
  if (!take_writer(/*wait=*/false)) return;
  if (!g_dumped.load()) {
    last_write_ns.store(now);
    const bool was_recording = Recorder::enabled();
    write_trace(why, WriteKind::kGoingOn);
    capture::freeze(false);         // records again as the program and the windows say
    Recorder::resume_after_dump();  // exiting threads free their buffers again
    if (!was_recording) Recorder::set_enabled(false);
  }
  g_writer.store(0);
}

void resume_after_failed_exec() {
  if (!take_writer(/*wait=*/true)) return;
  capture::freeze(false);         // records again as the program and the windows say
  Recorder::resume_after_dump();  // exiting threads free their buffers again
  if (!g_recording_before_exec) Recorder::set_enabled(false);  // it had not started well
  g_dumped.store(false);
  g_writer.store(0);
}

bool read_recording_so_far(const std::function<void(const RecordingSoFar&)>& read) {
  if (g_state.load() != State::kStarted || getpid() != g_pid.load()) return false;
  // A dying signal meanwhile waits until the reader is done (it takes the
  // writer's place and the GPU source's locks), then writes the trace.
  CriticalSection section;
  if (!take_writer(/*wait=*/true)) return false;
  bool done = false;
  if (!g_dumped.load()) {
    try {
      if (g_gpu) g_gpu->flush();
      const uint64_t now = Clock::ticks();
      const Clock clock = Clock::fit_now();
      const std::vector<capture::Window> windows = capture::windows();
      // In the exit write's order: the GPU source's locks, then the buffers.
      std::unique_ptr<GpuDump> gpu = g_gpu ? g_gpu->begin_dump() : nullptr;
      const std::vector<Recorder::ThreadEvents> threads = Recorder::snapshot();
      try {
        read(RecordingSoFar{threads, clock, now, windows, gpu.get()});
        done = true;
      } catch (...) {
      }
      Recorder::resume_after_dump();
    } catch (...) {
    }
  }
  g_writer.store(0);
  return done;
}

// LD_PRELOAD entry point.
__attribute__((constructor)) static void on_load() { ensure_started(); }

}  // namespace brickprof::agent
