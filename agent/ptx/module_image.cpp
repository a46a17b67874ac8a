// Image classification and module extraction for the PTX registry.
#include "agent/ptx/module_image.h"

#include <cxxabi.h>
#include <elf.h>

#include <cstdlib>
#include <cstring>

#include "agent/ptx/fatbin.h"
#include "agent/ptx/hash.h"

namespace brickprof::agent {
namespace {

uint32_t magic_of(const void* image) {
  uint32_t m;
  std::memcpy(&m, image, sizeof m);
  return m;
}

// PTX is hashed without the NUL terminator and fatbin padding, so the same
// text hashes the same whether it came alone or out of a fatbin.
std::string_view trim_nuls(std::string_view text) {
  while (!text.empty() && text.back() == '\0') text.remove_suffix(1);
  return text;
}

void add_ptx(std::string_view text, uint32_t arch, bool keep_source, std::vector<ModuleInfo>* out) {
  text = trim_nuls(text);
  ModuleInfo m;
  m.hash = fnv1a64(text);
  m.is_ptx = true;
  m.sm_arch = arch;
  m.bytes = text.size();
  m.kernels = ptx_entry_names(text);
  m.kernel_params = ptx_entry_params(text);
  if (keep_source) m.source.assign(text);
  out->push_back(std::move(m));
}

bool add_cubin(const void* elf, size_t size, uint32_t arch, std::vector<ModuleInfo>* out,
               std::string* error) {
  ModuleInfo m;
  m.hash = fnv1a64(elf, size);
  m.sm_arch = arch;
  m.bytes = size;
  if (!cubin_kernel_names(elf, size, &m.kernels)) {
    *error = "malformed cubin ELF";
    return false;
  }
  out->push_back(std::move(m));
  return true;
}

}  // namespace

ImageKind classify_image(const void* image, size_t size) {
  if (image == nullptr || (size != 0 && size < 4)) return ImageKind::kUnknown;
  uint32_t magic = magic_of(image);
  if (magic == kFatbinWrapperMagic || magic == kFatbinMagic) return ImageKind::kFatbin;
  if (std::memcmp(image, ELFMAG, SELFMAG) == 0) return ImageKind::kCubin;
  // PTX is text; nvcc's starts with a comment or a directive, after blanks.
  const char* c = static_cast<const char*>(image);
  size_t limit = size != 0 ? size : 4096;
  for (size_t i = 0; i < limit && c[i] != '\0'; ++i) {
    if (c[i] == ' ' || c[i] == '\t' || c[i] == '\n' || c[i] == '\r') continue;
    return (c[i] == '/' || c[i] == '.') ? ImageKind::kPtx : ImageKind::kUnknown;
  }
  return ImageKind::kUnknown;
}

bool extract_modules(const void* image, size_t size, bool keep_source,
                     std::vector<ModuleInfo>* out, std::string* error) {
  switch (classify_image(image, size)) {
    case ImageKind::kPtx: {
      const char* text = static_cast<const char*>(image);
      size_t len = size != 0 ? strnlen(text, size) : std::strlen(text);
      add_ptx(std::string_view(text, len), 0, keep_source, out);
      return true;
    }
    case ImageKind::kCubin: {
      size_t n = size != 0 ? size : elf_image_size(image);
      if (n == 0) {
        *error = "unsized ELF image";
        return false;
      }
      return add_cubin(image, n, 0, out, error);
    }
    case ImageKind::kFatbin: {
      const void* fatbin = unwrap_fatbin(image);
      // A wrapper's size says nothing about the fatbin it points to.
      size_t limit = fatbin == image ? size : 0;
      std::vector<FatbinEntry> entries;
      bool ok = parse_fatbin(fatbin, limit, &entries, error);
      std::string bytes;
      for (const FatbinEntry& e : entries) {
        std::string why;
        if (e.kind != static_cast<uint16_t>(FatbinEntryKind::kPtx) &&
            e.kind != static_cast<uint16_t>(FatbinEntryKind::kCubin)) {
          continue;  // newer kinds (e.g. LTO IR) carry no kernels we can name
        }
        if (!entry_contents(e, &bytes, &why)) {
          *error = why;
          ok = false;
          continue;
        }
        if (e.kind == static_cast<uint16_t>(FatbinEntryKind::kPtx)) {
          add_ptx(bytes, e.sm_arch, keep_source, out);
        } else if (!add_cubin(bytes.data(), bytes.size(), e.sm_arch, out, &why)) {
          *error = why;
          ok = false;
        }
      }
      return ok;
    }
    case ImageKind::kUnknown:
      break;
  }
  *error = "unrecognised module image";
  return false;
}

std::string demangle(const char* mangled) {
  if (mangled == nullptr) return {};
  if (mangled[0] != '_' || mangled[1] != 'Z') return mangled;
  int status = 0;
  char* out = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  if (status != 0 || out == nullptr) return mangled;
  std::string result(out);
  std::free(out);
  return result;
}

}  // namespace brickprof::agent
