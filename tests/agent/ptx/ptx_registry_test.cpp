// PTX registry on real nvcc output built during the meson build: PTX text, a
// cubin, and fatbins in every compression mode (none, LZ4 "speed", zstd).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "agent/ptx/fatbin.h"
#include "agent/ptx/hash.h"
#include "agent/ptx/module_image.h"
#include "agent/ptx/registry.h"
#include "analysis/analyses/ptx_lookup.h"
#include "tests/support/read_file.h"

namespace brickprof::agent {
namespace {

std::string read_env_file(const char* var) {
  const char* path = std::getenv(var);
  if (path == nullptr) return {};
  return test::read_file(path);
}

#define LOAD_OR_SKIP(var, name)          \
  std::string name = read_env_file(var); \
  if (name.empty()) GTEST_SKIP() << var << " not set: built without nvcc";

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

const std::vector<std::string> kKernels = {"_Z5saxpyfPKfPfi", "_ZN4demo5scaleIfEEvPT_S1_i",
                                           "add_one"};

TEST(Hash, Fnv1a64KnownValues) {
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ull);
}

TEST(PtxText, EntryNames) {
  std::string ptx =
      ".version 9.0\n.target sm_90\n.visible .entry k1(\n.param .u64 p)\n{ ret; }\n"
      ".func helper()\n{ ret; }\n.entry  $k.2 ()\n{ ret; }\n// .entryx not_a_kernel\n";
  EXPECT_EQ(ptx_entry_names(ptx), (std::vector<std::string>{"k1", "$k.2"}));
}

// Each entry's parameters as nvcc writes them: pointers as .u64, scalars,
// a struct passed by value as an aligned .b8 array, and .ptr attributes.
TEST(PtxText, EntryParams) {
  std::string ptx =
      ".visible .entry _Z5saxpyfPKfPfi(\n\t.param .f32 _Z5saxpyfPKfPfi_param_0,\n"
      "\t.param .u64 .ptr .global .align 4 _Z5saxpyfPKfPfi_param_1,\n"
      "\t.param .u64 _Z5saxpyfPKfPfi_param_2,\n\t.param .u32 _Z5saxpyfPKfPfi_param_3\n)\n"
      "{ ret; }\n.entry none()\n{ ret; }\n"
      ".entry s(.param .align 8 .b8 s_param_0[24], .param .f64 s_param_1)\n{ ret; }\n";
  const auto params = ptx_entry_params(ptx);
  ASSERT_EQ(params.size(), ptx_entry_names(ptx).size());
  ASSERT_EQ(params[0].size(), 4u);
  EXPECT_EQ(params[0][0].bytes, 4u);
  EXPECT_FALSE(params[0][0].address);
  EXPECT_TRUE(params[0][1].address);
  EXPECT_TRUE(params[0][2].address);
  EXPECT_EQ(params[0][2].bytes, 8u);
  EXPECT_FALSE(params[0][3].address);
  EXPECT_TRUE(params[1].empty());
  ASSERT_EQ(params[2].size(), 2u);
  EXPECT_EQ(params[2][0].bytes, 24u);
  EXPECT_FALSE(params[2][0].address);
  EXPECT_EQ(params[2][1].bytes, 8u);
  EXPECT_FALSE(params[2][1].address) << "a double is not an address";
}

TEST(PtxFile, EntriesAndHash) {
  LOAD_OR_SKIP("GPU_TEST_PTX", ptx);
  EXPECT_EQ(classify_image(ptx.c_str(), 0), ImageKind::kPtx);
  std::vector<ModuleInfo> mods;
  std::string err;
  ASSERT_TRUE(extract_modules(ptx.c_str(), 0, true, &mods, &err)) << err;
  ASSERT_EQ(mods.size(), 1u);
  EXPECT_TRUE(mods[0].is_ptx);
  EXPECT_EQ(sorted(mods[0].kernels), kKernels);  // `twice` is a .func, not a kernel
  EXPECT_EQ(mods[0].hash, fnv1a64(ptx));
  EXPECT_EQ(mods[0].bytes, ptx.size());
  EXPECT_EQ(mods[0].source, ptx);
}

TEST(CubinFile, KernelSymbols) {
  LOAD_OR_SKIP("GPU_TEST_CUBIN", cubin);
  EXPECT_EQ(classify_image(cubin.data(), cubin.size()), ImageKind::kCubin);
  EXPECT_EQ(elf_image_size(cubin.data()), cubin.size());
  std::vector<std::string> names;
  ASSERT_TRUE(cubin_kernel_names(cubin.data(), cubin.size(), &names));
  EXPECT_EQ(sorted(names), kKernels);
  // Unsized (as cuModuleLoadData gets it): the ELF header gives the size.
  std::vector<ModuleInfo> mods;
  std::string err;
  ASSERT_TRUE(extract_modules(cubin.data(), 0, false, &mods, &err)) << err;
  ASSERT_EQ(mods.size(), 1u);
  EXPECT_EQ(mods[0].hash, fnv1a64(cubin.data(), cubin.size()));
}

TEST(CubinFile, TruncatedIsRejectedNotCrashed) {
  LOAD_OR_SKIP("GPU_TEST_CUBIN", cubin);
  for (size_t n : {size_t{0}, size_t{10}, size_t{64}, cubin.size() / 2}) {
    std::vector<std::string> names;
    cubin_kernel_names(cubin.data(), n, &names);  // must not read out of bounds
  }
}

struct Fatbins {
  std::string plain, zstd_default, zstd_all, lz4, none;
};

// Every compression mode must decode to the same modules: same hashes, same
// kernels, and the cubin inside equals the one `nvcc -cubin` wrote.
void check_fatbin(const std::string& fatbin, const std::string& cubin, const char* what) {
  SCOPED_TRACE(what);
  std::vector<FatbinEntry> entries;
  std::string err;
  ASSERT_EQ(fatbin_size(fatbin.data()), fatbin.size());
  ASSERT_TRUE(parse_fatbin(fatbin.data(), fatbin.size(), &entries, &err)) << err;
  ASSERT_EQ(entries.size(), 2u);
  std::vector<ModuleInfo> mods;
  ASSERT_TRUE(extract_modules(fatbin.data(), fatbin.size(), true, &mods, &err)) << err;
  ASSERT_EQ(mods.size(), 2u);
  for (const ModuleInfo& m : mods) {
    EXPECT_EQ(m.sm_arch, 90u);
    EXPECT_EQ(sorted(m.kernels), kKernels);
    if (!m.is_ptx) {
      EXPECT_EQ(m.hash, fnv1a64(cubin.data(), cubin.size()));
    } else {
      EXPECT_NE(m.source.find(".entry add_one"), std::string::npos);
      EXPECT_EQ(m.hash, fnv1a64(m.source));
    }
  }
}

TEST(Fatbin, AllCompressionModesDecodeToTheSameModules) {
  LOAD_OR_SKIP("GPU_TEST_CUBIN", cubin);
  LOAD_OR_SKIP("GPU_TEST_FATBIN", plain);
  LOAD_OR_SKIP("GPU_TEST_FATBIN_ZSTD", zstd_all);
  LOAD_OR_SKIP("GPU_TEST_FATBIN_LZ4", lz4);
  LOAD_OR_SKIP("GPU_TEST_FATBIN_NONE", none);
  check_fatbin(plain, cubin, "default (PTX zstd, cubin stored)");
  check_fatbin(zstd_all, cubin, "-compress-all (zstd)");
  check_fatbin(lz4, cubin, "-compress-all --compress-mode=speed (LZ4)");
  check_fatbin(none, cubin, "--no-compress");

  // The flags really are the ones each mode is meant to exercise.
  auto flags_of = [](const std::string& f) {
    std::vector<FatbinEntry> e;
    std::string err;
    parse_fatbin(f.data(), f.size(), &e, &err);
    uint64_t all = 0;
    for (auto& x : e) all |= x.flags;
    return all;
  };
  EXPECT_TRUE(flags_of(zstd_all) & kFatbinFlagZstd);
  EXPECT_TRUE(flags_of(lz4) & kFatbinFlagLz4);
  EXPECT_FALSE(flags_of(none) & (kFatbinFlagLz4 | kFatbinFlagZstd));

  PtxRegistry a, b;
  std::string err;
  ASSERT_TRUE(a.add_image(lz4.data(), lz4.size(), &err)) << err;
  ASSERT_TRUE(b.add_image(none.data(), none.size(), &err)) << err;
  for (const std::string& k : kKernels) {
    EXPECT_NE(a.hash_for_kernel(k), 0u);
    EXPECT_EQ(a.hash_for_kernel(k), b.hash_for_kernel(k)) << k;
  }
}

TEST(Fatbin, WrapperIsFollowed) {
  LOAD_OR_SKIP("GPU_TEST_FATBIN", fatbin);
  // What nvcc puts in .nvFatBinSegment and the runtime hands the driver.
  struct {
    uint32_t magic;
    uint32_t version;
    const void* data;
    const void* extra;
  } wrapper{kFatbinWrapperMagic, 1, fatbin.data(), nullptr};
  EXPECT_EQ(classify_image(&wrapper, 0), ImageKind::kFatbin);
  std::vector<ModuleInfo> mods;
  std::string err;
  ASSERT_TRUE(extract_modules(&wrapper, 0, false, &mods, &err)) << err;
  EXPECT_EQ(mods.size(), 2u);
}

TEST(Fatbin, CorruptHeadersFailCleanly) {
  LOAD_OR_SKIP("GPU_TEST_FATBIN_LZ4", fatbin);
  std::vector<FatbinEntry> entries;
  std::string err;
  EXPECT_FALSE(parse_fatbin(fatbin.data(), fatbin.size() - 8, &entries, &err));
  std::string bad = fatbin;
  bad[16 + 8] = '\x7f';  // first entry's payload size: now overruns
  bad[16 + 12] = '\x7f';
  entries.clear();
  EXPECT_FALSE(parse_fatbin(bad.data(), bad.size(), &entries, &err));
  // A corrupted compressed stream must be refused, not overrun.
  std::string lz = fatbin;
  entries.clear();
  ASSERT_TRUE(parse_fatbin(lz.data(), lz.size(), &entries, &err));
  for (auto& e : entries) {
    uint8_t* p = const_cast<uint8_t*>(e.payload);
    for (size_t i = 0; i < e.payload_size; i += 7) p[i] = 0xff;
    std::string out;
    entry_contents(e, &out, &err);
    EXPECT_LE(out.size(), e.uncompressed_size);
  }
}

TEST(Lz4, HandMadeBlockWithOverlappingMatch) {
  // "a" then match offset 1 length 7 -> "aaaaaaaa", then literals "bc".
  const uint8_t block[] = {0x13, 'a', 0x01, 0x00, 0x20, 'b', 'c'};
  uint8_t out[16];
  long n = lz4_block_decompress(block, sizeof block, out, sizeof out);
  ASSERT_EQ(n, 10);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(out), 10), "aaaaaaaabc");
  EXPECT_EQ(lz4_block_decompress(block, sizeof block, out, 5), -1);  // overflow refused
  const uint8_t bad_offset[] = {0x10, 'a', 0x05, 0x00};
  EXPECT_EQ(lz4_block_decompress(bad_offset, sizeof bad_offset, out, sizeof out), -1);
}

