// A launch's pointer arguments (see kernel_args.h).
#include "agent/cupti/kernel_args.h"

#include <cstring>
#include <string>

#include "agent/ptx/module_image.h"

namespace brickprof::agent {
namespace {

// Past it a kernel's parameter list is not believed (cuFuncGetParamInfo
// answers CUDA_ERROR_INVALID_VALUE past the last one).
constexpr size_t kMaxParams = 1024;

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// Removes every whole word `word` from `s`; true if there was one.
bool strip_word(std::string& s, std::string_view word) {
  bool found = false;
  for (size_t at = s.find(word); at != std::string::npos; at = s.find(word, at)) {
    const bool starts = at == 0 || s[at - 1] == ' ' || s[at - 1] == '*';
    const size_t end = at + word.size();
    const bool ends = end == s.size() || s[end] == ' ' || s[end] == '*';
    if (starts && ends) {
      s.erase(at, word.size());
      found = true;
    } else {
      at = end;
    }
  }
  return found;
}

ElementType element_of(std::string_view base) {
  struct Name {
    std::string_view name;
    ElementType type;
  };
  static constexpr Name kNames[] = {
      {"float", ElementType::kF32},          {"float2", ElementType::kF32},
      {"float4", ElementType::kF32},         {"double", ElementType::kF64},
      {"__half", ElementType::kF16},         {"half", ElementType::kF16},
      {"__half2", ElementType::kF16},        {"__nv_bfloat16", ElementType::kBf16},
      {"__nv_bfloat162", ElementType::kBf16}, {"int", ElementType::kI32},
      {"long", ElementType::kI64},           {"long long", ElementType::kI64},
      {"signed char", ElementType::kI8},     {"char", ElementType::kI8},
      {"unsigned char", ElementType::kU8},
  };
  for (const Name& n : kNames)
    if (base == n.name) return n.type;
  return ElementType::kBytes;
}

Pointee pointee_of(std::string_view param) {
  std::string p(trim(param));
  Pointee out;
  // Qualifiers of the pointer itself ("float* __restrict__") say nothing of
  // what it points to.
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (std::string_view q : {" __restrict__", " __restrict", " const", " volatile"})
      if (p.size() > q.size() && p.compare(p.size() - q.size(), q.size(), q) == 0) {
        p.resize(p.size() - q.size());
        stripped = true;
      }
  }
  if (p.empty() || p.back() != '*') return out;
  out.pointer = true;
  p.pop_back();
  if (!p.empty() && p.back() == '*') return out;  // a pointer to pointers: bytes
  out.read_only = strip_word(p, "const");
  strip_word(p, "volatile");
  strip_word(p, "__restrict__");
  strip_word(p, "__restrict");
  out.type = element_of(trim(p));
  return out;
}

}  // namespace

std::vector<Pointee> pointees_of(std::string_view demangled) {
  std::vector<Pointee> out;
  // The parameter list: the last top-level parenthesis pair.
  if (demangled.empty() || demangled.back() != ')') return out;
  int depth = 0;
  size_t open = std::string_view::npos;
  for (size_t i = demangled.size(); i-- > 0;) {
    if (demangled[i] == ')') ++depth;
    if (demangled[i] == '(' && --depth == 0) {
      open = i;
      break;
    }
  }
  if (open == std::string_view::npos) return out;
  std::string_view list = demangled.substr(open + 1, demangled.size() - open - 2);
  if (trim(list).empty()) return out;
  int nesting = 0;
  size_t start = 0;
  for (size_t i = 0; i <= list.size(); ++i) {
    const char c = i < list.size() ? list[i] : ',';
    if (c == '<' || c == '(') ++nesting;
    if (c == '>' || c == ')') --nesting;
    if (c == ',' && nesting == 0) {
      out.push_back(pointee_of(list.substr(start, i - start)));
      start = i + 1;
    }
  }
  return out;
}

ArgsFrom pointer_args(const Driver& driver, const PtxRegistry& registry, CUfunction function,
                      std::string_view mangled, void* const* params, std::vector<PointerArg>* out) {
  out->clear();
  std::vector<uint32_t> address_params;
  ArgsFrom from = ArgsFrom::kNone;
  if (driver.func_get_param_info != nullptr && function != nullptr) {
    size_t offset = 0, size = 0;
    size_t i = 0;
    for (; i < kMaxParams && driver.func_get_param_info(function, i, &offset, &size) == CUDA_SUCCESS;
         ++i)
      if (size == 8) address_params.push_back(static_cast<uint32_t>(i));
    if (i > 0) from = ArgsFrom::kDriver;
  }
  if (from == ArgsFrom::kNone) {
    std::vector<KernelParam> ptx;
    if (!registry.params_for_kernel(mangled, &ptx)) return ArgsFrom::kNone;
    for (size_t i = 0; i < ptx.size(); ++i)
      if (ptx[i].address) address_params.push_back(static_cast<uint32_t>(i));
    from = ArgsFrom::kPtx;
  }
  const std::string signature = demangle(std::string(mangled).c_str());
  const std::vector<Pointee> pointees = pointees_of(signature);
  for (uint32_t index : address_params) {
    if (params[index] == nullptr) continue;
    PointerArg a;
    a.index = index;
    std::memcpy(&a.value, params[index], sizeof a.value);
    if (index < pointees.size()) {
      if (!pointees[index].pointer) continue;  // a long or a double: not an address
      a.type = pointees[index].type;
      a.read_only = pointees[index].read_only;
    }
    out->push_back(a);
  }
  return from;
}

}  // namespace brickprof::agent
