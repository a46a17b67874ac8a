// The table of output formats and the writing of several (see formats.h).
#include "trace/output/formats.h"

#include <algorithm>
#include <stdexcept>

#include "trace/formats/chrome.h"
#include "trace/formats/dot.h"
#include "trace/formats/folded.h"
#include "trace/formats/json.h"
#include "trace/formats/perfetto.h"
#include "trace/formats/tree.h"

namespace brickprof {
namespace {

template <typename Sink>
std::unique_ptr<TraceSink> make(std::ostream& out) {
  return std::make_unique<Sink>(out);
}

// The one table of formats: adding a format is one line here.
constexpr Format kFormats[] = {
    {"json", ".json", &make<JsonSink>},
    {"tree", ".tree.txt", &make<TreeSink>},
    {"dot", ".dot", &make<DotSink>},
    {"chrome", ".trace.json", &make<ChromeSink>},
    {"folded", ".folded", &make<FoldedSink>},
    {"json.gz", ".json.gz", &make<GzipJsonSink>},
    {"perfetto", ".pftrace", &make<PerfettoSink>},
};

}  // namespace

void require_aggregate(const AggregateInput& in, std::string_view format) {
  if (!in.missing.empty())
    throw std::runtime_error(std::string(format) + ": not written, " + std::string(in.missing));
}

std::span<const Format> formats() { return kFormats; }

const Format* find_format(std::string_view name) {
  for (const Format& f : kFormats)
    if (f.name == name) return &f;
  return nullptr;
}

std::string_view format_extension_of(std::string_view path) {
  std::string_view longest;
  for (const Format& f : kFormats)
    if (f.extension.size() > longest.size() && path.ends_with(f.extension)) longest = f.extension;
  return longest;
}

std::vector<std::string> parse_formats(std::string_view list) {
  std::vector<std::string> out;
  while (!list.empty()) {
    size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (!item.empty()) out.emplace_back(item);
  }
  return out;
}

WrittenOutputs write_outputs(TraceSource& source, const std::vector<std::string>& names,
                             OutputSink& sink) {
  WrittenOutputs written;
  try {
    std::vector<std::string> ordered = names;
    std::stable_partition(ordered.begin(), ordered.end(), [](const std::string& name) {
      return name == "json" || name == "json.gz";
    });
    for (const std::string& name : ordered) {
      const Format* f = find_format(name);
      std::string error = f ? sink.emit(f->name, f->extension,
                                        [&](std::ostream& out) {
                                          const std::unique_ptr<TraceSink> s = f->make(out);
                                          source.feed(*s);
                                        })
                            : "unknown output format '" + name + "'";
      if (error.empty())
        written.files.push_back(sink.where(f->name, f->extension));
      else
        written.failures.push_back(std::move(error));
    }
  } catch (...) {
    // Only allocation can fail here; keep whatever was reported so far.
    try {
      written.failures.emplace_back("out of memory while writing outputs");
    } catch (...) {
    }
  }
  return written;
}

}  // namespace brickprof
