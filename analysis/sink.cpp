// The exporter registry and the file and memory sinks (see sink.h).
#include "analysis/sink.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "analysis/export_chrome.h"
#include "analysis/export_dot.h"
#include "analysis/export_folded.h"
#include "analysis/export_tree.h"
#include "analysis/trace_json.h"

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

// Unique within this process; the pid makes it unique across processes
// sharing an output directory (forked children dump too).
std::string temp_path_for(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
}

}  // namespace

std::unique_ptr<Exporter> make_exporter(std::string_view name) {
  const Format* f = find_format(name);
  return f ? std::make_unique<TableExporter>(*f) : nullptr;
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
  std::string temp;
  try {
    // O_EXCL: never write through someone else's file or symlink; 0666 so
    // the umask decides the final mode, as for any ordinary output file.
    int fd = -1;
    for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
      temp = temp_path_for(path);
      fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) return path + ": cannot create: " + errno_text(errno);
    ::close(fd);
    {
      std::ofstream out(temp, std::ios::binary | std::ios::trunc);
      if (!out) {
        int err = errno;
        ::unlink(temp.c_str());
        return path + ": cannot open: " + errno_text(err);
      }
      fill(out);
      out.close();  // close() reports the last buffered write's failure
      if (out.fail()) {
        int err = errno;
        ::unlink(temp.c_str());
        return path + ": write failed" + (err ? ": " + errno_text(err) : std::string());
      }
    }
    if (::rename(temp.c_str(), path.c_str()) != 0) {
      int err = errno;
      ::unlink(temp.c_str());
      return path + ": cannot rename into place: " + errno_text(err);
    }
    return {};
  } catch (const std::exception& e) {
    if (!temp.empty()) ::unlink(temp.c_str());
    return path + ": " + e.what();
  } catch (...) {
    if (!temp.empty()) ::unlink(temp.c_str());
    return path + ": unknown error while writing";
  }
}

std::string FileSink::path_for(const Exporter& exporter) const {
  return prefix_ + std::string(exporter.extension());
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

std::vector<std::string> write_outputs(StreamedTrace& trace,
                                       const std::vector<std::string>& formats, OutputSink& sink) {
  std::vector<std::string> errors;
  try {
    for (const std::string& name : formats) {
      const Format* f = find_format(name);
      if (!f) {
        errors.push_back("unknown output format '" + name + "'");
        continue;
      }
      std::string error =
          sink.emit(f->name, f->extension, [&](std::ostream& out) { (trace.*(f->streamed))(out); });
      if (!error.empty()) errors.push_back(std::move(error));
    }
  } catch (...) {
    try {
      errors.emplace_back("out of memory while writing outputs");
    } catch (...) {
    }
  }
  return errors;
}

}  // namespace brickprof
