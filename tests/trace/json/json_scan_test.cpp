// The structural scanner the streaming reader cuts arrays with: value ends
// and array batches, including strings that hide brackets and quotes and
// backslash runs that straddle the scanner's 64-byte blocks.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "trace/json/json_scan.h"

namespace brickprof {
namespace {

std::vector<std::string> batches_of(const std::string& text, size_t min_bytes, size_t* end) {
  std::vector<std::string> out;
  *end = scan_json_array(text, 0, min_bytes,
                         [&](size_t b, size_t e) { out.push_back(text.substr(b, e - b)); });
  return out;
}

// An array whose elements carry strings with brackets, quotes and backslash
// runs of every length, at every offset against the 64-byte blocks.
std::string tricky_array(int elements) {
  nlohmann::json arr = nlohmann::json::array();
  for (int i = 0; i < elements; ++i) {
    std::string s(static_cast<size_t>(i % 70), 'x');
    s += std::string(static_cast<size_t>(i % 5), '\\') + "\"]}{[" + std::to_string(i);
    arr.push_back({{"id", i}, {"name", s}, {"dims", {i, i + 1}}, {"nested", {{"a", {{"b", s}}}}}});
  }
  return arr.dump();
}

TEST(JsonScan, ValueEnds) {
  EXPECT_EQ(json_value_end(R"("a\"b" ,)", 0), 6u);
  EXPECT_EQ(json_value_end(R"(123, 4)", 0), 3u);
  EXPECT_EQ(json_value_end(R"({"a":"}]"} x)", 0), 10u);
  EXPECT_EQ(json_value_end(R"([1,[2,{"k":"\\"}]] x)", 0), 18u);
  std::string long_string = "[\"" + std::string(200, '\\') + "\", 1]";  // 100 escaped backslashes
  EXPECT_EQ(json_value_end(long_string, 0), long_string.size());
}

TEST(JsonScan, BadValuesFail) {
  EXPECT_EQ(json_value_end(R"({"a":[1,2})", 0), kScanFailed);  // ] expected
  EXPECT_EQ(json_value_end(R"({"a":"}")", 0), kScanFailed);    // not closed
  EXPECT_EQ(json_value_end(R"("abc)", 0), kScanFailed);
  EXPECT_EQ(json_value_end("", 0), kScanFailed);
  EXPECT_EQ(json_value_end(std::string(300, '[') + std::string(300, ']'), 0),
            kScanFailed);  // too deep
}

TEST(JsonScan, BatchesAreWholeElements) {
  std::string text = tricky_array(300);
  nlohmann::json expected = nlohmann::json::parse(text);
  for (size_t min_bytes : {size_t{0}, size_t{1}, size_t{100}, size_t{1000}, size_t{1} << 30}) {
    SCOPED_TRACE("min_bytes " + std::to_string(min_bytes));
    size_t end = 0;
    std::vector<std::string> batches = batches_of(text, min_bytes, &end);
    EXPECT_EQ(end, text.size());
    nlohmann::json joined = nlohmann::json::array();
    for (const std::string& b : batches) {
      nlohmann::json part = nlohmann::json::parse("[" + b + "]");  // each one parses alone
      for (auto& element : part) joined.push_back(element);
    }
    EXPECT_EQ(joined, expected);
    if (min_bytes == 0) {
      EXPECT_EQ(batches.size(), 300u);
    }
    if (min_bytes == size_t{1} << 30) {
      EXPECT_EQ(batches.size(), 1u);
    }
  }
}

TEST(JsonScan, ScalarArraysAreOneBatch) {
  size_t end = 0;
  std::vector<std::string> batches = batches_of("[1, \"a]\", 3 ] tail", 0, &end);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(nlohmann::json::parse("[" + batches[0] + "]"), nlohmann::json::parse(R"([1,"a]",3])"));
  EXPECT_EQ(end, 13u);
  batches = batches_of("[ ]", 0, &end);
  EXPECT_TRUE(batches.empty());
  EXPECT_EQ(end, 3u);
}

TEST(JsonScan, TruncatedArraysFail) {
  std::string text = tricky_array(40);
  for (size_t n = 1; n < text.size(); n += 7) {
    size_t end = 0;
    batches_of(text.substr(0, n), 50, &end);
    EXPECT_EQ(end, kScanFailed) << "prefix of " << n << " bytes";
  }
}

}  // namespace
}  // namespace brickprof
