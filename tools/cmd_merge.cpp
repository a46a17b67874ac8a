// `brickprof merge FILES... -o OUT`: joins the traces of several ranks (or
// runs) into one (analysis/analyses/trace_merge.h), written atomically, so `report`,
// the critical path and the exporters see every rank on one timeline.
#include <memory>

#include "analysis/analyses/trace_merge.h"
#include "tools/command.h"
#include "tools/output_file.h"
#include "tools/progress.h"
#include "tools/trace_input.h"
#include "trace/json/trace_json.h"
#include "trace/output/sink.h"
#include "trace/output/whole_trace.h"

namespace brickprof::cli {
namespace {

struct MergeOptions {
  std::vector<std::string> files;
  std::string out;
  bool quiet = false;
  bool partial = false;
};

int merge(const MergeOptions& o, const std::vector<std::string>& trailing) {
  if (!trailing.empty()) return fail("merge: unexpected arguments after --");
  std::vector<Trace> ranks;
  ranks.reserve(o.files.size());
  Progress progress(progress_wanted(o.quiet), std::cerr);
  try {
    for (size_t i = 0; i < o.files.size(); ++i) {
      const std::string which = std::to_string(i + 1) + " of " + std::to_string(o.files.size());
      ranks.push_back(read_trace_input(o.files[i], progress.reading(o.files[i], which)));
    }
  } catch (const TraceError& e) {
    progress.done();
    return fail(e.what());  // already "FILE: problem"
  }
  if (std::string problem = check_job_ranks(ranks, o.files, o.partial); !problem.empty())
    return fail(problem);
  progress.step("merging");
  const Trace merged = merge_traces(ranks, o.files);
  ranks.clear();  // the inputs can be large; only the merged trace is written
  // OUT.json.gz is written compressed, like the agent's json.gz.
  const bool gzip = o.out.size() > 3 && o.out.compare(o.out.size() - 3, 3, ".gz") == 0;
  progress.step("writing " + o.out);
  std::string error = write_file_atomically(
      o.out, [&](std::ostream& out) { write_format(gzip ? "json.gz" : "json", merged, out); });
  progress.done();
  if (!error.empty()) return fail(error);
  say_written(o.out);
  return kExitOk;
}

}  // namespace

Command add_merge_command(CLI::App& parent) {
  auto o = std::make_shared<MergeOptions>();
  CLI::App* sub =
      parent.add_subcommand("merge", "Merge per-rank traces into one trace");
  sub->add_option("FILES", o->files, "brickprof traces (.json or .json.gz), one per rank")
      ->required();
  sub->add_option("-o,--output", o->out,
                  "The merged trace (JSON; gzip-compressed if FILE ends in .gz), written "
                  "atomically")
      ->required()
      ->type_name("FILE");
  sub->add_option("--out", o->out)->group("");  // the earlier spelling, not listed
  add_quiet_flag(*sub, o->quiet);
  sub->add_flag("--partial", o->partial,
                "Merge some of a job's ranks (by default every rank 0..N-1 must be given)");
  sub->footer(
      "Node ids are renumbered; each rank's devices and threads get their own ids and names "
      "starting \"rank R: \" (R from process.rank, else the file's position; \"rank R #2\" for "
      "a repeated rank). The merged trace's process is the first input's with rank -1 and the "
      "span of all inputs; sources[] lists every input process (pid, program, host, rank, file, "
      "times, and its old and new thread and device ids), also through merges of merged traces. "
      "Traces recorded under a job launcher (mpirun, srun, torchrun) must be one job's ranks, "
      "each once, all of them (or --partial); an MPI program's ranks are moved onto rank 0's "
      "clock (the offset and drift the agent measured), so ranks on several hosts line up. "
      "Exit code 2 on usage errors or bad input.\n"
      "Examples:\n"
      "  brickprof merge brickprof-app-*.json -o job.json\n"
      "  brickprof merge rank0.json rank2.json --partial -o part.json.gz\n"
      "  brickprof report job.json --ranks --collectives");
  return {sub, [o](const std::vector<std::string>& trailing) { return merge(*o, trailing); }};
}

}  // namespace brickprof::cli
