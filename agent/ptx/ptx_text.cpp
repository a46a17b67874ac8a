// Kernel names from PTX text (the identifiers after `.entry`) and their
// parameter lists.
#include <cctype>

#include "agent/ptx/module_image.h"

namespace brickprof::agent {

std::vector<std::string> ptx_entry_names(std::string_view ptx) {
  std::vector<std::string> names;
  constexpr std::string_view kEntry = ".entry";
  size_t pos = 0;
  while ((pos = ptx.find(kEntry, pos)) != std::string_view::npos) {
    size_t i = pos + kEntry.size();
    pos = i;
    // Must be the whole directive (".entry" then white space), not ".entryx".
    if (i >= ptx.size() || !std::isspace(static_cast<unsigned char>(ptx[i]))) continue;
    while (i < ptx.size() && std::isspace(static_cast<unsigned char>(ptx[i]))) ++i;
    size_t start = i;
    // PTX identifiers: letters, digits, _ $ % (and . after the first char).
    while (i < ptx.size()) {
      char c = ptx[i];
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' ||
          (c == '.' && i > start)) {
        ++i;
      } else {
        break;
      }
    }
    if (i > start) names.emplace_back(ptx.substr(start, i - start));
  }
  return names;
}

namespace {

bool space(char c) { return std::isspace(static_cast<unsigned char>(c)); }

// The bytes of a PTX fundamental type (".u64", ".f32", ".b8"); 0 if not one.
uint32_t type_bytes(std::string_view type) {
  if (type.size() < 3 || type[0] != '.') return 0;
  const char kind = type[1];
  if (kind != 'u' && kind != 's' && kind != 'b' && kind != 'f') return 0;
  uint32_t bits = 0;
  for (char c : type.substr(2)) {
    if (c < '0' || c > '9') return 0;
    bits = bits * 10 + static_cast<uint32_t>(c - '0');
  }
  return bits % 8 == 0 ? bits / 8 : 0;
}

// One ".param [.align N] .TYPE [.ptr ...] NAME[[K]]" declaration.
KernelParam parse_param(std::string_view decl) {
  KernelParam p;
  std::string_view type;
  std::string_view name;
  size_t i = 0;
  while (i < decl.size()) {
    while (i < decl.size() && space(decl[i])) ++i;
    size_t start = i;
    while (i < decl.size() && !space(decl[i])) ++i;
    std::string_view word = decl.substr(start, i - start);
    if (word.empty()) break;
    if (word == ".param" || word == ".align" || word == ".ptr" || word == ".global" ||
        word == ".const" || word == ".shared" || word == ".local" ||
        (!word.empty() && word[0] >= '0' && word[0] <= '9'))
      continue;
    if (type.empty() && type_bytes(word) != 0) {
      type = word;
      continue;
    }
    if (!type.empty()) name = word;
  }
  const uint32_t element = type_bytes(type);
  uint32_t count = 1;
  if (size_t open = name.find('['); open != std::string_view::npos) {
    count = 0;
    for (size_t j = open + 1; j < name.size() && name[j] >= '0' && name[j] <= '9'; ++j)
      count = count * 10 + static_cast<uint32_t>(name[j] - '0');
  }
  p.bytes = element * count;
  p.address = count == 1 && element == 8 && type[1] != 'f';
  return p;
}

}  // namespace

std::vector<std::vector<KernelParam>> ptx_entry_params(std::string_view ptx) {
  std::vector<std::vector<KernelParam>> all;
  constexpr std::string_view kEntry = ".entry";
  size_t pos = 0;
  while ((pos = ptx.find(kEntry, pos)) != std::string_view::npos) {
    size_t i = pos + kEntry.size();
    pos = i;
    if (i >= ptx.size() || !space(ptx[i])) continue;  // as ptx_entry_names
    while (i < ptx.size() && space(ptx[i])) ++i;
    const size_t start = i;
    while (i < ptx.size() && (std::isalnum(static_cast<unsigned char>(ptx[i])) || ptx[i] == '_' ||
                              ptx[i] == '$' || ptx[i] == '%' || (ptx[i] == '.' && i > start)))
      ++i;
    if (i == start) continue;
    std::vector<KernelParam>& params = all.emplace_back();
    while (i < ptx.size() && space(ptx[i])) ++i;
    if (i >= ptx.size() || ptx[i] != '(') continue;  // no parameters
    const size_t close = ptx.find(')', i);
    if (close == std::string_view::npos) continue;
    std::string_view list = ptx.substr(i + 1, close - i - 1);
    while (!list.empty()) {
      const size_t comma = list.find(',');
      std::string_view decl = list.substr(0, comma);
      if (decl.find(".param") != std::string_view::npos) params.push_back(parse_param(decl));
      list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    }
  }
  return all;
}

}  // namespace brickprof::agent
