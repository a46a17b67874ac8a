// Checksum mode end to end on the fake driver executing kernels on the CPU
// emulator: python_checksums.py launches bricklayer's bl_add and bl_silu
// through ctypes (from the main thread, then from two threads at once on
// streams of their own) under `brickprof run --checksums`, and writes what
// each buffer held after its kernels. Every digest in the trace must be
// the one of those bytes (an FNV-1a computed here, not by the product's
// digest_of: each buffer is under 4 KiB, one chunk of the digest's tree),
// on its kernel's node, taken by the path asked for: on the GPU (the
// agent's reduction kernels, run by the emulator from the second library
// in FAKE_CUDA_KERNELS) or by host copy; the program's output must be what
// it is without the agent; and the agent's own syncs, copies, launches and
// allocations must not show in the trace.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/run_program.h"
#include "tests/support/temp_dir.h"
#include "tests/support/trace_query.h"
#include "trace/json/trace_json.h"

namespace fs = std::filesystem;
using brickprof::test::Result;
using brickprof::test::run;
using brickprof::test::TempDirTest;
using brickprof::test::trace_query::of_kind;
using nlohmann::json;

namespace {

const fs::path kApp = fs::path(PYTHON_APP_DIR) / "python_checksums.py";
constexpr uint64_t kN = 1000;  // as python_checksums.py
constexpr size_t kThreadLaunches = 20;

struct Buffer {
  uint64_t address = 0;
  std::string bytes;
};

// "name address hex" lines, as the program wrote them.
std::map<std::string, Buffer> read_buffers(const fs::path& file) {
  std::map<std::string, Buffer> out;
  std::ifstream in(file);
  std::string name, address, hex;
  while (in >> name >> address >> hex) {
    Buffer b;
    b.address = std::stoull(address, nullptr, 16);
    for (size_t i = 0; i + 1 < hex.size(); i += 2)
      b.bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    out[name] = b;
  }
  return out;
}

// FNV-1a 64 of the bytes, as the trace's "fnv1a" hex string.
std::string fnv1a(const std::string& bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  char text[24];
  std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(h));
  return text;
}

uint64_t hex_value(const json& v) { return std::stoull(v.get<std::string>(), nullptr, 16); }

class PythonChecksumsTest : public TempDirTest {};

