// Falling back from json.gz to json when zlib is missing (see compressed_formats.h).
#include "agent/io/compressed_formats.h"

#include <algorithm>
#include <string>

#include "trace/json/zlib_library.h"

namespace brickprof::agent {

void settle_compressed_formats(Config& config) {
  std::vector<std::string>& formats = config.formats;
  auto gz = std::find(formats.begin(), formats.end(), "json.gz");
  if (gz == formats.end()) return;
  std::string why;
  if (zlib_library(&why)) return;
  if (std::find(formats.begin(), formats.end(), "json") == formats.end())
    *gz = "json";
  else
    formats.erase(gz);
  config.warnings.push_back("BRICKPROF_FORMATS: json.gz needs zlib (" + why +
                            "); wrote the uncompressed json instead");
}

}  // namespace brickprof::agent
