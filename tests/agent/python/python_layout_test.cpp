// The frame reader's knowledge of each CPython, checked against that
// CPython itself, for every one the machine has (interpreters.h): the
// layout (interpreter_layout.h) against offsetof/sizeof from its own
// headers (layout_probe.c, built here) and, for 3.13, the _Py_DebugOffsets
// its runtime exports; the type sizes the agent checks at start against
// its types' __basicsize__; and the line-table decoders (line_table.h)
// against the line the interpreter's public API gives every code unit of
// thousands of its standard library's code objects.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "agent/python/interpreter_layout.h"
#include "agent/python/line_table.h"
#include "tests/agent/python/interpreters.h"
#include "tests/support/run_program.h"

namespace fs = std::filesystem;
using brickprof::test::Interpreter;
using brickprof::test::Result;
using brickprof::test::run;

namespace brickprof::agent::python {
namespace {

const fs::path kHere = PYTHON_APP_DIR;

class PythonLayoutTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string looked;
    std::optional<Interpreter> found = brickprof::test::find_python(GetParam(), &looked);
    if (!found) GTEST_SKIP() << "CPython " << GetParam() << " absent (looked in " << looked << ")";
    py_ = *found;
    dir_ = fs::temp_directory_path() /
           ("bp-layout-" + std::to_string(getpid()) + "-" + std::to_string(py_.minor));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  // What the interpreter prints for `code`.
  std::string ask(const std::string& code) {
    Result r = run({py_.path, "-c", code}, {});
    EXPECT_EQ(r.exit_code(), 0) << r.err;
    return r.out;
  }
  // The agent's layout for this version, as it finds it in a process.
  Layout agent_layout() {
    Layout l;
    if (py_.minor <= 12) {
      EXPECT_TRUE(table_layout(py_.minor, &l)) << "no table for 3." << py_.minor;
      return l;
    }
    // The runtime's _Py_DebugOffsets, as the agent reads them in place.
    const std::string hex =
        ask("import ctypes\n"
            "r = ctypes.c_char.in_dll(ctypes.pythonapi, '_PyRuntime')\n"
            "print(ctypes.string_at(ctypes.addressof(r), 2048).hex())");
    std::vector<uint8_t> bytes;
    for (size_t i = 0; i + 1 < hex.size() && hex[i] != '\n'; i += 2)
      bytes.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    std::string why;
    EXPECT_TRUE(layout_from_debug_offsets(bytes.data(), py_.minor, &l, &why)) << why;
    return l;
  }

