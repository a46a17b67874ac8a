// The JSON trace through a gzip layer (see export_json_gz.h).
#include "trace/formats/json_gz.h"

#include <stdexcept>

#include "trace/json/gzip_stream.h"
#include "trace/json/trace_json.h"
#include "trace/output/sink.h"

namespace brickprof {
namespace {

// What `write_json` streams, compressed onto `out`.
template <typename WriteJson>
void gzip_json(std::ostream& out, WriteJson write_json) {
  GzipStreamBuf gzip(out.rdbuf());
  std::ostream compressed(&gzip);
  write_json(compressed);
  compressed.flush();
  if (!compressed) throw std::runtime_error("write failed");
  gzip.finish();
}

}  // namespace

void write_trace_json_gz(const Trace& trace, std::ostream& out) {
  gzip_json(out, [&](std::ostream& json) { write_trace_json(trace, json); });
}

void StreamedTrace::write_json_gz(std::ostream& out) {
  gzip_json(out, [&](std::ostream& json) { write_json(json); });
}

}  // namespace brickprof
