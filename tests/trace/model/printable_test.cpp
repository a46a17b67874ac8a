// Names as text outputs show them (trace/model/printable.h): nothing a
// terminal acts on, everything else as it was.
#include "trace/model/printable.h"

#include <gtest/gtest.h>

#include <string>

namespace brickprof {
namespace {

TEST(Printable, PlainNamesAreKept) {
  EXPECT_EQ(printable("RmsNorm"), "RmsNorm");
  EXPECT_EQ(printable("attention<float, 128> µs × é ✓ 日本"),
            "attention<float, 128> µs × é ✓ 日本");
  EXPECT_EQ(printable(R"(C:\path "quoted" ; a|b)"), R"(C:\path "quoted" ; a|b)");
  EXPECT_EQ(printable(""), "");
}

TEST(Printable, ControlCharactersAreSpelledOut) {
  EXPECT_EQ(printable("evil\x1b]52;c;cHduZWQ=\x07\x1b[2J"), "evil\\x1b]52;c;cHduZWQ=\\x07\\x1b[2J");
  EXPECT_EQ(printable("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(printable(std::string("nul\0x\x7f", 6)), "nul\\x00x\\x7f");
}

TEST(Printable, C1ControlsAndBidiOverridesAreSpelledOut) {
  EXPECT_EQ(printable("csi\xc2\x9b"
                      "2J"),
            "csi\\u009b2J");
  EXPECT_EQ(printable("a\xc2\x85"
                      "b"),
            "a\\u0085b");
  EXPECT_EQ(printable("abc\xe2\x80\xae"
                      "fed"),
            "abc\\u202efed");  // right-to-left override
  EXPECT_EQ(printable("x\xe2\x81\xa6"
                      "y\xe2\x81\xa9"),
            "x\\u2066y\\u2069");
  EXPECT_EQ(printable("\xc2\xa0nbsp"), "\xc2\xa0nbsp");  // U+00A0 is a character
}

TEST(Printable, BytesThatAreNotUtf8AreSpelledOut) {
  EXPECT_EQ(printable("bad\xff\xfe"), "bad\\xff\\xfe");
  EXPECT_EQ(printable("cut\xc3"), "cut\\xc3");                       // a sequence cut short
  EXPECT_EQ(printable("\xc3(x"), "\\xc3(x");                         // a bad continuation
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(printable("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
}

TEST(Printable, TextKeepsItsLines) {
  EXPECT_EQ(printable_text("a\n\tb\x1b[2J\r\n"), "a\n\tb\\x1b[2J\\r\n");
}

TEST(Printable, AppendsToWhatIsThere) {
  std::string s = "name: ";
  append_printable(s, "x\x1b");
  EXPECT_EQ(s, "name: x\\x1b");
}

}  // namespace
}  // namespace brickprof
