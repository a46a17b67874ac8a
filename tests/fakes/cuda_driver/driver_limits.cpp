// The fake driver's launch limits (driver_limits.h). The figures are
// sm_90's (CUDA Programming Guide, "Technical Specifications per Compute
// Capability"): 1024 threads per block, block 1024 x 1024 x 64, grid
// (2^31-1) x 65535 x 65535, 48 KiB of shared memory per block by default and
// 227 KiB opted in. cuda.h documents CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_
// SIZE_BYTES: a launch with more dynamic shared memory than it "will fail";
// it defaults to MAX_SHARED_MEMORY_PER_BLOCK - SHARED_SIZE_BYTES (static) and
// may be raised to MAX_SHARED_MEMORY_PER_BLOCK_OPTIN - SHARED_SIZE_BYTES.
// The real driver says CUDA_ERROR_INVALID_VALUE for all of these (e.g.
// cupy/cupy#2118 for excess shared memory; JuliaGPU/CUDA.jl#3135 for
// cuFuncSetAttribute above the opt-in maximum).
#include "driver_limits.h"

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <sstream>

#include "fake_cuda.h"

namespace fake_cuda {
namespace {

constexpr size_t npos = std::string::npos;

// The text between the braces of entry `name`'s body; empty if none.
std::string entry_body(const std::string& ptx, const std::string& name) {
  const size_t at = ptx.find(".entry " + name + "(");
  if (at == npos) return "";
  const size_t open = ptx.find('{', at);  // the parameters sit in ( ), not { }
  int depth = 0;
  for (size_t i = open; i < ptx.size(); ++i) {
    if (ptx[i] == '{') ++depth;
    if (ptx[i] == '}' && --depth == 0) return ptx.substr(open + 1, i - open - 1);
  }
  return "";
}

// Bytes of ".shared [.align N] [.vN] .TYPE NAME[D]...;" (a line that starts
// with .shared, so neither .extern .shared nor ld.shared); 0 otherwise.
size_t declared_bytes(const std::string& line, std::string* name) {
  std::istringstream words(line);
  std::string w;
  if (!(words >> w) || w != ".shared") return 0;
  size_t element = 0, lanes = 1;
  while (words >> w) {
    if (w == ".align") {
      words >> w;  // its operand
    } else if (w == ".v2" || w == ".v4") {
      lanes = static_cast<size_t>(w[2] - '0');
    } else if (w.size() > 2 && w[0] == '.' && std::isdigit(static_cast<unsigned char>(w.back()))) {
      element = std::strtoul(w.c_str() + w.find_first_of("0123456789"), nullptr, 10) / 8;
    } else {
      break;  // the name, with its dimensions
    }
  }
  *name = w.substr(0, w.find_first_of("[;"));
  size_t bytes = element * lanes;
  for (size_t at = w.find('['); at != npos; at = w.find('[', at + 1))
    bytes *= std::strtoul(w.c_str() + at + 1, nullptr, 10);
  return bytes;
}

// Whether `body` mentions `name` as a whole identifier.
bool names(const std::string& body, const std::string& name) {
  const auto ident = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
  };
  for (size_t at = body.find(name); at != npos; at = body.find(name, at + 1)) {
    const size_t end = at + name.size();
    if ((at == 0 || !ident(body[at - 1])) && (end == body.size() || !ident(body[end]))) return true;
  }
  return false;
}

std::string dims(const unsigned d[3]) {
  return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
}

}  // namespace

unsigned ptx_static_shared_bytes(const std::string& ptx, const std::string& entry) {
  const std::string body = entry_body(ptx, entry);
  size_t total = 0;
  std::istringstream lines(ptx);
  std::string line, name;
  int depth = 0;  // module scope at 0
  while (std::getline(lines, line)) {
    if (depth == 0) {
      const size_t bytes = declared_bytes(line, &name);
      if (bytes > 0 && names(body, name)) total += bytes;
    }
    for (char c : line) depth += c == '{' ? 1 : c == '}' ? -1 : 0;
  }
  std::istringstream own(body);
  while (std::getline(own, line)) total += declared_bytes(line, &name);
  return static_cast<unsigned>(total);
}

std::string launch_refusal(const KernelLaunch& l) {
  const uint64_t threads = uint64_t{l.block[0]} * l.block[1] * l.block[2];
  if (threads == 0 || uint64_t{l.grid[0]} * l.grid[1] * l.grid[2] == 0)
    return "grid " + dims(l.grid) + " of blocks " + dims(l.block) + " is empty";
  static const char axis[] = "xyz";
  for (int i = 0; i < 3; ++i)
    if (l.block[i] > kMaxBlockDim[i])
      return std::string("block.") + axis[i] + " = " + std::to_string(l.block[i]) + " exceeds " +
             std::to_string(kMaxBlockDim[i]);
  if (threads > kMaxThreadsPerBlock)
    return "block " + dims(l.block) + " has " + std::to_string(threads) + " threads, over the " +
           std::to_string(kMaxThreadsPerBlock) + " a block may have";
  for (int i = 0; i < 3; ++i)
    if (l.grid[i] > kMaxGridDim[i])
      return std::string("grid.") + axis[i] + " = " + std::to_string(l.grid[i]) + " exceeds " +
             std::to_string(kMaxGridDim[i]);
  const CUfunc_st& f = *l.function;
  if (static_cast<int64_t>(l.shared_bytes) > f.max_dynamic_shared)
    return std::to_string(l.shared_bytes) +
           " bytes of dynamic shared memory exceed the function's limit of " +
           std::to_string(f.max_dynamic_shared) + " (static " + std::to_string(f.static_shared) +
           "; cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) raises it)";
  return "";
}

std::string dynamic_shared_refusal(const CUfunc_st& f, int bytes) {
  if (bytes < 0) return "a negative size, " + std::to_string(bytes);
  if (int64_t{bytes} + f.static_shared > kSharedPerBlockOptin)
    return std::to_string(bytes) + " bytes of dynamic shared memory plus " +
           std::to_string(f.static_shared) + " static exceed the device's opt-in maximum of " +
           std::to_string(kSharedPerBlockOptin) + " per block";
  return "";
}

}  // namespace fake_cuda
