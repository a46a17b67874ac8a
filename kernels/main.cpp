// bricklayer: runs a synthetic Llama-style decoder on a chosen backend and reports throughput.
#include <brickprof/brickprof.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdarg>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "kernels/backends.h"
#include "kernels/bandwidth.h"
#include "kernels/cache_bandwidth.h"
#include "kernels/communicator.h"
#include "kernels/cpu_detect.h"
#include "kernels/engine.h"
#include "kernels/executor.h"
#include "kernels/flops.h"
#include "kernels/memory_pools.h"
#include "kernels/model.h"

namespace {

using bricklayer::Config;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Under --tp only rank 0 reports (the ranks' figures are one run's).
bool g_reporting = true;

__attribute__((format(printf, 1, 2))) void say(const char* format, ...) {
  if (!g_reporting) return;
  va_list args;
  va_start(args, format);
  std::vprintf(format, args);
  va_end(args);
}

int fail(const std::string& what) {
  std::fprintf(stderr, "bricklayer: %s\n", what.c_str());
  return 2;
}

struct Options {
  Config cfg;
  int tokens = 32;
  int prompt = 16;
  int threads = static_cast<int>(std::thread::hardware_concurrency());
  std::string backend = "auto";
  std::string mode = "eager";
  std::string weights = "q4k";
  double probe_seconds = 0.3;
  int tp = 1;
  int slow_rank = -1;  // --test-slow-rank / --test-slow-us
  double slow_us = 0;
  std::string repeat_brick;  // --repeat-brick NAME=K
  bool checksums = false;    // --checksums
  std::string fault;         // --fault KIND:LAYER:BRICK
};

// --repeat-brick NAME=K against the graph: NAME one of its bricks, K from 1
// to 100, and only a brick whose ops do not overwrite their own input (a
// RoPE, SiLU or residual add done twice would change the result). Returns
// the repeat, or sets *error.
bricklayer::BrickRepeat parse_brick_repeat(const std::string& spec, const bricklayer::Graph& g,
                                           std::string* error) {
  using namespace bricklayer;
  BrickRepeat repeat;
  const size_t eq = spec.rfind('=');
  const std::string name = spec.substr(0, eq);
  char* end = nullptr;
  const long times = eq == std::string::npos ? 0 : std::strtol(spec.c_str() + eq + 1, &end, 10);
  if (eq == std::string::npos || end == spec.c_str() + eq + 1 || *end != '\0' || times < 1 ||
      times > 100) {
    *error = "--repeat-brick: expected NAME=K with K from 1 to 100, got '" + spec + "'";
    return repeat;
  }
  std::string names;
  bool found = false;
  for (const Node& n : g.nodes) {
    if (n.op == Op::None) continue;
    const std::string brick = brick_name(n.brick);
    if (brick != name) {
      if (names.find(brick) == std::string::npos) names += (names.empty() ? "" : ", ") + brick;
      continue;
    }
    found = true;
    repeat.brick = n.brick;
    for (int in : n.in)
      if (in == n.out) {
        *error = "--repeat-brick: " + name + " writes its own input (" + op_name(n.op) +
                 " in place): repeating it would change the result";
        return repeat;
      }
  }
  if (!found) *error = "--repeat-brick: no brick '" + name + "' in this model (" + names + ")";
  repeat.times = static_cast<int>(times);
  return repeat;
}

// This machine's roofs, measured in this run; 0 where not measured.
struct Probes {
  double read_gbps = 0;
  double fma_gflops = 0;
  bricklayer::CacheSizes caches;
  bricklayer::CacheBandwidth cache;  // CPU backends only
};

// The read probe (any backend) and, on a CPU backend, an FMA-throughput probe
// of its kernel table (at most 0.1 s); --probe-seconds 0 skips both. The agent is
// told the CPU figures, so the profile's CPU roofline is this machine's and
// not a table row (a GPU's devices[] entry carries its own peaks).
Probes run_probes(const Options& o, bricklayer::Dispatcher& backend, bricklayer::ThreadPool& pool) {
  using namespace bricklayer;
  Probes p;
  if (o.probe_seconds <= 0) return p;
  const CpuKernels* cpu = cpu_kernels_of(backend);
  const CpuKernels& reader = kernels_for(default_simd_level());
  {
    BRICKPROF_SCOPE("bandwidth probe");
    p.read_gbps = cpu ? measure_read_bandwidth(reader, pool, 256ll << 20, o.probe_seconds).gbps
                      : device_read_bandwidth(backend);
  }
  if (!cpu) return p;
  {
    BRICKPROF_SCOPE("flops probe");
    p.fma_gflops = measure_fma_throughput(*cpu, pool, std::min(o.probe_seconds, 0.1)).gflops;
  }
  char how[160];
  std::snprintf(how, sizeof how,
                "bricklayer read probe (%s, %d threads), FMA probe (%s, %d threads)", reader.name,
                pool.size(), cpu->name, pool.size());
  BRICKPROF_SET_HOST_PEAKS(p.fma_gflops, p.read_gbps, how);
  {
    BRICKPROF_SCOPE("cache probe");
    p.caches = cache_sizes();
    p.cache = measure_cache_bandwidth(reader, p.caches, std::min(o.probe_seconds, 0.05));
  }
  BRICKPROF_SET_CACHE_BANDWIDTH(p.cache.gbps[0], p.cache.gbps[1], p.cache.gbps[2]);
  return p;
}

// Tensor parallelism: one rank per process under mpirun; rank 0 reports.
// Opens the job's communicator into `comm` and sets cfg's share; "" or why not.
std::string open_tensor_parallel(const Options& o, Config& cfg,
                                 std::unique_ptr<bricklayer::Communicator>& comm) {
  std::string error;
  comm = bricklayer::open_mpi_communicator(&error);
  if (!comm) return error;
  if (comm->size() != o.tp)
    return "--tp " + std::to_string(o.tp) + " needs " + std::to_string(o.tp) +
           " MPI ranks (mpirun -np " + std::to_string(o.tp) + "); this job has " +
           std::to_string(comm->size());
  cfg.tp = o.tp;
  cfg.tp_rank = comm->rank();
  return "";
}

// "" when the model and the run's lengths fit together, else why not.
std::string check_run_options(const Options& o, const Config& cfg) {
  if (std::string e = bricklayer::validate(cfg); !e.empty()) return e;
  if (o.prompt < 1) return "--prompt must be > 0";
  if (o.tokens < 0) return "--tokens must be >= 0";
  if (o.threads < 1) return "--threads must be > 0";
  if (o.prompt + o.tokens > cfg.context)
    return "--prompt + --tokens (" + std::to_string(o.prompt + o.tokens) + ") exceeds --context " +
           std::to_string(cfg.context);
  return "";
}

void say_setup(const Options& o, const Config& cfg, const std::string& backend, double weight_mb,
               double build_s) {
  say("bricklayer: backend %s, mode %s, weights %s, threads %d, cpu %s\n", backend.c_str(),
      o.mode.c_str(), o.weights.c_str(), o.threads, bricklayer::cpu_model_name().c_str());
  say("model: %d layers, hidden %d, heads %d (kv %d), ffn %d, vocab %d, context %d, "
      "batch %d; %.1f MB of weights per token; built in %.2f s\n",
      cfg.layers, cfg.hidden, cfg.heads, cfg.kv_heads, cfg.ffn, cfg.vocab, cfg.context, cfg.batch,
      weight_mb, build_s);
  if (cfg.tp > 1)
    say("tensor parallel: %d ranks, %d heads (kv %d) and %d FFN columns each; weights above "
        "are rank 0's\n",
        cfg.tp, cfg.rank_heads(), cfg.rank_kv_heads(), cfg.rank_ffn());
}

// Deterministic prompt ids from the seed, so every run generates the same tokens.
std::vector<int32_t> prompt_ids(const Config& cfg, int prompt_len) {
  std::vector<int32_t> prompt(static_cast<size_t>(cfg.batch * prompt_len));
  uint64_t s = cfg.seed * 0x9e3779b97f4a7c15ull + 1;
  for (auto& t : prompt) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    t = static_cast<int32_t>((s >> 33) % static_cast<uint64_t>(cfg.vocab));
  }
  return prompt;
}

