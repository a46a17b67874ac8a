// brickprof_checksum of a device pointer: copied to the host and digested
// there (source host-copy), the same digest as the program's host copy of
// the data; a range past its allocation is left out and counted, never
// read.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/run_program.h"
#include "tests/support/temp_dir.h"
#include "trace/model/checksum.h"
#include "trace/model/hash_text.h"

namespace fs = std::filesystem;
using brickprof::test::Result;
using brickprof::test::run;
using brickprof::test::TempDirTest;
using nlohmann::json;

namespace {

class ChecksumDeviceTest : public TempDirTest {};

TEST_F(ChecksumDeviceTest, ADevicePointerIsCopiedThenDigested) {
  if (std::string(EMULATED_KERNELS).empty()) GTEST_SKIP() << "no CUDA emulator on this machine";
  const std::map<std::string, std::string> env = {
      {"LD_LIBRARY_PATH", FAKE_CUDA_DIR},    {"FAKE_CUDA_KERNELS", EMULATED_KERNELS},
      {"LD_PRELOAD", BRICKPROF_AGENT_PATH},  {"BRICKPROF_FORMATS", "json"},
      {"BRICKPROF_OUTPUT", (dir_ / "t").string()}};
  const Result r = run({CHECKSUM_DEVICE_APP, (dir_ / "data.hex").string()}, env);
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_EQ(r.out, "ok\n");
  std::string hex, bytes;
  std::ifstream(dir_ / "data.hex") >> hex;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  ASSERT_EQ(bytes.size(), 512u * 4);
  const brickprof::Digest whole = brickprof::digest_of(bytes.data(), 512, brickprof::ElementType::kF32);
  const brickprof::Digest tail =
      brickprof::digest_of(bytes.data() + 32, 504, brickprof::ElementType::kF32);

  std::ifstream in(dir_ / "t.json");
  const json t = json::parse(in);
  std::map<std::string, const json*> by_name;
  for (const json& c : t["checksums"]) by_name[c["name"]] = &c;
  ASSERT_EQ(by_name.size(), 3u) << t["checksums"].dump();
  ASSERT_TRUE(by_name.count("device") && by_name.count("device+8") && by_name.count("host"));
  EXPECT_EQ((*by_name["device"])["source"], "host-copy");
  EXPECT_EQ((*by_name["device+8"])["source"], "host-copy");
  EXPECT_EQ((*by_name["host"])["source"], "program");
  EXPECT_EQ((*by_name["device"])["fnv1a"], brickprof::hash_text(whole.fnv1a));
  EXPECT_EQ((*by_name["host"])["fnv1a"], brickprof::hash_text(whole.fnv1a));
  EXPECT_NEAR((*by_name["device"])["sum"].get<double>(), whole.sum, 1e-9 * whole.l1);
  EXPECT_EQ((*by_name["device+8"])["fnv1a"], brickprof::hash_text(tail.fnv1a));
  EXPECT_EQ((*by_name["device+8"])["count"], 504);
  bool counted = false;
  for (const json& w : t["diagnostics"]["warnings"])
    counted |= w.get<std::string>().rfind("1 output checksums left out", 0) == 0;
  EXPECT_TRUE(counted) << "the range past the end: " << t["diagnostics"]["warnings"].dump();
}

}  // namespace
