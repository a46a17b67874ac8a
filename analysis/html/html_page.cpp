// Writes the HTML report and diff pages (see html_page.h): the shell, and
// between its halves the data as JSON that cannot end its <script> element.
#include "analysis/html/html_page.h"

#include <any>
#include <cstring>
#include <filesystem>
#include <unordered_map>

#include "analysis/analyses/critical_path.h"
#include "analysis/html/html_shell.h"
#include "analysis/html/html_view_cuts.h"
#include "trace/json/json_writer.h"

namespace brickprof {
namespace {

constexpr const char* kSchema = "brickprof-html/1";

// Passes JSON on with every '<' written \u003c: in JSON text a '<' can only
// be inside a string, where the escape means the same, and without it the
// data could close its element or open a comment.
class ScriptJsonBuf : public std::streambuf {
 public:
  explicit ScriptJsonBuf(std::ostream& out) : out_(out) {}

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const char ch = traits_type::to_char_type(c);
    xsputn(&ch, 1);
    return c;
  }
  std::streamsize xsputn(const char* data, std::streamsize n) override {
    const char* p = data;
    const char* end = data + n;
    while (p < end) {
      const char* lt = static_cast<const char*>(std::memchr(p, '<', static_cast<size_t>(end - p)));
      const char* run_end = lt ? lt : end;
      out_.write(p, run_end - p);
      if (!lt) break;
      out_.write("\\u003c", 6);
      p = lt + 1;
    }
    return n;
  }
  int sync() override { return out_.flush() ? 0 : -1; }

