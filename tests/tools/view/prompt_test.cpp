// The prompt's editing keys and Tab completion.
#include "tools/view/prompt.h"

#include <gtest/gtest.h>

#include "tools/view/keys.h"

namespace brickprof::view {
namespace {

void type(Prompt& p, const std::string& text) {
  for (char c : text) p.key(static_cast<unsigned char>(c));
}

TEST(Prompt, EditsAndAccepts) {
  Prompt p;
  p.open(Prompt::Purpose::kSearch, "/", "ab");
  EXPECT_TRUE(p.active());
  type(p, "cd");
  p.key(key::kLeft);
  p.key(key::kBackspace);
  EXPECT_EQ(p.text(), "abd");
  p.key(key::kHome);
  type(p, "x");
  EXPECT_EQ(p.text(), "xabd");
  p.key(key::kCtrlW);
  EXPECT_EQ(p.text(), "abd");
  EXPECT_EQ(p.key(key::kEnter), Prompt::Result::kDone);
  EXPECT_FALSE(p.active());
}

TEST(Prompt, BackspaceTakesAWholeUtf8Character) {
  Prompt p;
  p.open(Prompt::Purpose::kSearch, "/", "aµ");
  p.key(key::kBackspace);
  EXPECT_EQ(p.text(), "a");
  EXPECT_EQ(p.key(key::kEscape), Prompt::Result::kCancelled);
}

TEST(Prompt, TabCompletesTheCommonPrefixThenCycles) {
  const std::vector<std::string> names = {"Layer 0", "Layer 1", "RmsNorm", "decode token"};
  Prompt p;
  p.open(Prompt::Purpose::kUnder, "under: ", "de", &names);
  p.key(key::kTab);
  EXPECT_EQ(p.text(), "decode token");
  p.open(Prompt::Purpose::kUnder, "under: ", "La", &names);
  p.key(key::kTab);
  EXPECT_EQ(p.text(), "Layer ");
  p.key(key::kTab);
  EXPECT_EQ(p.text(), "Layer 0");
  p.key(key::kTab);
  EXPECT_EQ(p.text(), "Layer 1");
  Canvas c(60, 1, false);
  p.draw(c, 0);
  EXPECT_EQ(c.row(0).rfind("under: Layer 1", 0), 0u);
}

}  // namespace
}  // namespace brickprof::view