// What prefill and decode took, and what they made.
struct Generated {
  double prefill_s = 0;
  double decode_s = 0;
  std::vector<int32_t> first_seq;  // the tokens decoded for sequence 0
  // Counted by the backend as it launches, not derived from the graph.
  int64_t decode_kernels = 0;
  int64_t decode_graphs = 0;
};

Generated generate(bricklayer::Engine& engine, bricklayer::Dispatcher& backend,
                   const std::vector<int32_t>& prompt, const Options& o) {
  Generated g;
  const auto t_prefill = Clock::now();
  {
    BRICKPROF_SCOPE("prefill");
    engine.prefill(prompt, o.prompt);
    // The prompt's tokens, all sequences: a counter, so tokens per second
    // (brickprof_tokens below) is the decode's, as say_rates prints it.
    BRICKPROF_COUNTER("prompt_tokens", prompt.size());
  }
  g.prefill_s = seconds_since(t_prefill);
  std::vector<int32_t> next = engine.argmax();
  const int64_t kernels_before = backend.kernel_launches();
  const int64_t graphs_before = backend.graph_launches();
  const auto t_decode = Clock::now();
  for (int i = 0; i < o.tokens; ++i) {
    BRICKPROF_SCOPE("decode token");
    g.first_seq.push_back(next[0]);
    engine.decode(next);
    next = engine.argmax();
    BRICKPROF_TOKENS(next.size());  // one generated token per sequence
  }
  g.decode_s = seconds_since(t_decode);
  g.decode_kernels = backend.kernel_launches() - kernels_before;
  g.decode_graphs = backend.graph_launches() - graphs_before;
  return g;
}

