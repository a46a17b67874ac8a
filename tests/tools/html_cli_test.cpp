// `brickprof report --html` and `brickprof diff --html` run as real
// processes: what they write and print, the settings the page takes from the
// command line, and bad input or an unwritable page (exit 2, one line, no
// file and no temporary left). The page's data against the traces and the
// page in a browser: tests/tools/html/.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "spawn.h"

namespace brickprof::test {
namespace {

namespace fs = std::filesystem;

size_t lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

// The JSON a page carries in its data element.
nlohmann::json page_data(const std::string& path) {
  const std::string page = read_file(path);
  const std::string element = "id=\"brickprof-data\">";
  size_t start = page.find(element);
  EXPECT_NE(start, std::string::npos) << path;
  if (start == std::string::npos) return {};
  start += element.size();
  return nlohmann::json::parse(page.substr(start, page.find("</script>", start) - start));
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string gpu_trace() { return data_path("gpu/bricklayer-graph.json"); }

TEST(ReportHtml, WritesOneSelfContainedPageAndSaysWhere) {
  const std::string dir = fresh_dir("html_page");
  CliResult r = run_brickprof({"report", gpu_trace(), "--html", dir + "/report.html"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "brickprof: wrote " + dir + "/report.html\n");
  EXPECT_EQ(files_in(dir), std::vector<std::string>{"report.html"});
  const std::string page = read_file(dir + "/report.html");
  EXPECT_EQ(page.rfind("<!doctype html>", 0), 0u);
  EXPECT_EQ(page.substr(page.size() - 8), "</html>\n");
  EXPECT_EQ(page.find("/*@"), std::string::npos) << "an include or data marker is left";
  const nlohmann::json data = page_data(dir + "/report.html");
  EXPECT_EQ(data["schema"], "brickprof-html/1");
  EXPECT_EQ(data["kind"], "report");
  EXPECT_EQ(data["title"], "bricklayer (pid 1628 on vm)");
  EXPECT_EQ(data["source"], "bricklayer-graph.json");
  // Every view with a JSON form but the tree, which the flame graph draws.
  std::vector<std::string> views;
  for (const auto& [name, value] : data["views"].items()) views.push_back(name);
  EXPECT_EQ(views, (std::vector<std::string>{"analyze", "collectives", "cpu-counters",
                                             "critical-path", "gpu-idle", "gpu-metrics",
                                             "imbalance", "launches", "memory", "numerics",
                                             "rank-path", "ranks", "roofline", "summary", "tiles",
                                             "tokens", "transfers"}));
  EXPECT_EQ(data["timeline"]["slices"]["dur"].size(), data["timeline"]["slices"]["node"].size());
  EXPECT_GT(data["icicle"]["name"].size(), 1u);
}

TEST(ReportHtml, PrintsOnlyTheViewsNamed) {
  const std::string dir = fresh_dir("html_views");
  CliResult summary =
      run_brickprof({"report", gpu_trace(), "--html", dir + "/a.html", "--summary"});
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  EXPECT_NE(summary.out.find("Per-brick timing ("), std::string::npos) << summary.out;
  EXPECT_EQ(summary.out.find("Execution Graph"), std::string::npos);
  // --json alone names the defaults, as without --html.
  CliResult json = run_brickprof({"report", gpu_trace(), "--html", dir + "/b.html", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_TRUE(doc.contains("summary") && doc.contains("tree")) << json.out.substr(0, 200);
  // The page is the same whatever is printed beside it.
  EXPECT_EQ(read_file(dir + "/a.html"), read_file(dir + "/b.html"));
}

TEST(ReportHtml, TheSettingsReachThePage) {
  const std::string dir = fresh_dir("html_settings");
  CliResult r = run_brickprof({"report", gpu_trace(), "--html", dir + "/p.html", "--under",
                               "decode token", "--what-if", "RmsNorm=2", "--peak-gbps", "100"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("What-if: RmsNorm 2x faster"), std::string::npos) << r.out;
  const nlohmann::json data = page_data(dir + "/p.html");
  const nlohmann::json& views = data["views"];
  EXPECT_EQ(views["under"]["name"], "decode token");
  // The timeline holds what is under those scopes: each node once, beside the range lanes.
  size_t placed = 0;
  for (const auto& lane : data["timeline"]["lanes"])
    if (lane["kind"] != "range") placed += lane["count"].get<size_t>();
  EXPECT_EQ(views["under"]["nodes"].get<size_t>(), placed);
  EXPECT_LT(placed, views["under"]["of_nodes"].get<size_t>());
  ASSERT_EQ(views["what-if"].size(), 1u);
  EXPECT_EQ(views["what-if"][0]["target"], "RmsNorm");
  for (const auto& entry : views["roofline"]["entries"])
    EXPECT_NE(entry["peaks_source"].get<std::string>().find("override"), std::string::npos);
}

struct BadTrace {
  const char* name;
  std::string path;
};

class ReportHtmlBadInput : public ::testing::TestWithParam<BadTrace> {};

// The trace is read and every view computed before the page is opened: a
// page already there is left as it was.
TEST_P(ReportHtmlBadInput, ExitTwoWithOneLineAndThePageUntouched) {
  const std::string dir = fresh_dir(std::string("html_bad_") + GetParam().name);
  const std::string page = dir + "/report.html";
  std::ofstream(page) << "an earlier page";
  CliResult r = run_brickprof({"report", GetParam().path, "--html", page});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("brickprof: " + GetParam().path + ": ", 0), 0u) << r.err;
  EXPECT_EQ(read_file(page), "an earlier page");
  EXPECT_EQ(files_in(dir), std::vector<std::string>{"report.html"});
}

std::string truncated_trace() {
  const std::string text = read_file(gpu_trace());
  const std::string path = fresh_dir("html_truncated") + "/truncated.json";
  std::ofstream(path) << text.substr(0, text.size() / 2);
  return path;
}

INSTANTIATE_TEST_SUITE_P(
    Errors, ReportHtmlBadInput,
    ::testing::Values(BadTrace{"truncated", truncated_trace()},
                      BadTrace{"not_json", data_path("bad_not_json.txt")},
                      BadTrace{"missing", data_path("does_not_exist.json")},
                      BadTrace{"parent_cycle", data_path("bad_parent_cycle.json")},
                      BadTrace{"dependency_cycle", data_path("analyses/cycle.json")}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(ReportHtml, AnUnwritablePageIsExitTwoWithOneLine) {
  const std::string dir = fresh_dir("html_unwritable");
  std::ofstream(dir + "/file") << "not a folder";
  for (const std::string& page : {dir + "/no/such/folder/p.html", dir + "/file/p.html"}) {
    CliResult r = run_brickprof({"report", gpu_trace(), "--html", page});
    EXPECT_EQ(r.exit_code, 2) << page;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("brickprof: " + page, 0), 0u) << r.err;
  }
  EXPECT_EQ(files_in(dir), std::vector<std::string>{"file"});
}

TEST(DiffHtml, WritesThePageAndKeepsTheExitCode) {
  const std::string dir = fresh_dir("html_diff");
  const std::string base = data_path("analyses/diff_base.json");
  const std::string next = data_path("analyses/diff_new.json");
  CliResult json = run_brickprof({"diff", base, next, "--json"});
  ASSERT_EQ(json.exit_code, 1) << json.err;  // the kernel regressed
  CliResult r = run_brickprof({"diff", base, next, "--html", dir + "/diff.html"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  // The verdict, in one line, says why it failed; stderr where the page is.
  EXPECT_EQ(r.out, "FAIL: 2 regression(s): kernel gemv, brick RmsNorm\n");
  EXPECT_EQ(r.err, "brickprof: wrote " + dir + "/diff.html\n");
  const nlohmann::json data = page_data(dir + "/diff.html");
  EXPECT_EQ(data["kind"], "diff");
  EXPECT_EQ(data["title"], "diff_base.json → diff_new.json");
  EXPECT_EQ(data["diff"]["base"]["file"], "diff_base.json");
  EXPECT_TRUE(data["diff"]["base"]["span_ns"].is_null());  // no process end recorded
  EXPECT_EQ(data["diff"]["result"], nlohmann::json::parse(json.out));
  // --json still prints the JSON beside the page.
  CliResult both = run_brickprof({"diff", base, next, "--html", dir + "/d2.html", "--json"});
  EXPECT_EQ(both.exit_code, 1);
  EXPECT_EQ(nlohmann::json::parse(both.out), nlohmann::json::parse(json.out));
  EXPECT_EQ(read_file(dir + "/diff.html"), read_file(dir + "/d2.html"));
}

TEST(DiffHtml, BadInputIsExitTwoAndNoPage) {
  const std::string dir = fresh_dir("html_diff_bad");
  const std::string missing = data_path("does_not_exist.json");
  CliResult r = run_brickprof(
      {"diff", data_path("analyses/diff_base.json"), missing, "--html", dir + "/diff.html"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("brickprof: " + missing + ": ", 0), 0u) << r.err;
  EXPECT_TRUE(files_in(dir).empty());
  CliResult unwritable = run_brickprof({"diff", data_path("analyses/diff_base.json"),
                                        data_path("analyses/diff_new.json"), "--html",
                                        dir + "/no/such/folder/diff.html"});
  EXPECT_EQ(unwritable.exit_code, 2);
  EXPECT_EQ(lines(unwritable.err), 1u) << unwritable.err;
}

}  // namespace
}  // namespace brickprof::test
