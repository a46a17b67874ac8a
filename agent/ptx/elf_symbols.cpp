// Kernel names from a cubin (ELF64): global FUNC symbols whose st_other
// carries NVIDIA's entry flag, i.e. __global__ functions, not device ones.
#include <elf.h>

#include <cstring>

#include "agent/ptx/module_image.h"

namespace brickprof::agent {
namespace {

constexpr unsigned char kStoCudaEntry = 0x10;

bool is_elf64(const uint8_t* p) {
  return std::memcmp(p, ELFMAG, SELFMAG) == 0 && p[EI_CLASS] == ELFCLASS64;
}

}  // namespace

size_t elf_image_size(const void* elf) {
  const auto* p = static_cast<const uint8_t*>(elf);
  if (p == nullptr || !is_elf64(p)) return 0;
  Elf64_Ehdr eh;
  std::memcpy(&eh, p, sizeof eh);
  size_t end = eh.e_shoff + static_cast<size_t>(eh.e_shnum) * eh.e_shentsize;
  size_t ph_end = eh.e_phoff + static_cast<size_t>(eh.e_phnum) * eh.e_phentsize;
  return end > ph_end ? end : ph_end;
}

bool cubin_kernel_names(const void* elf, size_t size, std::vector<std::string>* names) {
  const auto* p = static_cast<const uint8_t*>(elf);
  if (size < sizeof(Elf64_Ehdr) || !is_elf64(p)) return false;
  Elf64_Ehdr eh;
  std::memcpy(&eh, p, sizeof eh);
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > size ||
      eh.e_shnum > (size - eh.e_shoff) / sizeof(Elf64_Shdr)) {
    return false;
  }
  auto section = [&](size_t i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, p + eh.e_shoff + i * sizeof sh, sizeof sh);
    return sh;
  };
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr symtab = section(i);
    if (symtab.sh_type != SHT_SYMTAB) continue;
    if (symtab.sh_link >= eh.e_shnum || symtab.sh_offset > size ||
        symtab.sh_size > size - symtab.sh_offset) {
      return false;
    }
    Elf64_Shdr strtab = section(symtab.sh_link);
    if (strtab.sh_offset > size || strtab.sh_size > size - strtab.sh_offset) return false;
    const char* strs = reinterpret_cast<const char*>(p + strtab.sh_offset);
    size_t count = symtab.sh_size / sizeof(Elf64_Sym);
    for (size_t s = 0; s < count; ++s) {
      Elf64_Sym sym;
      std::memcpy(&sym, p + symtab.sh_offset + s * sizeof sym, sizeof sym);
      if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || ELF64_ST_BIND(sym.st_info) != STB_GLOBAL ||
          (sym.st_other & kStoCudaEntry) == 0 || sym.st_name >= strtab.sh_size) {
        continue;
      }
      size_t len = strnlen(strs + sym.st_name, strtab.sh_size - sym.st_name);
      names->emplace_back(strs + sym.st_name, len);
    }
  }
  return true;
}

}  // namespace brickprof::agent