void say_rates(const Options& o, const Config& cfg, const Generated& g) {
  const double prefill_tok = static_cast<double>(cfg.batch) * o.prompt;
  say("prefill: %d tokens x %d seq in %.1f ms (%.1f tokens/s)\n", o.prompt, cfg.batch,
      g.prefill_s * 1e3, prefill_tok / g.prefill_s);
  if (o.tokens > 0)
    say("decode: %d tokens x %d seq in %.1f ms (%.1f tokens/s, %.2f ms/step)\n", o.tokens,
        cfg.batch, g.decode_s * 1e3, static_cast<double>(cfg.batch) * o.tokens / g.decode_s,
        g.decode_s / o.tokens * 1e3);
}

// The weights streamed per step against the probes' roofs.
void say_bandwidth(const Options& o, const Generated& g, double weight_mb, const Probes& probes,
                   const std::string& backend, int threads) {
  const double gbps = weight_mb / 1e3 / (g.decode_s / o.tokens);
  say("bandwidth: %.2f GB/s of weights (%.1f MB/step); ", gbps, weight_mb);
  if (probes.read_gbps > 0) {
    say("read probe %.2f GB/s; %.0f%% of measured bandwidth\n", probes.read_gbps,
        100.0 * gbps / probes.read_gbps);
  } else {
    say("read probe skipped (--probe-seconds 0)\n");
  }
  if (probes.fma_gflops > 0)
    say("compute: FMA probe %.1f GFLOP/s (%s, %d threads)\n", probes.fma_gflops, backend.c_str(),
        threads);
  if (probes.cache.gbps[0] > 0) {
    const bricklayer::CacheSizes& c = probes.caches;
    say("caches (one thread, sizes from %s): L1 %.1f GB/s (%lld KiB), L2 %.1f GB/s (%lld KiB), "
        "L3 %.1f GB/s (%lld KiB)\n",
        c.source, probes.cache.gbps[0], static_cast<long long>(c.bytes[0] >> 10),
        probes.cache.gbps[1], static_cast<long long>(c.bytes[1] >> 10), probes.cache.gbps[2],
        static_cast<long long>(c.bytes[2] >> 10));
  }
}

// What one decode step issues: ops, and on a GPU the launches per token.
void say_launches(const Options& o, bricklayer::Mode mode, bool on_gpu, int64_t decode_ops,
                  const Generated& g) {
  say("ops per decode step: %lld\n", static_cast<long long>(decode_ops));
  if (!on_gpu || o.tokens <= 0) return;
  const long long steps = o.tokens;
  if (mode == bricklayer::Mode::Graph) {
    // Kernels are launched once, while the first step is captured.
    say("launches per token: %lld cuGraphLaunch (graph: %lld kernels captured once, "
        "%lld graph launches for %lld tokens)\n",
        static_cast<long long>(g.decode_graphs) / steps, static_cast<long long>(g.decode_kernels),
        static_cast<long long>(g.decode_graphs), steps);
  } else {
    say("launches per token: %lld cuLaunchKernel (eager)\n",
        static_cast<long long>(g.decode_kernels) / steps);
  }
}

