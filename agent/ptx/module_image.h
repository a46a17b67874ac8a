// What a loaded module image is made of: classifies an image handed to the
// driver (PTX text, cubin ELF, fatbin, wrapped fatbin) and extracts every PTX
// and cubin in it with its hash and kernel (entry) names.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace brickprof::agent {

enum class ImageKind { kUnknown, kPtx, kCubin, kFatbin };

// One parameter of a kernel entry, as its PTX declares it.
struct KernelParam {
  uint32_t bytes = 0;    // .u64: 8; .align 8 .b8 p[24]: 24
  bool address = false;  // a 64-bit integer (.u64, .b64, .s64): what a pointer is passed as
};

struct ModuleInfo {
  uint64_t hash = 0;
  bool is_ptx = false;  // else cubin
  uint32_t sm_arch = 0;  // from the fatbin entry, 0 if unknown
  uint64_t bytes = 0;    // uncompressed size
  std::vector<std::string> kernels;  // mangled entry names
  // PTX only: each kernel's parameters (parallel to `kernels`); empty for a cubin.
  std::vector<std::vector<KernelParam>> kernel_params;
  std::string source;    // PTX text, kept only when asked for
};

// `size` may be 0 when the caller does not know it (cuModuleLoadData): PTX is
// then read up to its NUL, fatbins and ELF images by their own headers.
ImageKind classify_image(const void* image, size_t size);

// Appends the modules in `image`. Returns false (with a reason, entries found
// so far kept) on malformed or undecodable content.
bool extract_modules(const void* image, size_t size, bool keep_source,
                     std::vector<ModuleInfo>* out, std::string* error);

// Mangled names of the `.entry` directives (kernels) in PTX text.
std::vector<std::string> ptx_entry_names(std::string_view ptx);

// The parameter list of each `.entry` in PTX text, in the order of
// ptx_entry_names().
std::vector<std::vector<KernelParam>> ptx_entry_params(std::string_view ptx);

// Kernel names in a cubin: global FUNC symbols marked as CUDA entries.
// Returns false on a malformed ELF.
bool cubin_kernel_names(const void* elf, size_t size, std::vector<std::string>* names);
// Size of an ELF64 image from its header (end of the section header table).
size_t elf_image_size(const void* elf);

// Demangled name ("demo::scale<float>(float*, float, int)"), or the input
// unchanged when it is not a mangled C++ name.
std::string demangle(const char* mangled);

}  // namespace brickprof::agent
