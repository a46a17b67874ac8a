// The canvas the browser draws into: widths of UTF-8 text, clipping, wide
// characters, and the ASCII screen.
#include "tools/view/canvas.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <string>

#include "tests/support/read_file.h"
#include "tools/view/styled_text.h"

namespace brickprof::view {
namespace {

TEST(Canvas, PutsUtf8ByDisplayColumns) {
  Canvas c(12, 2, false);
  EXPECT_EQ(c.put(0, 0, "12.3µs ×2", Style::kNormal), 9);
  EXPECT_EQ(c.row(0), "12.3µs ×2   ");
  EXPECT_EQ(display_width("12.3µs ×2"), 9);
  // Clipped at `max` and at the right edge, whole characters only.
  EXPECT_EQ(c.put(8, 1, "abcdef", Style::kBold, 3), 3);
  EXPECT_EQ(c.row(1), "        abc ");
  EXPECT_EQ(c.put(10, 1, "xyz", Style::kBold), 2);
  EXPECT_EQ(c.row(1), "        abxy");
  EXPECT_EQ(c.at(9, 1).style, Style::kBold);
}

TEST(Canvas, WideCharactersTakeTwoColumnsAndNeverHalf) {
  Canvas c(6, 1, false);
  EXPECT_EQ(c.put(0, 0, "名前x", Style::kNormal), 5);
  EXPECT_EQ(c.row(0), "名前x ");
  EXPECT_EQ(display_width("名前"), 4);
  Canvas narrow(3, 1, false);
  EXPECT_EQ(narrow.put(0, 0, "名前", Style::kNormal), 2);  // the second does not fit
  EXPECT_EQ(narrow.row(0), "名 ");
  // Writing over half of a wide character blanks its other half.
  c.put(1, 0, "a", Style::kNormal);
  EXPECT_EQ(c.row(0), " a前x ");
}

TEST(Canvas, ControlCharactersAndBrokenUtf8ShowAsQuestionMarks) {
  Canvas c(8, 1, false);
  c.put(0, 0, std::string("a\tb\x01") + "\xff" + "c", Style::kNormal);
  EXPECT_EQ(c.row(0), "a?b??c  ");
  // C1 CSI, a right-to-left override and an isolate: never to the terminal.
  Canvas d(6, 1, false);
  d.put(0, 0, "x\xc2\x9by\xe2\x80\xaez\xe2\x81\xa6", Style::kNormal);
  EXPECT_EQ(d.row(0), "x?y?z?");
}

TEST(Canvas, AsciiScreenHasOnlyAscii) {
  Canvas c(40, 1, true);
  const int w = c.put(0, 0, "├─▸ bl_gemv <<<4×1×1,256>>> 12.3µs …", Style::kKernel);
  const std::string row = c.row(0);
  for (char ch : row) EXPECT_LT(static_cast<unsigned char>(ch), 0x80) << row;
  EXPECT_EQ(row.substr(0, static_cast<size_t>(w)), "+-+ bl_gemv <<<4x1x1,256>>> 12.3us ...");
  EXPECT_EQ(display_width("µs…", true), 5);
}

// Every character the browser and the report views write has an ASCII
// form: each non-ASCII character inside a string literal of tools/view/ and
// analysis/ (every room of it) is put on an ASCII canvas and must not come
// out as '?'.
TEST(Canvas, EveryCharacterWeDrawHasAnAsciiForm) {
  namespace fs = std::filesystem;
  const std::regex literal(R"("(?:[^"\\\n]|\\.)*")");
  size_t checked = 0;
  std::set<std::string> folders;
  for (const char* dir : {"tools/view", "analysis"}) {
    for (const auto& file :
         fs::recursive_directory_iterator(fs::path(BRICKPROF_SOURCE_ROOT) / dir)) {
      if (file.path().extension() != ".cpp" && file.path().extension() != ".h") continue;
      folders.insert(file.path().parent_path().filename());
      const std::string text = test::read_file(file.path());
      for (auto m = std::sregex_iterator(text.begin(), text.end(), literal);
           m != std::sregex_iterator(); ++m) {
        const std::string s = m->str();
        for (size_t i = 0; i < s.size();) {
          const auto b = static_cast<unsigned char>(s[i]);
          const size_t n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
          if (n > 1) {
            Canvas c(8, 1, true);
            c.put(0, 0, s.substr(i, n), Style::kNormal);
            EXPECT_EQ(c.row(0).find('?'), std::string::npos)
                << s.substr(i, n) << " in " << file.path().filename() << ": " << s;
            ++checked;
          }
          i += n;
        }
      }
    }
  }
  EXPECT_GT(checked, 10u);
  EXPECT_TRUE(folders.count("views") && folders.count("view")) << "the rooms were not read";
}

TEST(Canvas, PutRightAlignsByColumns) {
  Canvas c(10, 1, false);
  c.put_right(0, 0, 10, "1.2µs", Style::kNormal);
  EXPECT_EQ(c.row(0), "     1.2µs");
}

TEST(Canvas, DropColumnsForHorizontalScrolling) {
  int columns = 3;
  EXPECT_EQ(drop_columns("µs×ab", columns, false), "ab");
  EXPECT_EQ(columns, 0);
  columns = 10;
  EXPECT_EQ(drop_columns("abc", columns, false), "");
  EXPECT_EQ(columns, 7);
}

TEST(StyledText, ReportLinesColourHeadingsRulesAndFindings) {
  const Lines lines = report_lines(
      "Per-brick timing:\nBrick  Count\n-----------\nREGRESSION brick X\n  warning: y\n  plain\n");
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[0].spans[0].style, Style::kBold);
  EXPECT_EQ(lines[1].spans[0].style, Style::kHeader);
  EXPECT_EQ(lines[2].spans[0].style, Style::kDim);
  EXPECT_EQ(lines[3].spans[0].style, Style::kRegression);
  EXPECT_EQ(lines[4].spans[0].style, Style::kWarning);
  EXPECT_EQ(lines[5].spans[0].style, Style::kNormal);
}

TEST(StyledText, DrawsFromAColumnAndMarksMatches) {
  Lines lines;
  lines.emplace_back().add("abc ").add("QkvProjection", Style::kBrick);
  Canvas c(10, 1, false);
  Matcher m("proj");  // smart case: any case
  draw_lines(c, Rect{0, 0, 10, 1}, lines, 0, &m, 4);
  EXPECT_EQ(c.row(0), "QkvProject");
  EXPECT_EQ(c.at(2, 0).style, Style::kBrick);
  for (int x = 3; x < 7; ++x) EXPECT_EQ(c.at(x, 0).style, Style::kMatch) << x;
  EXPECT_EQ(c.at(7, 0).style, Style::kBrick);
}

TEST(Search, SmartCaseAndWrappingWalk) {
  EXPECT_TRUE(Matcher("gemv").matches("bl_GEMV_q4k"));
  EXPECT_FALSE(Matcher("Gemv").matches("bl_gemv_q4k"));  // a capital: exact case
  EXPECT_TRUE(Matcher("Gemv").matches("Gemv"));
  EXPECT_FALSE(Matcher("").matches("x"));
  auto odd = [](size_t i) { return i % 2 == 1; };
  EXPECT_EQ(find_next(6, 1, true, odd), 3u);
  EXPECT_EQ(find_next(6, 5, true, odd), 1u);  // wraps
  EXPECT_EQ(find_next(6, 1, false, odd), 5u);
  EXPECT_EQ(find_next(6, 3, true, [](size_t i) { return i == 3; }), 3u);  // itself, last
  EXPECT_EQ(find_next(6, 0, true, [](size_t) { return false; }), SIZE_MAX);
}

}  // namespace
}  // namespace brickprof::view