// The bytes of each pool, as reported to brickprof (memory_pools.h), and on
// a GPU what the backend took from the driver: exact, so a profile can be
// checked against them.
void say_memory(const bricklayer::Graph& g, const bricklayer::Dispatcher& backend, bool on_gpu) {
  using bricklayer::Pool;
  const bricklayer::PoolBytes b = bricklayer::pool_bytes(g);
  say("memory (bytes): %s %lld, %s %lld, %s %lld", pool_name(Pool::Weights),
      static_cast<long long>(b[Pool::Weights]), pool_name(Pool::Activations),
      static_cast<long long>(b[Pool::Activations]), pool_name(Pool::KvCache),
      static_cast<long long>(b[Pool::KvCache]));
  if (on_gpu)
    say("; from the CUDA driver %lld in %lld cuMemAlloc", static_cast<long long>(backend.driver_bytes()),
        static_cast<long long>(backend.driver_allocations()));
  say("\n");
}

// Every rank says what --test-slow-us did to it (stderr: not rank 0's report).
void say_test_delays(int tp_rank) {
  const bricklayer::TestDelays delays = bricklayer::test_delays();
  if (delays.count <= 0) return;
  std::fprintf(stderr,
               "bricklayer: rank %d: --test-slow-us held up %lld layers, %.1f us each "
               "(measured)\n",
               tp_rank, static_cast<long long>(delays.count),
               static_cast<double>(delays.total_ns) / 1e3 / static_cast<double>(delays.count));
}

void say_tokens(const std::vector<int32_t>& first_seq) {
  say("generated (seq 0):");
  for (size_t i = 0; i < first_seq.size() && i < 16; ++i) say(" %d", first_seq[i]);
  say("%s\n", first_seq.size() > 16 ? " ..." : "");
}

