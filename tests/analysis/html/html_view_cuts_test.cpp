// The HTML page's cut view lists (analysis/html/html_view_cuts.h): lists directly
// under a view keep their first entries whatever the entries hold, nothing
// else changes, and the result is the same however the text arrives.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "analysis/html/html_view_cuts.h"

namespace brickprof {
namespace {

struct Cut {
  std::string text;
  std::vector<ListCut> cuts;
};

Cut cut(const std::string& json, size_t limit, bool char_by_char = false) {
  std::ostringstream out;
  ListCutBuf buf(out, limit);
  std::ostream in(&buf);
  if (char_by_char) {
    for (char c : json) in.put(c);
  } else {
    in << json;
  }
  in.flush();
  buf.finish();
  return {out.str(), buf.cuts()};
}

TEST(HtmlViewCuts, ListsUnderTheViewKeepTheirFirstEntries) {
  // As JsonWriter writes a view: a newline before each entry of a long list.
  const std::string view =
      "{\"length_ns\":5,\"steps\":[\n{\"n\":1,\"lane\":{\"thread\":1}}\n,{\"n\":2}\n,{\"n\":3}"
      "\n,{\"n\":4}],\"few\":[1,2],\"none\":[],\"opportunities\":[\"a\",\"b\",\"c\",\"d\"]}\n";
  const Cut c = cut(view, 2);
  const auto got = nlohmann::json::parse(c.text);
  EXPECT_EQ(got["length_ns"], 5);
  EXPECT_EQ(got["steps"], nlohmann::json::parse(R"([{"n":1,"lane":{"thread":1}},{"n":2}])"));
  EXPECT_EQ(got["few"], nlohmann::json::parse("[1,2]"));
  EXPECT_EQ(got["none"], nlohmann::json::array());
  EXPECT_EQ(got["opportunities"], nlohmann::json::parse(R"(["a","b"])"));
  ASSERT_EQ(c.cuts.size(), 2u);
  EXPECT_EQ(c.cuts[0].key, "\"steps\"");
  EXPECT_EQ(c.cuts[0].kept, 2u);
  EXPECT_EQ(c.cuts[0].of, 4u);
  EXPECT_EQ(c.cuts[1].key, "\"opportunities\"");
  EXPECT_EQ(c.cuts[1].of, 4u);
  EXPECT_EQ(cut(view, 2, true).text, c.text);
}

TEST(HtmlViewCuts, StringsAndDeeperListsAreNotStructure) {
  const std::string view =
      R"({"a\"[":["x,]\"y",["1","2","3"],{"k":[1,2,3]},"[","]"],"b":{"inner":[1,2,3,4]}})";
  const Cut c = cut(view, 2);
  const auto got = nlohmann::json::parse(c.text);
  EXPECT_EQ(got["a\"["], nlohmann::json::parse(R"(["x,]\"y",["1","2","3"]])"));
  EXPECT_EQ(got["b"]["inner"].size(), 4u);  // not directly under the view
  ASSERT_EQ(c.cuts.size(), 1u);
  EXPECT_EQ(c.cuts[0].key, R"("a\"[")");
  EXPECT_EQ(c.cuts[0].of, 5u);
}

TEST(HtmlViewCuts, WhatFitsOrIsNoObjectPassesUnchanged) {
  for (const std::string& json :
       {std::string(R"([{"target":"RmsNorm","steps":[1,2,3,4]}])"),
        std::string(R"({"steps":[1,2,3]})"), std::string("{}"), std::string("17")}) {
    const Cut c = cut(json, 3);
    EXPECT_EQ(c.text, json);
    EXPECT_TRUE(c.cuts.empty()) << json;
  }
}

}  // namespace
}  // namespace brickprof
