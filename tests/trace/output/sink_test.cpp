// Sinks and the format registry: atomic files, memory capture, errors.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tests/support/test_traces.h"
#include "trace/output/atomic_file.h"
#include "trace/output/formats.h"
#include "trace/output/sink.h"
#include "trace/output/whole_trace.h"

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
      {"json", ".json"},         {"tree", ".tree.txt"}, {"dot", ".dot"},
      {"chrome", ".trace.json"}, {"folded", ".folded"}, {"json.gz", ".json.gz"},
      {"perfetto", ".pftrace"}};
  ASSERT_EQ(formats().size(), std::size(expected));
  for (auto [name, ext] : expected) {
    const Format* f = find_format(name);
    ASSERT_TRUE(f) << name;
    EXPECT_EQ(f->name, name);
    EXPECT_EQ(f->extension, ext);
  }
  EXPECT_EQ(find_format("svg"), nullptr);
  EXPECT_EQ(parse_formats(" json, tree,,dot "), (std::vector<std::string>{"json", "tree", "dot"}));
}

TEST(FileSink, WritesEveryFormatNextToThePrefix) {
  fs::path dir = fresh_dir("all");
  Trace t = test::small_trace();
  FileSink files((dir / "run").string());
  MemorySink memory;
  std::vector<std::string> all;
  for (const Format& f : formats()) all.emplace_back(f.name);
  EXPECT_TRUE(write_outputs(t, all, files).failures.empty());
  EXPECT_TRUE(write_outputs(t, all, memory).failures.empty());
  for (const std::string& name : all) {
    fs::path path = dir / ("run" + std::string(find_format(name)->extension));
    ASSERT_TRUE(fs::exists(path)) << path;
    EXPECT_EQ(test::read_file(path.string()), memory.text(name)) << name;
  }
  // Nothing but the outputs: no temporary files left behind.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()),
            static_cast<std::ptrdiff_t>(all.size()));
}

TEST(FileSink, ReplacesAnOldFileWhole) {
  fs::path dir = fresh_dir("replace");
  Trace t = test::small_trace();
  std::string path = (dir / "run.tree.txt").string();
  std::ofstream(path) << std::string(100000, 'x');
  FileSink files((dir / "run").string());
  EXPECT_TRUE(write_outputs(t, {"tree"}, files).failures.empty());
  EXPECT_EQ(test::read_file(path), test::read_file(test::data_path("tree_small.tree.txt")));
}

TEST(FileSink, MissingDirectoryIsAnErrorLineNotACrash) {
  Trace t = test::small_trace();
  FileSink files("/nonexistent-brickprof-dir/sub/run");
  auto errors = write_outputs(t, {"json", "tree"}, files).failures;
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].find("/nonexistent-brickprof-dir/sub/run.json"), std::string::npos);
  EXPECT_NE(errors[0].find("cannot create"), std::string::npos);
}

TEST(FileSink, UnwritableDirectoryIsAnErrorLine) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores directory permissions";
  fs::path dir = fresh_dir("readonly");
  fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
  FileSink files((dir / "run").string());
  auto errors = write_outputs(test::small_trace(), {"dot"}, files).failures;
  fs::permissions(dir, fs::perms::owner_all);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("Permission denied"), std::string::npos) << errors[0];
}

TEST(FileSink, ThrowingWriterIsAnErrorLineAndLeavesNoFile) {
  fs::path dir = fresh_dir("throwing");
  FileSink files((dir / "run").string());
  std::string error =
      files.emit("throwing", ".x", [](std::ostream&) { throw std::runtime_error("boom"); });
  EXPECT_NE(error.find("boom"), std::string::npos);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 0);
}

// Symbolic links planted at every name a writer in this process could
// predict (its pid and a counter) neither stop the write nor are followed.
TEST(WriteFileAtomically, PlantedSymlinksNeitherBlockNorAreFollowed) {
  fs::path dir = fresh_dir("planted");
  fs::path victim = dir / "victim";
  std::ofstream(victim) << "precious";
  std::string path = (dir / "out.json").string();
  for (int n = 0; n < 1000; ++n)
    fs::create_symlink(victim,
                       path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(n));
  EXPECT_EQ(write_file_atomically(path, [](std::ostream& out) { out << "new"; }), "");
  EXPECT_EQ(test::read_file(path), "new");
  EXPECT_EQ(test::read_file(victim.string()), "precious");
}