int run(const Options& o) {
  using namespace bricklayer;
  Config cfg = o.cfg;
  std::unique_ptr<Communicator> comm;
  if (o.tp > 1)
    if (std::string e = open_tensor_parallel(o, cfg, comm); !e.empty()) return fail(e);
  g_reporting = !comm || comm->rank() == 0;
  if (std::string e = check_run_options(o, cfg); !e.empty()) return fail(e);
  const Mode mode = o.mode == "graph" ? Mode::Graph : Mode::Eager;

  ThreadPool pool(o.threads);
  std::string error;
  auto backend = make_backend(o.backend, pool, &error);
  if (!backend) return fail(error);
  const bool on_gpu = backend->name() == "cuda";
  if (comm && on_gpu)
    return fail(
        "--tp needs a CPU backend: the CUDA backend's all-reduce is designed for NCCL "
        "(kernels/README.md), which this build does not have");
  backend->set_communicator(comm.get());
  if (mode == Mode::Graph && !backend->can_capture())
    std::fprintf(stderr, "bricklayer: --mode graph needs the cuda backend; running eagerly\n");

  const auto t_build = Clock::now();
  const Model model = make_model(cfg, pool);
  Engine engine(model, *backend, o.prompt, mode, comm.get());
  if (comm && comm->rank() == o.slow_rank)
    engine.set_layer_delay(static_cast<int64_t>(o.slow_us * 1000.0));
  if (!o.repeat_brick.empty()) {
    std::string bad;
    const BrickRepeat repeat = parse_brick_repeat(o.repeat_brick, engine.decode_graph(), &bad);
    if (!bad.empty()) return fail(bad);
    engine.set_brick_repeat(repeat);
  }
  if (o.checksums || !o.fault.empty()) {
    if (mode == Mode::Graph && backend->can_capture())
      return fail(
          "--checksums and --fault need --mode eager: a captured graph's kernels run at "
          "replay, where no brick's output can be read");
    OutputChecks checks;
    checks.checksums = o.checksums;
    if (!o.fault.empty()) {
      std::string bad;
      checks.fault = parse_fault(o.fault, engine.decode_graph(), &bad);
      if (!bad.empty()) return fail(bad);
    }
    engine.set_output_checks(checks);
  }
  const double build_s = seconds_since(t_build);
  const double weight_mb = static_cast<double>(model.weight_bytes_per_token()) / 1e6;
  say_setup(o, cfg, backend->name(), weight_mb, build_s);

  const Generated generated = generate(engine, *backend, prompt_ids(cfg, o.prompt), o);
  say_rates(o, cfg, generated);
  if (o.tokens > 0)  // the probes measure the roofs the decode rate is set against
    say_bandwidth(o, generated, weight_mb, run_probes(o, *backend, pool), backend->name(),
                  pool.size());
  say_launches(o, mode, on_gpu, engine.decode_ops(), generated);
  say_memory(engine.decode_graph(), *backend, on_gpu);
  say_test_delays(cfg.tp_rank);
  say_tokens(generated.first_seq);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"bricklayer: a Llama-style decoder layer stack on CPU (scalar/AVX2/AVX-512) "
               "or CUDA, with synthetic weights, annotated for brickprof"};
  Config& c = o.cfg;
  // A later flag overrides an earlier one (handy in scripts).
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--layers", c.layers, "decoder layers")->capture_default_str();
  app.add_option("--hidden", c.hidden, "hidden size")->capture_default_str();
  app.add_option("--heads", c.heads, "attention heads")->capture_default_str();
  app.add_option("--kv-heads", c.kv_heads, "KV heads (grouped-query)")->capture_default_str();
  app.add_option("--ffn", c.ffn, "FFN size")->capture_default_str();
  app.add_option("--vocab", c.vocab, "vocabulary size")->capture_default_str();
  app.add_option("--tokens", o.tokens, "tokens to decode per sequence")->capture_default_str();
  app.add_option("--prompt", o.prompt, "prompt tokens per sequence (prefill)")->capture_default_str();
  app.add_option("--batch", c.batch, "sequences decoded together")->capture_default_str();
  app.add_option("--context", c.context, "context length (KV cache size)")->capture_default_str();
  app.add_option("--backend", o.backend, "auto|scalar|avx2|avx512|cuda")->capture_default_str();
  app.add_option("--mode", o.mode, "eager|graph (graph: CUDA graph replay per token)")
      ->capture_default_str()
      ->check(CLI::IsMember({"eager", "graph"}));
  app.add_option("--weights", o.weights, "f32|q4k")
      ->capture_default_str()
      ->check(CLI::IsMember({"f32", "q4k"}));
  app.add_option("--threads", o.threads, "CPU threads")->capture_default_str();
  app.add_option("--seed", c.seed, "weights and prompt seed")->capture_default_str();
  app.add_option("--probe-seconds", o.probe_seconds, "time for the read-bandwidth probe (0: skip)")
      ->capture_default_str();
  app.add_option("--tp", o.tp,
                 "tensor-parallel ranks: run under mpirun -np N, heads and FFN columns split "
                 "across ranks, all-reduce after the output and down projections (CPU backends)")
      ->capture_default_str();
  app.add_option("--test-slow-rank", o.slow_rank,
                 "for tests: the --tp rank that --test-slow-us holds up (-1: none)")
      ->capture_default_str();
  app.add_option("--test-slow-us", o.slow_us,
                 "for tests: microseconds of busy wait in the first brick of every layer of "
                 "--test-slow-rank")
      ->capture_default_str();
  app.add_option("--repeat-brick", o.repeat_brick,
                 "NAME=K: run every op of brick NAME K times per call, a real slow-down of "
                 "one brick (e.g. QkvProjection=2 for a diff gate's test)")
      ->type_name("NAME=K");
  app.add_flag("--checksums", o.checksums,
               "digest every op's output inside its brick (brickprof_checksum; eager mode), for "
               "brickprof diff --outputs between backends or builds");
  app.add_option("--fault", o.fault,
                 "for tests: perturb:LAYER:BRICK scales that brick's outputs in that layer by "
                 "1+1e-2, nan:LAYER:BRICK makes element 0 of each NaN (eager mode)")
      ->type_name("KIND:LAYER:BRICK");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "bricklayer: %s\n", e.what());
    return 2;
  }
  c.weights = o.weights == "f32" ? bricklayer::WeightType::F32 : bricklayer::WeightType::Q4K;
  try {
    return run(o);
  } catch (const std::invalid_argument& e) {  // a configuration a backend cannot run
    std::fprintf(stderr, "bricklayer: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bricklayer: %s\n", e.what());
    return 1;
  }
}
