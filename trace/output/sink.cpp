// The exporter registry and the file and memory sinks (see sink.h).
#include "trace/output/sink.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "trace/formats/chrome.h"
#include "trace/formats/dot.h"
#include "trace/formats/folded.h"
#include "trace/formats/json_gz.h"
#include "trace/formats/perfetto.h"
#include "trace/formats/tree.h"
#include "trace/json/trace_json.h"
#include "trace/output/atomic_file.h"

namespace brickprof {
namespace {

using WriteFn = void (*)(const Trace&, std::ostream&);

using StreamedFn = void (StreamedTrace::*)(std::ostream&);

struct Format {
  std::string_view name;
  std::string_view extension;
  WriteFn write;
  StreamedFn streamed;
};

void write_tree_default(const Trace& t, std::ostream& out) { write_tree(t, out); }
void write_dot_default(const Trace& t, std::ostream& out) { write_dot(t, out); }

// The one table of formats: adding a format is one line here.
constexpr Format kFormats[] = {
    {"json", ".json", &write_trace_json, &StreamedTrace::write_json},
    {"tree", ".tree.txt", &write_tree_default, &StreamedTrace::write_tree},
    {"dot", ".dot", &write_dot_default, &StreamedTrace::write_dot},
    {"chrome", ".trace.json", &write_chrome_trace, &StreamedTrace::write_chrome},
    {"folded", ".folded", &write_folded, &StreamedTrace::write_folded},
    {"json.gz", ".json.gz", &write_trace_json_gz, &StreamedTrace::write_json_gz},
    {"perfetto", ".pftrace", &write_perfetto_trace, &StreamedTrace::write_perfetto},
};

const Format* find_format(std::string_view name) {
  for (const Format& f : kFormats)
    if (f.name == name) return &f;
  return nullptr;
}

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
  const Format* f = find_format(name);
  return f ? std::make_unique<TableExporter>(*f) : nullptr;
}

std::string_view format_extension_of(std::string_view path) {
  std::string_view longest;
  for (const Format& f : kFormats)
    if (f.extension.size() > longest.size() && path.ends_with(f.extension)) longest = f.extension;
  return longest;
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
  return where(exporter.name(), exporter.extension());
}

std::string FileSink::where(std::string_view, std::string_view extension) const {
  return prefix_ + std::string(extension);
}

std::string FileSink::emit(std::string_view format, std::string_view extension,
                           const std::function<void(std::ostream&)>& fill) {
  try {
    return write_file_atomically(prefix_ + std::string(extension), fill);
  } catch (...) {
    return std::string(format) + ": out of memory";
  }
}

std::string MemorySink::emit(std::string_view format, std::string_view,
                             const std::function<void(std::ostream&)>& fill) {
  try {
    std::ostringstream out;
    fill(out);
    outputs_[std::string(format)] = std::move(out).str();
    return {};
  } catch (const std::exception& e) {
    return std::string(format) + ": " + e.what();
  } catch (...) {
    return std::string(format) + ": unknown error";
  }
}

const std::string& MemorySink::text(std::string_view format) const {
  static const std::string empty;
  auto it = outputs_.find(format);
  return it == outputs_.end() ? empty : it->second;
}

namespace {

// JSON first (see write_outputs); `emit` writes one format, returning ""
// or its error line.
template <typename Emit>
WrittenOutputs write_each(const std::vector<std::string>& formats, OutputSink& sink, Emit emit) {
  WrittenOutputs written;
  try {
    std::vector<std::string> ordered = formats;
    std::stable_partition(ordered.begin(), ordered.end(), [](const std::string& name) {
      return name == "json" || name == "json.gz";
    });
    for (const std::string& name : ordered) {
      const Format* f = find_format(name);
      std::string error = f ? emit(*f) : "unknown output format '" + name + "'";
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

}  // namespace

WrittenOutputs write_outputs(const Trace& trace, const std::vector<std::string>& formats,
                             OutputSink& sink) {
  return write_each(formats, sink, [&](const Format& f) {
    return sink.emit(f.name, f.extension, [&](std::ostream& out) { f.write(trace, out); });
  });
}

WrittenOutputs write_outputs(StreamedTrace& trace, const std::vector<std::string>& formats,
                             OutputSink& sink) {
  return write_each(formats, sink, [&](const Format& f) {
    return sink.emit(f.name, f.extension, [&](std::ostream& out) { (trace.*(f.streamed))(out); });
  });
}

}  // namespace brickprof
