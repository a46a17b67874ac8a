// Sinks and the format registry: atomic files, memory capture, errors.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "analysis/sink.h"
#include "test_traces.h"

namespace brickprof {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::path(::testing::TempDir()) / ("brickprof_sink_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(Registry, KnowsEveryFormatAndExtension) {
  const std::pair<const char*, const char*> expected[] = {
      {"json", ".json"}, {"tree", ".tree.txt"}, {"dot", ".dot"},
      {"chrome", ".trace.json"}, {"folded", ".folded"}};
  ASSERT_EQ(exporter_names().size(), std::size(expected));
  for (auto [name, ext] : expected) {
    auto e = make_exporter(name);
    ASSERT_TRUE(e) << name;
    EXPECT_EQ(e->name(), name);
    EXPECT_EQ(e->extension(), ext);
  }
  EXPECT_EQ(make_exporter("svg"), nullptr);
  EXPECT_EQ(parse_formats(" json, tree,,dot "), (std::vector<std::string>{"json", "tree", "dot"}));
}

TEST(FileSink, WritesEveryFormatNextToThePrefix) {
  fs::path dir = fresh_dir("all");
  Trace t = test::small_trace();
  FileSink files((dir / "run").string());
  MemorySink memory;
  std::vector<std::string> all(exporter_names().begin(), exporter_names().end());
  EXPECT_TRUE(write_outputs(t, all, files).empty());
  EXPECT_TRUE(write_outputs(t, all, memory).empty());
  for (const std::string& name : all) {
    auto e = make_exporter(name);
    fs::path path = dir / ("run" + std::string(e->extension()));
    ASSERT_TRUE(fs::exists(path)) << path;
    EXPECT_EQ(test::read_text(path.string()), memory.text(name)) << name;
  }
  // Nothing but the five outputs: no temporary files left behind.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 5);
}

TEST(FileSink, ReplacesAnOldFileWhole) {
  fs::path dir = fresh_dir("replace");
  Trace t = test::small_trace();
  std::string path = (dir / "run.tree.txt").string();
  std::ofstream(path) << std::string(100000, 'x');
  FileSink files((dir / "run").string());
  EXPECT_TRUE(write_outputs(t, {"tree"}, files).empty());
  EXPECT_EQ(test::read_text(path), test::read_text(test::data_path("tree_small.tree.txt")));
}

TEST(FileSink, MissingDirectoryIsAnErrorLineNotACrash) {
  Trace t = test::small_trace();
  FileSink files("/nonexistent-brickprof-dir/sub/run");
  auto errors = write_outputs(t, {"json", "tree"}, files);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].find("/nonexistent-brickprof-dir/sub/run.json"), std::string::npos);
  EXPECT_NE(errors[0].find("cannot create"), std::string::npos);
}

TEST(FileSink, UnwritableDirectoryIsAnErrorLine) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores directory permissions";
  fs::path dir = fresh_dir("readonly");
  fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
  FileSink files((dir / "run").string());
  auto errors = write_outputs(test::small_trace(), {"dot"}, files);
  fs::permissions(dir, fs::perms::owner_all);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("Permission denied"), std::string::npos) << errors[0];
}

TEST(FileSink, ThrowingExporterIsAnErrorLineAndLeavesNoFile) {
  struct Throwing : Exporter {
    std::string_view name() const override { return "throwing"; }
    std::string_view extension() const override { return ".x"; }
    void write(const Trace&, std::ostream&) const override { throw std::runtime_error("boom"); }
  } throwing;
  fs::path dir = fresh_dir("throwing");
  FileSink files((dir / "run").string());
  std::string error = files.emit(throwing, Trace{});
  EXPECT_NE(error.find("boom"), std::string::npos);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 0);
}

TEST(WriteOutputs, UnknownFormatIsReportedAndOthersStillWritten) {
  MemorySink sink;
  auto errors = write_outputs(test::small_trace(), {"tree", "pdf", "folded"}, sink);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "unknown output format 'pdf'");
  EXPECT_FALSE(sink.text("tree").empty());
  EXPECT_FALSE(sink.text("folded").empty());
  EXPECT_TRUE(sink.text("pdf").empty());
}

}  // namespace
}  // namespace brickprof