TEST(Demangle, NamesAndPassThrough) {
  EXPECT_EQ(demangle("_ZN4demo5scaleIfEEvPT_S1_i"), "void demo::scale<float>(float*, float, int)");
  EXPECT_EQ(demangle("add_one"), "add_one");
  EXPECT_EQ(demangle("_Znot_valid"), "_Znot_valid");
}

TEST(PtxLookup, PrintsModuleAndLaunches) {
  Trace t;
  PtxModule m;
  m.hash = 0xabcdef0123456789ull;
  m.kind = "ptx";
  m.bytes = 42;
  m.kernels = {"add_one"};
  m.source = ".entry add_one()";
  t.ptx.push_back(m);
  Node k;
  k.kind = NodeKind::kKernel;
  k.name = t.strings.intern("add_one");
  k.start_ns = 100;
  k.end_ns = 350;
  GpuDetail d;
  d.ptx_hash = m.hash;
  t.add_gpu_node(k, d);
  auto h = parse_ptx_hash("0xABCDEF0123456789");
  ASSERT_TRUE(h.has_value());
  std::ostringstream out;
  ASSERT_TRUE(print_ptx(t, *h, out));
  EXPECT_NE(out.str().find("0xabcdef0123456789  ptx  42 bytes"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("add_one  x1  250 ns"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find(".entry add_one()"), std::string::npos);
  std::ostringstream none;
  EXPECT_FALSE(print_ptx(t, 1, none));
  EXPECT_TRUE(none.str().empty());
  EXPECT_FALSE(parse_ptx_hash("xyz").has_value());
  EXPECT_FALSE(parse_ptx_hash("").has_value());
}

}  // namespace
}  // namespace brickprof::agent
