// PTX registry bookkeeping (see registry.h).
#include "agent/ptx/registry.h"

namespace brickprof::agent {

bool PtxRegistry::add_image(const void* image, size_t size, std::string* error) {
  std::vector<ModuleInfo> found;
  bool ok = extract_modules(image, size, keep_source_, &found, error);
  for (ModuleInfo& m : found) add_module(std::move(m));
  return ok;
}

void PtxRegistry::add_module(ModuleInfo module) {
  std::lock_guard<std::mutex> lock(mu_);
  if (by_hash_.count(module.hash) != 0) return;
  for (const std::string& k : module.kernels) {
    KernelHashes& h = kernels_[k];
    uint64_t& slot = module.is_ptx ? h.ptx : h.cubin;
    if (slot == 0) slot = module.hash;  // first module that defines it wins
  }
  for (size_t i = 0; i < module.kernel_params.size() && i < module.kernels.size(); ++i)
    params_.try_emplace(module.kernels[i], module.kernel_params[i]);
  by_hash_.emplace(module.hash, modules_.size());
  modules_.push_back(std::move(module));
}

uint64_t PtxRegistry::hash_for_kernel(std::string_view mangled) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = kernels_.find(std::string(mangled));
  if (it == kernels_.end()) return 0;
  return it->second.ptx != 0 ? it->second.ptx : it->second.cubin;
}

bool PtxRegistry::params_for_kernel(std::string_view mangled,
                                    std::vector<KernelParam>* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = params_.find(std::string(mangled));
  if (it == params_.end()) return false;
  *out = it->second;
  return true;
}

size_t PtxRegistry::module_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return modules_.size();
}

std::vector<PtxModule> PtxRegistry::export_modules() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<PtxModule> out;
  out.reserve(modules_.size());
  for (const ModuleInfo& m : modules_) {
    PtxModule p;
    p.hash = m.hash;
    p.kind = m.is_ptx ? "ptx" : "cubin";
    p.bytes = m.bytes;
    p.kernels = m.kernels;
    p.source = m.source;
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace brickprof::agent