  Interpreter py_;
  fs::path dir_;
};

TEST_P(PythonLayoutTest, LayoutIsTheInterpretersOwn) {
  if (py_.minor < 9) GTEST_SKIP() << "3." << py_.minor << ": the agent reads 3.9 and later";
  if (!fs::exists(fs::path(py_.include_dir) / "Python.h"))
    GTEST_SKIP() << py_.path << ": no Python.h in " << py_.include_dir;
  const fs::path probe = dir_ / "probe";
  Result built = run({C_COMPILER, "-I" + py_.include_dir, (kHere / "layout_probe.c").string(), "-o",
                      probe.string()},
                     {});
  ASSERT_EQ(built.exit_code(), 0) << built.err;
  Result printed = run({probe.string()}, {});
  ASSERT_EQ(printed.exit_code(), 0) << printed.err;
  std::map<std::string, long> h;
  std::stringstream in(printed.out);
  std::string name;
  long value = 0;
  while (in >> name >> value) h[name] = value;

  const Layout l = agent_layout();
  EXPECT_EQ(l.minor, py_.minor);
  EXPECT_EQ(l.ob_type, h.at("ob_type"));
  EXPECT_EQ(l.str_length, h.at("str_length"));
  EXPECT_EQ(l.str_state, h.at("str_state"));
  EXPECT_EQ(l.str_ascii_data, h.at("str_ascii_data"));
  EXPECT_EQ(l.str_compact_data, h.at("str_compact_data"));
  EXPECT_EQ(l.bytes_size, h.at("bytes_size"));
  EXPECT_EQ(l.bytes_data, h.at("bytes_data"));
  EXPECT_EQ(l.code_filename, h.at("code_filename"));
  EXPECT_EQ(l.code_name, h.at("code_name"));
  EXPECT_EQ(l.code_linetable, h.at("code_linetable"));
  EXPECT_EQ(l.code_first_line, h.at("code_first_line"));
  EXPECT_EQ(l.code_basicsize, h.at("code_basicsize"));
  EXPECT_EQ(l.unicode_basicsize, h.at("unicode_basicsize"));
  EXPECT_EQ(l.tstate_thread_id, h.at("tstate_thread_id"));
  EXPECT_EQ(l.tstate_frame, h.at("tstate_frame"));
  EXPECT_EQ(l.cframe_current_frame,
            h.count("cframe_current_frame") ? h["cframe_current_frame"] : -1);
  EXPECT_EQ(l.frame_previous, h.at("frame_previous"));
  EXPECT_EQ(l.frame_code, h.at("frame_code"));
  EXPECT_EQ(l.frame_position, h.at("frame_position"));
  EXPECT_EQ(l.str_has_ready_bit, py_.minor <= 11);
  if (py_.minor >= 11) {
    EXPECT_EQ(l.position, Layout::Position::kInstructionPointer);
    EXPECT_EQ(l.lines, LineTableFormat::kLocations311);
    EXPECT_EQ(l.frame_owner, h.at("frame_owner"));
    EXPECT_EQ(l.code_first_traceable, h.at("code_first_traceable"));
    EXPECT_EQ(l.code_units, h.at("code_units"));
    EXPECT_EQ(l.code_size, h.at("code_size"));
    EXPECT_EQ(kOwnedByGenerator, h.at("owned_by_generator"));
    if (py_.minor >= 12) {
      EXPECT_EQ(kOwnedByCStack, h.at("owned_by_cstack"));
    }
    EXPECT_EQ(l.frame_basicsize, 0u);
  } else {
    EXPECT_EQ(l.position,
              py_.minor == 9 ? Layout::Position::kLastiBytes : Layout::Position::kLastiUnits);
    EXPECT_EQ(l.lines,
              py_.minor == 9 ? LineTableFormat::kLnotab39 : LineTableFormat::kLinetable310);
    EXPECT_EQ(l.frame_owner, -1);
    EXPECT_EQ(l.frame_basicsize, h.at("frame_basicsize"));
  }
  // The sizes find_layout checks at start, as this interpreter's types say.
  std::stringstream sizes(
      ask("import sys\n"
          "print(type((lambda: 0).__code__).__basicsize__, str.__basicsize__, "
          "bytes.__basicsize__, type(sys._getframe()).__basicsize__)"));
  long code = 0, str = 0, bytes = 0, frame = 0;
  sizes >> code >> str >> bytes >> frame;
  EXPECT_EQ(l.code_basicsize, code);
  EXPECT_EQ(l.unicode_basicsize, str);
  EXPECT_EQ(l.bytes_data + 1, bytes);
  if (l.frame_basicsize != 0) {
    EXPECT_EQ(l.frame_basicsize, frame);
  }
}

TEST_P(PythonLayoutTest, LineTablesDecodeAsTheInterpreterDoes) {
  if (py_.minor < 9) GTEST_SKIP() << "3." << py_.minor << ": the agent reads 3.9 and later";
  Layout l;
  if (py_.minor <= 12) {
    ASSERT_TRUE(table_layout(py_.minor, &l));
  } else {
    l.lines = LineTableFormat::kLocations311;  // 3.11 onwards
  }
  Result dumped = run({py_.path, (kHere / "line_table_dump.py").string()}, {});
  ASSERT_EQ(dumped.exit_code(), 0) << dumped.err;
  std::stringstream in(dumped.out);
  std::string text;
  size_t codes = 0, units = 0, wrong = 0;
  while (std::getline(in, text)) {
    const nlohmann::json c = nlohmann::json::parse(text);
    const std::string hex = c["table"];
    std::vector<uint8_t> table;
    for (size_t i = 0; i + 1 < hex.size(); i += 2)
      table.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    const int64_t first = c["first"];
    const auto& lines = c["lines"];
    for (size_t unit = 0; unit < lines.size(); ++unit) {
      size_t read = 0;
      const int64_t line = line_of(l.lines, table.data(), table.size(), first, 2 * unit, &read);
      if (line != lines[unit].get<int64_t>() && ++wrong <= 5)
        ADD_FAILURE() << "3." << py_.minor << ": unit " << unit << " of the code at line " << first
                      << ": " << line << ", the interpreter says " << lines[unit];
      // The answer depends on the first `read` bytes only (what a found
      // stack checks again).
      if (line_of(l.lines, table.data(), read, first, 2 * unit) != line && ++wrong <= 5)
        ADD_FAILURE() << "3." << py_.minor << ": unit " << unit << " of the code at line " << first
                      << " reads past its " << read << " bytes";
      ++units;
    }
    ++codes;
  }
  EXPECT_GT(codes, 500u);
  EXPECT_EQ(wrong, 0u) << "of " << units << " code units";
}

INSTANTIATE_TEST_SUITE_P(CPython, PythonLayoutTest,
                         ::testing::ValuesIn(brickprof::test::tested_pythons()),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string name = p.param;
                           for (char& c : name)
                             if (c == '.') c = '_';
                           return name;
                         });

}  // namespace
}  // namespace brickprof::agent::python
