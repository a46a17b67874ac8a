// Recognising node and edge keys spelled with escapes (see trace_json_keys.h).
#include "trace/json/trace_json_keys.h"

namespace brickprof {

TraceKey key_from_text(std::string_view key) {
  for (size_t i = 1; i < kTraceKeyNames.size(); ++i)
    if (kTraceKeyNames[i] == key) return static_cast<TraceKey>(i);
  return TraceKey::kUnknown;
}

}  // namespace brickprof