 private:
  std::ostream& out_;
};

// Not "quoted": for a std::string argument, argument-dependent lookup finds
// std::quoted, which escapes only the quotes (a control character in a
// program name made the page's data invalid JSON).
std::string json_quoted(std::string_view text) {
  std::string out;
  append_json_string(out, text);
  return out;
}

std::string file_name(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

void write_pieces(std::ostream& out, std::span<const std::string_view> pieces) {
  for (std::string_view p : pieces) out.write(p.data(), static_cast<std::streamsize>(p.size()));
}

// The shell's head, the data `fill` writes (made safe), the shell's tail.
template <typename Fill>
void write_page(std::ostream& out, Fill&& fill) {
  const HtmlShell shell = html_shell();
  write_pieces(out, shell.head);
  ScriptJsonBuf safe(out);
  std::ostream data(&safe);
  fill(data);
  data.flush();
  write_pieces(out, shell.tail);
}

// Every step of the critical path as columns, for when the view's list of
// steps was cut: node, duration, name and kind (through string tables),
// and its timeline lane.
void write_critical_path_columns(const Trace& t, const CriticalPathReport& r,
                                 const HtmlTimeline& tl, JsonWriter& w) {
  std::unordered_map<uint32_t, int64_t> thread_lane;
  std::unordered_map<uint64_t, int64_t> stream_lane;
  for (size_t l = 0; l < tl.lanes.size(); ++l) {
    const TimelineLane& lane = tl.lanes[l];
    if (lane.kind == TimelineLane::Kind::kThread)
      thread_lane.emplace(lane.tid, static_cast<int64_t>(l));
    else if (lane.kind == TimelineLane::Kind::kStream)
      stream_lane.emplace(uint64_t{lane.device} << 32 | lane.stream, static_cast<int64_t>(l));
  }
  std::vector<std::string> names, kinds;
  std::unordered_map<std::string, int64_t> name_index, kind_index;
  auto intern = [](std::string text, std::vector<std::string>& table,
                   std::unordered_map<std::string, int64_t>& index) {
    auto [it, inserted] = index.try_emplace(text, static_cast<int64_t>(table.size()));
    if (inserted) table.push_back(std::move(text));
    return it->second;
  };
  const std::vector<PathStep>& steps = r.path.steps;
  std::vector<int64_t> name(steps.size()), kind(steps.size()), lane(steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    const PathStep& s = steps[i];
    name[i] = intern(owner_label(t, s.node), names, name_index);
    kind[i] = intern(std::string(s.node == kNoNode ? std::string_view("untracked")
                                                   : to_string(t.nodes[s.node].kind)),
                     kinds, kind_index);
    const Lane& l = r.lanes[s.lane];
    lane[i] = -1;
    if (l.kind == Lane::Kind::kThread) {
      if (auto it = thread_lane.find(l.thread); it != thread_lane.end()) lane[i] = it->second;
    } else if (auto it = stream_lane.find(uint64_t{l.device} << 32 | l.stream);
               it != stream_lane.end()) {
      lane[i] = it->second;
    }
  }
  auto column = [&](const char* key, auto figure) {
    w.key(key).begin_array();
    for (size_t i = 0; i < steps.size(); ++i) w.value(figure(i));
    w.end_array();
  };
  w.begin_object();
  w.key("strings").begin_array();
  for (const std::string& s : names) w.value(s);
  w.end_array().key("kinds").begin_array();
  for (const std::string& s : kinds) w.value(s);
  w.end_array();
  column("node", [&](size_t i) {
    return steps[i].node == kNoNode ? int64_t{-1} : int64_t{t.file_id(steps[i].node)};
  });
  column("dur", [&](size_t i) { return steps[i].duration_ns; });
  column("name", [&](size_t i) { return name[i]; });
  column("kind", [&](size_t i) { return kind[i]; });
  column("lane", [&](size_t i) { return lane[i]; });
  w.end_object();
}

}  // namespace

bool shown_on_html_page(const View& view) {
  return view.has_json() && std::string_view(view.name) != "tree";
}

std::string html_page_title(const Trace& t) {
  std::string title = t.process.program.empty() ? "trace" : t.process.program;
  if (t.process.pid != 0) {
    title += " (pid " + std::to_string(t.process.pid);
    if (!t.process.host.empty()) title += " on " + t.process.host;
    title += ")";
  }
  return title;
}

HtmlReportPage::HtmlReportPage(ReportPageInput input)
    : in_(std::move(input)),
      timeline_(build_html_timeline(*in_.trace, in_.limits.max_slices)),
      icicle_(build_html_icicle(*in_.trace, in_.limits.max_icicle)) {}

void HtmlReportPage::write(std::ostream& out) const {
  const Trace& t = *in_.trace;
  write_page(out, [&](std::ostream& data) {
    data << "{\"schema\":" << json_quoted(kSchema)
         << ",\"kind\":\"report\",\"title\":" << json_quoted(html_page_title(t))
         << ",\"source\":" << json_quoted(file_name(in_.file)) << ",\"views\":{";
    bool first = true;
    if (!in_.under_json.empty()) {
      data << "\"under\":" << in_.under_json;
      first = false;
    }
    struct Cut {
      const char* view;
      ListCut list;
    };
    std::vector<Cut> cuts;
    const CriticalPathReport* critical_path = nullptr;
    for (const PageView& v : in_.views) {
      data << (first ? "" : ",") << json_quoted(v.view->name) << ':';
      first = false;
      ListCutBuf cutter(data, in_.limits.max_list);
      std::ostream view_out(&cutter);
      render_view(*v.view, t, *v.model, true, view_out);
      view_out.flush();
      for (const ListCut& c : cutter.cuts()) cuts.push_back({v.view->name, c});
      if (const auto* cp = std::any_cast<CriticalPathReport>(v.model)) critical_path = cp;
    }
    data << "},\"timeline\":";
    {
      JsonWriter w(data);
      write_html_timeline(t, timeline_, w);
    }
    data << ",\"icicle\":";
    {
      JsonWriter w(data);
      write_html_icicle(t, icicle_, w);
    }
    if (critical_path && critical_path->path.steps.size() > in_.limits.max_list) {
      data << ",\"critical_path\":";
      JsonWriter w(data);
      write_critical_path_columns(t, *critical_path, timeline_, w);
    }
    data << ",\"cuts\":[";
    for (size_t i = 0; i < cuts.size(); ++i) {
      data << (i ? "," : "") << "{\"view\":" << json_quoted(cuts[i].view)
           << ",\"key\":" << cuts[i].list.key << ",\"kept\":" << cuts[i].list.kept
           << ",\"of\":" << cuts[i].list.of << '}';
    }
    data << "]}";
  });
}

void write_diff_page(std::ostream& out, const DiffPageSide& base, const DiffPageSide& next,
                     const TraceDiff& diff, std::string_view under, const OutputDiff* outputs) {
  std::string title = file_name(base.file) + " → " + file_name(next.file);
  if (!under.empty()) title += " under " + json_quoted(under);
  auto side = [](std::ostream& data, const DiffPageSide& s) {
    const ProcessInfo& p = s.trace->process;
    data << "{\"file\":" << json_quoted(file_name(s.file))
         << ",\"title\":" << json_quoted(html_page_title(*s.trace)) << ",\"span_ns\":";
    // A process that recorded no end (a hand-made trace) has no wall time.
    if (p.end_ns != 0)
      data << p.end_ns - p.start_ns;
    else
      data << "null";
    data << '}';
  };
  write_page(out, [&](std::ostream& data) {
    data << "{\"schema\":" << json_quoted(kSchema)
         << ",\"kind\":\"diff\",\"title\":" << json_quoted(title) << ",\"diff\":{\"base\":";
    side(data, base);
    data << ",\"new\":";
    side(data, next);
    data << ",\"result\":";
    {
      JsonWriter w(data);
      diff_json(diff, w);
    }
    if (outputs) {
      data << ",\"outputs\":";
      JsonWriter w(data);
      output_diff_json(*outputs, w);
    }
    data << "}}";
  });
}

}  // namespace brickprof
