// The PTX registry: every module image the process loads (PTX, cubin, fatbin
// contents), deduplicated by hash, and which module each kernel came from.
// Module loads are rare, so one mutex is fine here (not on the launch path).
#pragma once

#include <cstdint>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "agent/ptx/module_image.h"
#include "trace/model/trace.h"

namespace brickprof::agent {

class PtxRegistry {
 public:
  explicit PtxRegistry(bool keep_source = false) : keep_source_(keep_source) {}

  // Registers all modules in an image (`size` 0 if unknown). Returns false
  // with a reason if part of it could not be read; what was read is kept.
  bool add_image(const void* image, size_t size, std::string* error);
  void add_module(ModuleInfo module);

  // Hash of the module a kernel (mangled name) came from: its PTX if the
  // registry saw PTX for it, else its cubin; 0 if unknown.
  uint64_t hash_for_kernel(std::string_view mangled) const;
  // The kernel's parameters as the first PTX module defining it declares
  // them; false when no PTX for it was seen (a cubin only).
  bool params_for_kernel(std::string_view mangled, std::vector<KernelParam>* out) const;
  size_t module_count() const;

  // ptx[] for the trace.
  std::vector<PtxModule> export_modules() const;

  // In a fork child: the lock is free again (a parent's thread may have
  // held it, registering a module).
  void reset_lock_after_fork() { new (&mu_) std::mutex(); }

 private:
  struct KernelHashes {
    uint64_t ptx = 0;
    uint64_t cubin = 0;
  };
  bool keep_source_;
  mutable std::mutex mu_;
  std::vector<ModuleInfo> modules_;
  std::unordered_map<uint64_t, size_t> by_hash_;
  std::unordered_map<std::string, KernelHashes> kernels_;
  std::unordered_map<std::string, std::vector<KernelParam>> params_;
};

}  // namespace brickprof::agent