// `on_device`: `brickprof run --checksums` (the device path where it can
// run); else BRICKPROF_CHECKSUMS=host.
void expect_digested_as_written(const fs::path& dir, bool on_device) {
  std::map<std::string, std::string> env = {
      {"LD_LIBRARY_PATH", FAKE_CUDA_DIR},
      {"FAKE_CUDA_KERNELS", std::string(EMULATED_KERNELS) + ":" + EMULATED_DIGEST_KERNELS},
      {"BRICKPROF_AGENT", BRICKPROF_AGENT_PATH}};
  const fs::path plain_out = dir / "plain.txt", traced_out = dir / "traced.txt";
  const Result plain = run({PYTHON3, kApp.string(), KERNELS_PTX, plain_out.string()}, env);
  ASSERT_EQ(plain.exit_code(), 0) << plain.err;
  ASSERT_EQ(plain.out, "ok\n");
  std::vector<std::string> argv = {BRICKPROF_BIN, "run", "--formats", "json",
                                   "-o", (dir / "t").string()};
  if (on_device)
    argv.push_back("--checksums");
  else
    env["BRICKPROF_CHECKSUMS"] = "host";
  argv.insert(argv.end(), {"--", PYTHON3, kApp.string(), KERNELS_PTX, traced_out.string()});
  const Result traced = run(argv, env);
  ASSERT_EQ(traced.exit_code(), 0) << traced.err;
  EXPECT_EQ(traced.out, plain.out);
  const std::map<std::string, Buffer> buffers = read_buffers(traced_out);
  {
    // The host is never changed: every buffer holds what it held untraced
    // (the addresses may differ between the runs).
    const std::map<std::string, Buffer> untraced = read_buffers(plain_out);
    ASSERT_EQ(untraced.size(), buffers.size());
    for (const auto& [name, b] : buffers) EXPECT_EQ(untraced.at(name).bytes, b.bytes) << name;
  }
  ASSERT_EQ(buffers.size(), 6u);

  const fs::path file = dir / "t.json";
  ASSERT_NO_THROW(brickprof::read_trace_file(file.string()));
  std::ifstream in(file);
  const json t = json::parse(in);
  const std::string mode = t["diagnostics"]["checksum_mode"];
  const std::string source = on_device ? "device" : "host-copy";
  if (on_device)
    EXPECT_EQ(mode.rfind("device (", 0), 0u) << mode;
  else
    EXPECT_EQ(mode, "host-copy (BRICKPROF_CHECKSUMS=host)");
  EXPECT_TRUE(t["diagnostics"]["warnings"].empty()) << t["diagnostics"].dump();
  ASSERT_TRUE(t.contains("checksums"));

  // Each kernel's digests by argument name, in launch order.
  std::vector<std::pair<const json*, std::map<std::string, const json*>>> kernels;
  std::map<uint64_t, size_t> kernel_at;  // node id -> index in kernels
  for (const json* k : of_kind(t, "kernel")) {
    kernel_at[(*k)["id"].get<uint64_t>()] = kernels.size();
    kernels.push_back({k, {}});
  }
  for (const json& c : t["checksums"]) {
    EXPECT_EQ(c["source"], source) << c.dump();
    EXPECT_EQ(c["type"], "bytes") << "extern \"C\" kernels name no element type: " << c.dump();
    ASSERT_EQ(kernel_at.count(c["node"].get<uint64_t>()), 1u) << "not on a kernel: " << c.dump();
    kernels[kernel_at[c["node"].get<uint64_t>()]].second[c["name"].get<std::string>()] = &c;
  }
  ASSERT_EQ(kernels.size(), 2 + 2 * kThreadLaunches);
  EXPECT_EQ(t["checksums"].size(), 3 + 2 + 2 * kThreadLaunches * 3)
      << "bl_add: a, b, y; bl_silu: y, z (its n is not an address)";

  auto expect_digest = [&](const json* c, const std::string& buffer) {
    ASSERT_NE(c, nullptr) << buffer;
    const Buffer& b = buffers.at(buffer);
    EXPECT_EQ(hex_value((*c)["address"]), b.address) << buffer;
    EXPECT_EQ((*c)["count"], b.bytes.size()) << buffer << ": from the pointer to its allocation's end";
    EXPECT_EQ((*c)["fnv1a"], fnv1a(b.bytes)) << buffer;
  };
  auto arg = [](const auto& kernel, const char* name) -> const json* {
    auto it = kernel.second.find(name);
    return it == kernel.second.end() ? nullptr : it->second;
  };
  // The main thread's two launches come first (the threads start after).
  std::vector<size_t> main_thread, per_thread[2];
  for (size_t i = 0; i < kernels.size(); ++i) {
    const json* y = arg(kernels[i], "arg2");
    const std::string name = (*kernels[i].first)["name"];
    if (name == "bl_silu" || (y && hex_value((*y)["address"]) == buffers.at("y").address))
      main_thread.push_back(i);
    else
      for (int th = 0; th < 2; ++th)
        if (y && hex_value((*y)["address"]) ==
                     buffers.at("thread" + std::to_string(th) + ".y").address)
          per_thread[th].push_back(i);
  }
  ASSERT_EQ(main_thread.size(), 2u);
  const auto& add = kernels[main_thread[0]];
  const auto& silu = kernels[main_thread[1]];
  ASSERT_EQ((*add.first)["name"], "bl_add");
  ASSERT_EQ((*silu.first)["name"], "bl_silu");
  expect_digest(arg(add, "arg0"), "a");
  expect_digest(arg(add, "arg1"), "b");
  expect_digest(arg(add, "arg2"), "y");
  expect_digest(arg(silu, "arg0"), "y");
  expect_digest(arg(silu, "arg1"), "z");  // 16 floats into its allocation
  EXPECT_EQ(silu.second.size(), 2u);
  for (int th = 0; th < 2; ++th) {
    ASSERT_EQ(per_thread[th].size(), kThreadLaunches) << "thread " << th;
    for (size_t i : per_thread[th])
      expect_digest(arg(kernels[i], "arg2"), "thread" + std::to_string(th) + ".y");
  }

  // The agent's own syncs and copies are not the program's: the trace has
  // the program's six downloads and two stream syncs only.
  size_t downloads = 0;
  for (const json* c : of_kind(t, "transfer")) downloads += (*c)["direction"] == "D2H";
  EXPECT_EQ(downloads, 6u);
  EXPECT_EQ(of_kind(t, "sync").size(), 2u);
  EXPECT_EQ(of_kind(t, "kernel").size(), 2 + 2 * kThreadLaunches) << "the program's launches only";
}

TEST_F(PythonChecksumsTest, EachKernelsBuffersAreDigestedOnTheGpuAsTheProgramWroteThem) {
  if (std::string(EMULATED_KERNELS).empty()) GTEST_SKIP() << "no CUDA emulator on this machine";
  expect_digested_as_written(dir_, true);
}

TEST_F(PythonChecksumsTest, EachKernelsBuffersAreDigestedByHostCopyAsTheProgramWroteThem) {
  if (std::string(EMULATED_KERNELS).empty()) GTEST_SKIP() << "no CUDA emulator on this machine";
  expect_digested_as_written(dir_, false);
}

// Without --checksums nothing is digested and the trace says checksum mode
// was off (the key is absent).
TEST_F(PythonChecksumsTest, OffByDefault) {
  if (std::string(EMULATED_KERNELS).empty()) GTEST_SKIP() << "no CUDA emulator on this machine";
  const std::map<std::string, std::string> env = {{"LD_LIBRARY_PATH", FAKE_CUDA_DIR},
                                                  {"FAKE_CUDA_KERNELS", EMULATED_KERNELS},
                                                  {"BRICKPROF_AGENT", BRICKPROF_AGENT_PATH}};
  const Result traced =
      run({BRICKPROF_BIN, "run", "--formats", "json", "-o", (dir_ / "t").string(), "--", PYTHON3,
           kApp.string(), KERNELS_PTX, (dir_ / "out.txt").string()},
          env);
  ASSERT_EQ(traced.exit_code(), 0) << traced.err;
  std::ifstream in(dir_ / "t.json");
  const json t = json::parse(in);
  EXPECT_FALSE(t["diagnostics"].contains("checksum_mode"));
  EXPECT_FALSE(t.contains("checksums"));
}

}  // namespace
