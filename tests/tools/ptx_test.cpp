// `brickprof ptx FILE HASH`: prints the PTX text stored for a module
// (ptx_source.json holds one module with text and one cubin without);
// a malformed or unknown hash, or a module without text, is exit 2.
#include <gtest/gtest.h>

#include <algorithm>

#include "spawn.h"

namespace brickprof::test {
namespace {

size_t lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

const std::string kTrace = data_path("ptx_source.json");

TEST(Ptx, PrintsTheStoredSource) {
  // Any spelling of the hash the trace itself uses, with or without 0x.
  for (const char* hash : {"0x00000000000000a1", "0xA1", "a1"}) {
    CliResult r = run_brickprof({"ptx", kTrace, hash});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(r.out, read_file(data_path("ptx_source.ptx"))) << hash;
  }
}

TEST(Ptx, InfoDescribesTheModule) {
  CliResult r = run_brickprof({"ptx", kTrace, "0xb2", "--info"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("module 0x00000000000000b2  cubin  4096 bytes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  add_two\n"), std::string::npos) << r.out;
  CliResult with_text = run_brickprof({"ptx", kTrace, "0xa1", "--info"});
  EXPECT_NE(with_text.out.find("add_one  x1  250 ns"), std::string::npos) << with_text.out;
  EXPECT_NE(with_text.out.find(".visible .entry add_one("), std::string::npos);
}

struct PtxError {
  const char* name;
  std::vector<std::string> args;
  std::string message;  // the whole stderr line after "brickprof: "
};

class PtxErrors : public ::testing::TestWithParam<PtxError> {};

TEST_P(PtxErrors, ExitTwoWithOneClearLine) {
  CliResult r = run_brickprof(GetParam().args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_EQ(r.err, "brickprof: " + GetParam().message + "\n");
}

const std::string kNotAHash =
    " is not a PTX hash (up to 16 hex digits, e.g. 0x00000000deadbeef, as in the trace's ptx[] "
    "and ptx_hash fields)";

INSTANTIATE_TEST_SUITE_P(
    Cases, PtxErrors,
    ::testing::Values(
        PtxError{"bad_syntax", {"ptx", kTrace, "xyz"}, "ptx: 'xyz'" + kNotAHash},
        PtxError{"too_long",
                 {"ptx", kTrace, "0x10000000000000000"},
                 "ptx: '0x10000000000000000'" + kNotAHash},
        PtxError{"unknown_hash",
                 {"ptx", kTrace, "0xc3"},
                 kTrace + ": no PTX module with hash 0x00000000000000c3 (the trace lists 2)"},
        PtxError{"no_source",
                 {"ptx", kTrace, "0xb2"},
                 kTrace + ": PTX module 0x00000000000000b2 (cubin) has no source stored; record "
                          "with BRICKPROF_PTX=source, or use --info"},
        PtxError{"missing_file",
                 {"ptx", data_path("does_not_exist.json"), "0xa1"},
                 data_path("does_not_exist.json") + ": cannot open: No such file or directory"},
        PtxError{"no_hash", {"ptx", kTrace}, "ptx: HASH is required (brickprof ptx --help)"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace brickprof::test
