// The exporter registry and the file and memory sinks (see sink.h).
#include "analysis/sink.h"

#include <cstring>
#include <sstream>

#include "analysis/atomic_file.h"
#include "analysis/export_chrome.h"
#include "analysis/export_dot.h"
#include "analysis/export_folded.h"
#include "analysis/export_json_gz.h"
#include "analysis/export_perfetto.h"
#include "analysis/export_tree.h"
#include "analysis/trace_json.h"

namespace brickprof {
namespace {

using WriteFn = void (*)(const Trace&, std::ostream&);

struct Format {
  std::string_view name;
  std::string_view extension;
  WriteFn write;
};

void write_tree_default(const Trace& t, std::ostream& out) { write_tree(t, out); }
void write_dot_default(const Trace& t, std::ostream& out) { write_dot(t, out); }

// The one table of formats: adding a format is one line here.
constexpr Format kFormats[] = {
    {"json", ".json", &write_trace_json}, {"tree", ".tree.txt", &write_tree_default},
    {"dot", ".dot", &write_dot_default},  {"chrome", ".trace.json", &write_chrome_trace},
    {"folded", ".folded", &write_folded}, {"json.gz", ".json.gz", &write_trace_json_gz},
    {"perfetto", ".pftrace", &write_perfetto_trace},
};

class TableExporter : public Exporter {
 public:
  explicit TableExporter(const Format& f) : format_(f) {}
  std::string_view name() const override { return format_.name; }
  std::string_view extension() const override { return format_.extension; }
  void write(const Trace& trace, std::ostream& out) const override { format_.write(trace, out); }

 private:
  const Format& format_;
};

std::string errno_text(int err) { return std::strerror(err); }

}  // namespace

std::unique_ptr<Exporter> make_exporter(std::string_view name) {
  for (const Format& f : kFormats)
    if (f.name == name) return std::make_unique<TableExporter>(f);
  return nullptr;
}

const std::vector<std::string_view>& exporter_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> v;
    for (const Format& f : kFormats) v.push_back(f.name);
    return v;
  }();
  return names;
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

std::string write_file_atomically(const std::string& path,
                                  const std::function<void(std::ostream&)>& fill) {
  try {
    PendingFile file(path);
    if (!file.error().empty()) return file.error();
    FdStreamBuf buffer(file.fd());
    std::ostream out(&buffer);
    fill(out);
    out.flush();
    if (buffer.error() != 0) return path + ": write failed: " + errno_text(buffer.error());
    if (!out) return path + ": write failed";
    return file.commit();
  } catch (const std::exception& e) {
    return path + ": " + e.what();
  } catch (...) {
    return path + ": unknown error while writing";
  }
}

std::string FileSink::path_for(const Exporter& exporter) const {
  return prefix_ + std::string(exporter.extension());
}

std::string FileSink::emit(const Exporter& exporter, const Trace& trace) {
  try {
    return write_file_atomically(path_for(exporter),
                                 [&](std::ostream& out) { exporter.write(trace, out); });
  } catch (...) {
    return std::string(exporter.name()) + ": out of memory";
  }
}

std::string MemorySink::emit(const Exporter& exporter, const Trace& trace) {
  try {
    std::ostringstream out;
    exporter.write(trace, out);
    outputs_[std::string(exporter.name())] = std::move(out).str();
    return {};
  } catch (const std::exception& e) {
    return std::string(exporter.name()) + ": " + e.what();
  } catch (...) {
    return std::string(exporter.name()) + ": unknown error";
  }
}

const std::string& MemorySink::text(std::string_view format) const {
  static const std::string empty;
  auto it = outputs_.find(format);
  return it == outputs_.end() ? empty : it->second;
}

std::vector<std::string> write_outputs(const Trace& trace, const std::vector<std::string>& formats,
                                       OutputSink& sink) {
  std::vector<std::string> errors;
  try {
    for (const std::string& name : formats) {
      std::unique_ptr<Exporter> exporter = make_exporter(name);
      if (!exporter) {
        errors.push_back("unknown output format '" + name + "'");
        continue;
      }
      std::string error = sink.emit(*exporter, trace);
      if (!error.empty()) errors.push_back(std::move(error));
    }
  } catch (...) {
    // Only allocation can fail here; keep whatever was reported so far.
    try {
      errors.emplace_back("out of memory while writing outputs");
    } catch (...) {
    }
  }
  return errors;
}

}  // namespace brickprof
