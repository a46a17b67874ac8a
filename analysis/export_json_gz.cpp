// The JSON trace through a gzip layer (see export_json_gz.h).
#include "analysis/export_json_gz.h"

#include <stdexcept>

#include "analysis/gzip_stream.h"
#include "analysis/trace_json.h"

namespace brickprof {

void write_trace_json_gz(const Trace& trace, std::ostream& out) {
  GzipStreamBuf gzip(out.rdbuf());
  std::ostream compressed(&gzip);
  write_trace_json(trace, compressed);
  compressed.flush();
  if (!compressed) throw std::runtime_error("write failed");
  gzip.finish();
}

}  // namespace brickprof
