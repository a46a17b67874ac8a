// One interface for every output format, and where the outputs go.
// An Exporter turns a Trace into one format's bytes on a stream; an
// OutputSink decides where those bytes land (files next to a prefix, or
// memory for tests). write_outputs() writes several formats at once.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "trace/model/trace.h"

namespace brickprof {

class Exporter {
 public:
  virtual ~Exporter() = default;
  // The format's name in BRICKPROF_FORMATS ("json", "tree", ...).
  virtual std::string_view name() const = 0;
  // Appended to the output prefix (".json", ".tree.txt", ...).
  virtual std::string_view extension() const = 0;
  // Streams the whole output. May throw (bad_alloc, stream errors); sinks
  // catch and report.
  virtual void write(const Trace& trace, std::ostream& out) const = 0;
};

// A trace written without being held whole (the agent's exit write,
// agent/io/trace_stream.h): it writes each format itself, byte for byte what
// the exporter writes for the same trace.
class StreamedTrace {
 public:
  virtual ~StreamedTrace() = default;
  virtual void write_json(std::ostream& out) = 0;
  virtual void write_tree(std::ostream& out) = 0;
  virtual void write_dot(std::ostream& out) = 0;
  virtual void write_chrome(std::ostream& out) = 0;
  virtual void write_folded(std::ostream& out) = 0;
  virtual void write_perfetto(std::ostream& out) = 0;
  // The JSON through a gzip layer (export_json_gz.cpp).
  void write_json_gz(std::ostream& out);
};

// The exporter for a format name, or nullptr if the name is unknown.
std::unique_ptr<Exporter> make_exporter(std::string_view name);
// Every format name, in SPEC order: json, tree, dot, chrome, folded, then
// json.gz and perfetto.
const std::vector<std::string_view>& exporter_names();
// The longest format extension that `path` ends with (".trace.json" before
// ".json"), or "". Reads the format table only: safe at any point of exit.
std::string_view format_extension_of(std::string_view path);
// Splits "json,tree" into names (empty items skipped, spaces trimmed).
std::vector<std::string> parse_formats(std::string_view list);

class OutputSink {
 public:
  virtual ~OutputSink() = default;
  // Writes one format's output, whatever `fill` streams (a writer that
  // holds no Trace, like the agent's exit write, streams its own). Returns
  // "" on success, else one line that says what failed. Never throws.
  virtual std::string emit(std::string_view format, std::string_view extension,
                           const std::function<void(std::ostream&)>& fill) = 0;
  // Writes one exporter's output of `trace`.
  std::string emit(const Exporter& exporter, const Trace& trace) {
    return emit(exporter.name(), exporter.extension(),
                [&](std::ostream& out) { exporter.write(trace, out); });
  }
  // Where a format with that extension lands, as a user would name it (a
  // file's path; the format's name for memory).
  virtual std::string where(std::string_view format, std::string_view extension) const = 0;
};

// Writes `<prefix><extension>` atomically: a temporary file in the same
// directory, then rename(), so a reader never sees half a file and a failed
// write leaves any earlier output in place (see atomic_file.h).
class FileSink : public OutputSink {
 public:
  explicit FileSink(std::string prefix) : prefix_(std::move(prefix)) {}
  using OutputSink::emit;
  std::string emit(std::string_view format, std::string_view extension,
                   const std::function<void(std::ostream&)>& fill) override;
  std::string where(std::string_view format, std::string_view extension) const override;
  // The file one exporter writes to.
  std::string path_for(const Exporter& exporter) const;

 private:
  std::string prefix_;
};

// Keeps each format's text in memory, keyed by format name.
class MemorySink : public OutputSink {
 public:
  using OutputSink::emit;
  std::string emit(std::string_view format, std::string_view extension,
                   const std::function<void(std::ostream&)>& fill) override;
  std::string where(std::string_view format, std::string_view) const override {
    return std::string(format);
  }
  const std::map<std::string, std::string, std::less<>>& outputs() const { return outputs_; }
  // The text written for a format, or "" if none.
  const std::string& text(std::string_view format) const;

 private:
  std::map<std::string, std::string, std::less<>> outputs_;
};

// What a write of several formats did: where each written one went, in
// order, and one line per format not written, naming it.
struct WrittenOutputs {
  std::vector<std::string> files;
  std::vector<std::string> failures;
};

// Writes each named format through the sink, the JSON first: every command
// reads it, and on a disk about to fill it gets the room. Never throws, so
// the agent can call it at exit inside the host process.
WrittenOutputs write_outputs(const Trace& trace, const std::vector<std::string>& formats,
                             OutputSink& sink);
WrittenOutputs write_outputs(StreamedTrace& trace, const std::vector<std::string>& formats,
                             OutputSink& sink);

// Writes what `fill` streams to `path` atomically, as FileSink does, through
// a PendingFile (atomic_file.h): safe in a folder others can write to.
// Returns "" or an error line; exceptions from `fill` become that line.
std::string write_file_atomically(const std::string& path,
                                  const std::function<void(std::ostream&)>& fill);

}  // namespace brickprof
