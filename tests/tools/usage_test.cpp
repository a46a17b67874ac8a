// What a new user types and sees: help that reads at 80 columns (grouped,
// with defaults, typed values and examples), `brickprof` alone, mistakes
// answered in words, -o alike on every command, outputs that say where
// they went, and a file format never mixed into another output.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "spawn.h"

namespace brickprof::test {
namespace {

size_t lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Characters, not bytes: "µs" is two characters.
size_t width(const std::string& line) {
  return std::count_if(line.begin(), line.end(),
                       [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; });
}

const std::vector<std::vector<std::string>> kHelps = {
    {"--help"},         {"run", "--help"},   {"report", "--help"}, {"diff", "--help"},
    {"merge", "--help"}, {"ptx", "--help"}, {"view", "--help"}};

TEST(Help, EveryHelpFitsTheColumnsItIsGiven) {
  for (const char* columns : {"80", "60", "100"}) {
    for (const auto& args : kHelps) {
      CliResult r = run_brickprof(args, {{"COLUMNS", columns}});
      ASSERT_EQ(r.exit_code, 0) << args[0];
      std::istringstream in(r.out);
      for (std::string line; std::getline(in, line);)
        EXPECT_LE(width(line), static_cast<size_t>(std::stoi(columns)))
            << args[0] << " at " << columns << ": " << line;
    }
  }
  // Not a terminal and no COLUMNS: 80.
  for (const auto& args : kHelps) {
    CliResult r = run_brickprof(args, {{"COLUMNS", std::nullopt}});
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) EXPECT_LE(width(line), 80u) << line;
  }
}

TEST(Help, GroupsDefaultsTypedValuesAndExamples) {
  CliResult run = run_brickprof({"run", "--help"});
  for (const char* part : {"Output:\n", "What to record:\n", "Recording:\n", "GPU:\n",
                           "--buffer-mb N ", "[default: 256]", "-o, --output PREFIX",
                           "--sync MODE", "GPU timing mode (deferred, per-layer, immediate,",
                           "Usage: brickprof run [OPTIONS] [--] CMD [ARGS...]"})
    EXPECT_TRUE(has(run.out, part)) << part << "\n" << run.out;
  CliResult report = run_brickprof({"report", "--help"});
  for (const char* part : {"Views (with none: --summary --tree):\n",
                           "Multi-rank views (of a merged trace: brickprof merge):\n",
                           "Exports (file formats, one at a time):\n", "-o, --output FILE",
                           "--python-frames N"})
    EXPECT_TRUE(has(report.out, part)) << part << "\n" << report.out;
  CliResult diff = run_brickprof({"diff", "--help"});
  EXPECT_TRUE(has(diff.out, "[default: 5%]")) << diff.out;
  EXPECT_TRUE(has(diff.out, "[default: 5%]")) << diff.out;
  // Each command: two or three examples, after a heading of their own.
  for (const auto& args : kHelps) {
    CliResult r = run_brickprof(args);
    const size_t at = r.out.find("\nExamples:\n");
    ASSERT_NE(at, std::string::npos) << args[0] << "\n" << r.out;
    size_t examples = 0;
    std::istringstream in(r.out.substr(at + 11));
    for (std::string line; std::getline(in, line) && line.rfind("  brickprof ", 0) == 0;)
      ++examples;
    EXPECT_GE(examples, 2u) << args[0];
    EXPECT_LE(examples, 3u) << args[0];
  }
}

// -o means the output file on every command that writes one.
TEST(Help, DashOIsTheSameOnEveryCommand) {
  for (const char* command : {"run", "report", "diff", "merge", "ptx"}) {
    CliResult r = run_brickprof({command, "--help"});
    EXPECT_TRUE(has(r.out, "  -o, --output ")) << command << "\n" << r.out;
  }
}

TEST(Usage, BrickprofAloneListsTheCommands) {
  CliResult r = run_brickprof({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(has(r.out, "Usage: brickprof COMMAND [OPTIONS]")) << r.out;
  for (const char* command : {"run", "report", "diff", "merge", "ptx", "view", "export", "sql"})
    EXPECT_TRUE(has(r.out, std::string("\n  ") + command + " ")) << command << "\n" << r.out;
}

TEST(Usage, MistakesAreAnsweredInWords) {
  const std::string t = data_path("tree_small.json");
  struct Case {
    std::vector<std::string> args;
    std::string line;
  };
  for (const Case& c : std::vector<Case>{
           {{"report", t, "--sumary"},
            "brickprof: report: unknown option --sumary (did you mean --summary?) (brickprof "
            "report --help)\n"},
           {{"report", t, "--critical"},
            "brickprof: report: unknown option --critical (did you mean --critical-path?) "
            "(brickprof report --help)\n"},
           {{"diff", t, t, "--treshold", "5"},
            "brickprof: diff: unknown option --treshold (did you mean --threshold?) (brickprof "
            "diff --help)\n"},
           {{"reprot", t},
            "brickprof: unknown command 'reprot' (did you mean report?); the commands are run, "
            "report, diff, merge, ptx, view, export, sql (brickprof --help)\n"},
           {{"report"}, "brickprof: report: FILE is required (brickprof report --help)\n"}}) {
    CliResult r = run_brickprof(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args[0];
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, c.line);
  }
}

// The Chrome trace (or the tree, DOT, ...) where the trace is expected.
TEST(Usage, AnotherOutputGivenForTheTraceNamesTheTrace) {
  const std::string dir = fresh_dir("usage_chrome");
  ASSERT_EQ(run_brickprof({"report", data_path("tree_small.json"), "--chrome", "-o",
                           dir + "/t.trace.json"})
                .exit_code,
            0);
  std::filesystem::copy_file(data_path("tree_small.json"), dir + "/t.json");
  for (const char* command : {"report", "view", "ptx"}) {
    std::vector<std::string> args = {command, dir + "/t.trace.json"};
    if (std::string(command) == "ptx") args.push_back("0x1");
    CliResult r = run_brickprof(args);
    EXPECT_EQ(r.exit_code, 2) << command;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    if (std::string(command) != "view") {  // view first wants a terminal
      EXPECT_TRUE(has(r.err, "; this is the chrome output brickprof writes beside a trace, not "
                             "the trace: the trace is " + dir + "/t.json"))
          << r.err;
    }
  }
  // Named otherwise, it is still recognised as a Chrome trace.
  std::filesystem::copy_file(dir + "/t.trace.json", dir + "/events.json");
  CliResult r = run_brickprof({"diff", dir + "/t.json", dir + "/events.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "this is a Chrome trace (traceEvents), not a brickprof trace")) << r.err;
}

// A file format is a file of its own: two never share one output.
TEST(ReportOutput, TwoFormatsNeverShareOneFile) {
  const std::string dir = fresh_dir("report_two_formats");
  CliResult r =
      run_brickprof({"report", data_path("tree_small.json"), "--chrome", "--dot", "-o", dir + "/f"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "brickprof: report: --dot and --chrome cannot share one output: --chrome is a file "
            "format of its own. Write one at a time (-o FILE each), or have run write several "
            "(run --formats json,chrome,dot)\n");
  EXPECT_FALSE(std::filesystem::exists(dir + "/f"));
  CliResult mixed = run_brickprof({"report", data_path("tree_small.json"), "--summary", "--folded"});
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_EQ(mixed.out, "");
}

TEST(ReportOutput, WritingAFileSaysWhere) {
  const std::string dir = fresh_dir("report_where");
  CliResult r = run_brickprof({"report", data_path("tree_small.json"), "-o", dir + "/r.txt"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "brickprof: wrote " + dir + "/r.txt\n");
  // The earlier spelling still works.
  CliResult old = run_brickprof({"report", data_path("tree_small.json"), "--out", dir + "/o.txt"});
  EXPECT_EQ(old.exit_code, 0);
  EXPECT_EQ(read_file(dir + "/o.txt"), read_file(dir + "/r.txt"));
  CliResult ptx = run_brickprof(
      {"ptx", data_path("ptx_source.json"), "--info", "0xa1", "-o", dir + "/p.txt"});
  EXPECT_EQ(ptx.exit_code, 0) << ptx.err;
  EXPECT_EQ(ptx.err, "brickprof: wrote " + dir + "/p.txt\n");
  EXPECT_TRUE(has(read_file(dir + "/p.txt"), "0x00000000000000a1")) << read_file(dir + "/p.txt");
}

}  // namespace
}  // namespace brickprof::test
