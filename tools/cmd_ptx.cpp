// `brickprof ptx FILE HASH [--info]`: prints the PTX text a trace stored for
// one module (recorded with BRICKPROF_PTX=source), ready to save as a .ptx
// file; --info prints what the registry knows about it instead
// (analysis/analyses/ptx_lookup.h).
#include <unistd.h>

#include <iostream>
#include <memory>

#include "analysis/analyses/ptx_lookup.h"
#include "tools/command.h"
#include "tools/output_file.h"
#include "tools/trace_input.h"
#include "trace/json/trace_json.h"
#include "trace/model/hash_text.h"
#include "trace/model/printable.h"

namespace brickprof::cli {
namespace {

struct PtxOptions {
  std::string file;
  std::string hash;
  bool info = false;
  std::string out;  // the text to this file instead of stdout
};

int ptx(const PtxOptions& o, const std::vector<std::string>& trailing) {
  if (!trailing.empty()) return fail("ptx: unexpected arguments after --");
  const std::optional<uint64_t> hash = parse_ptx_hash(o.hash);
  if (!hash)
    return fail("ptx: '" + o.hash + "' is not a PTX hash (up to 16 hex digits, e.g. " +
                "0x00000000deadbeef, as in the trace's ptx[] and ptx_hash fields)");
  Trace trace;
  try {
    trace = read_trace_input(o.file);
  } catch (const TraceError& e) {
    return fail(e.what());  // already "FILE: problem"
  }
  const PtxModule* module = find_ptx(trace, *hash);
  if (module == nullptr)
    return fail(o.file + ": no PTX module with hash " + hash_text(*hash) + " (the trace lists " +
                std::to_string(trace.ptx.size()) + ")");
  if (!o.info && module->source.empty())
    return fail(o.file + ": PTX module " + hash_text(*hash) + " (" + module->kind +
                ") has no source stored; record with BRICKPROF_PTX=source, or use --info");
  return write_output(o.out, [&](std::ostream& out) {
    if (o.info) {
      print_ptx(trace, *hash, out);
      return;
    }
    // Byte for byte into a file; on a terminal, nothing it would act on.
    const bool terminal = o.out.empty() && ::isatty(STDOUT_FILENO);
    out << (terminal ? printable_text(module->source) : module->source);
    if (module->source.back() != '\n') out << '\n';
  });
}

}  // namespace

Command add_ptx_command(CLI::App& parent) {
  auto o = std::make_shared<PtxOptions>();
  CLI::App* sub =
      parent.add_subcommand("ptx", "Print the PTX source a trace stored for one module hash");
  sub->add_option("FILE", o->file, "A brickprof JSON trace (.json or .json.gz)")->required();
  sub->add_option("HASH", o->hash, "The module's hash, hex (0x prefix optional)")->required();
  sub->add_flag("--info", o->info,
                "Print the module's kind, size, kernels and launches (and its text if stored) "
                "instead");
  sub->add_option("-o,--output", o->out, "Write to FILE (atomically) instead of stdout")
      ->type_name("FILE");
  sub->footer(
      "The text is stored only when the trace was recorded with BRICKPROF_PTX=source "
      "(brickprof run --ptx source). Exit code 2 on a malformed hash, an unknown hash, a module "
      "without stored source, or bad input.\n"
      "Examples:\n"
      "  brickprof ptx trace.json 0x00000000deadbeef -o kernel.ptx\n"
      "  brickprof ptx trace.json deadbeef --info");
  return {sub, [o](const std::vector<std::string>& trailing) { return ptx(*o, trailing); }};
}

}  // namespace brickprof::cli
