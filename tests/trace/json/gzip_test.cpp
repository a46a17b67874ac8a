// The json.gz format: written through the gzip layer, read back by every
// reader through the same entry point as plain JSON (told by magic bytes),
// streamed in blocks across many batches; truncated, corrupt or trailing
// data is one clear error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include <unistd.h>

#include "tests/support/test_traces.h"
#include "tests/support/trace_generator.h"
#include "trace/json/gzip_stream.h"
#include "trace/json/trace_json.h"
#include "trace/output/whole_trace.h"

namespace brickprof {
namespace {

namespace fs = std::filesystem;

std::string to_json(const Trace& t) {
  std::ostringstream out;
  write_format("json", t, out);
  return out.str();
}

std::string to_gzip(const Trace& t) {
  std::ostringstream out;
  write_format("json.gz", t, out);
  return out.str();
}

// The files of this run, removed when the tests end.
struct TempDir {
  fs::path path = fs::temp_directory_path() / ("brickprof-gzip-test-" + std::to_string(getpid()));
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

std::string write_file(const std::string& name, const std::string& bytes) {
  static TempDir dir;
  fs::create_directories(dir.path);
  fs::path path = dir.path / name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path.string();
}

std::string read_error(const std::string& path) {
  try {
    read_trace_file(path);
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

TEST(Gzip, SmallTraceRoundTrips) {
  Trace t = test::full_trace();
  std::string gz = to_gzip(t);
  ASSERT_GE(gz.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(gz[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(gz[1]), 0x8b);
  EXPECT_EQ(to_json(read_trace_file(write_file("full.json.gz", gz))), to_json(t));
}

// Many inflated blocks and many 1 MB batches, cut on the second thread
// while the first walks: the same trace as from the plain file.
TEST(Gzip, BigTraceStreamsThroughManyBlocks) {
  GeneratorConfig config;
  config.target_events = 60'000;
  Trace t = generate_trace(config);
  std::string json = to_json(t);
  ASSERT_GT(json.size(), 12u << 20);
  std::string gz = to_gzip(t);
  EXPECT_LT(gz.size() * 4, json.size());
  EXPECT_EQ(to_json(read_trace_file(write_file("big.json.gz", gz))), json);
}

TEST(Gzip, FoundByMagicBytesWhateverTheName) {
  Trace t = test::small_trace();
  EXPECT_EQ(to_json(read_trace_file(write_file("looks-plain.json", to_gzip(t)))), to_json(t));
}

TEST(Gzip, ConcatenatedMembersAreOneStream) {
  Trace t = test::small_trace();
  std::string json = to_json(t);
  auto member = [](std::string_view text) {
    std::ostringstream out;
    GzipStreamBuf gz(out.rdbuf());
    gz.sputn(text.data(), static_cast<std::streamsize>(text.size()));
    gz.finish();
    return out.str();
  };
  std::string both = member(std::string_view(json).substr(0, json.size() / 2)) +
                     member(std::string_view(json).substr(json.size() / 2));
  EXPECT_EQ(to_json(read_trace_file(write_file("two.json.gz", both))), json);
}

TEST(Gzip, TruncatedFileIsOneError) {
  std::string gz = to_gzip(test::full_trace());
  std::string path = write_file("cut.json.gz", gz.substr(0, gz.size() / 2));
  EXPECT_EQ(read_error(path), path + ": truncated gzip data (the file ends inside the stream)");
  std::string just_magic = write_file("magic.json.gz", gz.substr(0, 2));
  EXPECT_EQ(read_error(just_magic),
            just_magic + ": truncated gzip data (the file ends inside the stream)");
}

TEST(Gzip, CorruptDataIsOneError) {
  std::string gz = to_gzip(test::full_trace());
  gz[gz.size() - 6] ^= 0x55;  // the CRC of the inflated text
  std::string path = write_file("crc.json.gz", gz);
  EXPECT_EQ(read_error(path).rfind(path + ": corrupt gzip data", 0), 0u) << read_error(path);
}

TEST(Gzip, TrailingGarbageIsOneError) {
  std::string path = write_file("tail.json.gz", to_gzip(test::small_trace()) + "junk");
  EXPECT_EQ(read_error(path), path + ": data after the end of the gzip stream");
}

}  // namespace
}  // namespace brickprof