// The temporary file whose name `fill` sees, the one being written.
std::string temp_file_in(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".tmp") != std::string::npos) return e.path().string();
  return "";
}

// The bytes go through the descriptor the exclusive create returned:
// whatever takes the temporary name meanwhile (another user's symbolic
// link, in a folder others can write to) is never written through.
TEST(WriteFileAtomically, WritesThroughTheDescriptorItCreated) {
  fs::path dir = fresh_dir("swapped");
  fs::path victim = dir / "victim";
  std::ofstream(victim) << "precious";
  std::string path = (dir / "out.json").string();
  std::string error = write_file_atomically(path, [&](std::ostream& out) {
    std::string temp = temp_file_in(dir);
    ASSERT_FALSE(temp.empty());
    fs::rename(temp, dir / "moved");
    fs::create_symlink(victim, temp);
    out << std::string(1 << 20, 'x');  // past any buffer: written by now
    out.flush();
  });
  EXPECT_EQ(error, "");
  EXPECT_EQ(test::read_file(victim.string()), "precious");
  EXPECT_EQ(fs::file_size(dir / "moved"), 1u << 20);
}

// Two writes of one file use temporary names that share no guessable part.
TEST(WriteFileAtomically, TemporaryNamesAreRandom) {
  fs::path dir = fresh_dir("names");
  std::string path = (dir / "out.json").string();
  std::vector<std::string> names;
  for (int i = 0; i < 2; ++i)
    EXPECT_EQ(
        write_file_atomically(path, [&](std::ostream&) { names.push_back(temp_file_in(dir)); }),
        "");
  ASSERT_EQ(names.size(), 2u);
  const std::string stem = path + ".tmp.";
  for (const std::string& name : names) {
    ASSERT_EQ(name.rfind(stem, 0), 0u) << name;
    std::string suffix = name.substr(stem.size());
    EXPECT_EQ(suffix.size(), 16u) << name;
    EXPECT_EQ(suffix.find_first_not_of("0123456789abcdef"), std::string::npos) << name;
  }
  EXPECT_NE(names[0], names[1]);
}

// Standard input, output and error closed: the file never takes one of
// those descriptors (another thread writing to a closed stdout would write
// into it).
TEST(WriteFileAtomically, NeverTakesDescriptorsZeroToTwo) {
  fs::path dir = fresh_dir("low_fds");
  std::string path = (dir / "out.json").string();
  int saved = ::fcntl(0, F_DUPFD_CLOEXEC, 10);
  ASSERT_GE(saved, 0);
  ::close(0);
  bool zero_open_while_writing = true;
  std::string error = write_file_atomically(path, [&](std::ostream& out) {
    zero_open_while_writing = ::fcntl(0, F_GETFD) != -1;
    out << "data";
  });
  ::dup2(saved, 0);
  ::close(saved);
  EXPECT_EQ(error, "");
  EXPECT_FALSE(zero_open_while_writing);
  EXPECT_EQ(test::read_file(path), "data");
}

// A write cut short (a signal handler calls remove_unfinished_files as the
// process dies) leaves no temporary file, and that write then fails.
TEST(WriteFileAtomically, UnfinishedFilesCanBeRemovedMidWrite) {
  fs::path dir = fresh_dir("unfinished");
  std::string path = (dir / "out.json").string();
  std::string error = write_file_atomically(path, [&](std::ostream& out) {
    out << "partial";
    ASSERT_FALSE(temp_file_in(dir).empty());
    remove_unfinished_files();
    EXPECT_EQ(temp_file_in(dir), "");
  });
  EXPECT_NE(error.find("cannot rename into place"), std::string::npos) << error;
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 0);
  remove_unfinished_files();  // nothing listed any more
}

TEST(WriteOutputs, UnknownFormatIsReportedAndOthersStillWritten) {
  MemorySink sink;
  auto errors = write_outputs(test::small_trace(), {"tree", "pdf", "folded"}, sink).failures;
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "unknown output format 'pdf'");
  EXPECT_FALSE(sink.text("tree").empty());
  EXPECT_FALSE(sink.text("folded").empty());
  EXPECT_TRUE(sink.text("pdf").empty());
}

}  // namespace
}  // namespace brickprof
