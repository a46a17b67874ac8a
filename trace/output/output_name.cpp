// Output prefixes as users write them (see output_name.h).
#include "trace/output/output_name.h"

#include "trace/model/settings.h"
#include "trace/output/formats.h"

namespace brickprof {

std::string output_prefix_pattern(std::string_view given) {
  if (given.empty()) return std::string(given);
  if (given.back() == '/')
    return std::string(given) + std::string(settings::setting("BRICKPROF_OUTPUT").fallback);
  // The longest extension that ends the name, with a name left before it.
  // The agent calls this at exit: no function-local statics (their
  // destructors may have run).
  const size_t ext = format_extension_of(given).size();
  if (ext == 0 || given.size() == ext || given[given.size() - ext - 1] == '/')
    return std::string(given);
  return std::string(given.substr(0, given.size() - ext));
}

std::string_view output_folder(std::string_view prefix) {
  const size_t slash = prefix.rfind('/');
  if (slash == std::string_view::npos) return {};
  return prefix.substr(0, slash == 0 ? 1 : slash);
}

}  // namespace brickprof
