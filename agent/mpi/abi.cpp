// MPI ABI detection and PMPI lookup (see abi.h).
#include "agent/mpi/abi.h"

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "agent/lifecycle/critical_section.h"

namespace brickprof::agent::mpi {
namespace {

int collect_name(dl_phdr_info* info, size_t, void* out) {
  if (info->dlpi_name && info->dlpi_name[0])
    static_cast<std::vector<std::string>*>(out)->emplace_back(info->dlpi_name);
  return 0;
}

// `name` in the first loaded object that defines it. The loader's list is
// copied first: dlopen inside dl_iterate_phdr's callback would wait on the
// lock the walk holds.
void* find_in_any_object(const char* name) {
  std::vector<std::string> objects;
  dl_iterate_phdr(collect_name, &objects);
  for (const std::string& path : objects) {
    void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (!handle) continue;
    void* symbol = dlsym(handle, name);
    dlclose(handle);  // NOLOAD took a reference; the object stays loaded
    if (symbol) return symbol;
  }
  return nullptr;
}

// A function: the next definition after the agent's.
void* find_symbol(const char* name) {
  if (void* f = dlsym(RTLD_NEXT, name)) return f;
  if (void* f = dlsym(RTLD_DEFAULT, name)) return f;
  return find_in_any_object(name);
}

// An object such as ompi_mpi_comm_world: the first definition in the global
// order, which is the one the program and the library use (a program that
// names it holds a copy-relocated instance, and the library's references go
// there).
void* find_data(const char* name) {
  if (void* d = dlsym(RTLD_DEFAULT, name)) return d;
  return find_in_any_object(name);
}

Abi detect() {
  Abi a;
  if (void* world = find_data("ompi_mpi_comm_world")) {
    a.known = true;
    a.int_handles = false;
    a.comm_world = reinterpret_cast<Handle>(world);
    a.comm_null = reinterpret_cast<Handle>(find_data("ompi_mpi_comm_null"));
    a.byte_type = reinterpret_cast<Handle>(find_data("ompi_mpi_byte"));
    a.in_place = 1;
    a.status_ignore = 0;
    a.any_source = -1;
    a.proc_null = -2;
    a.root = -4;
    a.error_intern = 17;
    a.status_source_offset = 0;  // {MPI_SOURCE, MPI_TAG, MPI_ERROR, _cancelled, _ucount}
    a.status_tag_offset = 4;
    a.status_bytes = 24;
    return a;
  }
  if (find_symbol("PMPI_Init")) {
    // MPICH's mpi.h constants, shared by the libraries of its ABI.
    a.known = true;
    a.int_handles = true;
    a.comm_world = 0x44000000;
    a.comm_null = 0x04000000;
    a.byte_type = 0x4c00010d;
    a.in_place = static_cast<uintptr_t>(-1);
    a.status_ignore = 1;
    a.any_source = -2;
    a.proc_null = -1;
    a.root = -3;
    a.error_intern = 16;
    a.status_source_offset =
        8;  // {count_lo, count_hi_and_cancelled, MPI_SOURCE, MPI_TAG, MPI_ERROR}
    a.status_tag_offset = 12;
    a.status_bytes = 20;
  }
  return a;
}

}  // namespace

const Abi& abi() {
  static std::atomic<const Abi*> found{nullptr};
  static std::mutex mutex;
  if (const Abi* a = found.load(std::memory_order_acquire)) return *a;
  AgentLock lock(mutex);
  if (const Abi* a = found.load(std::memory_order_relaxed)) return *a;
  // Kept only once a library was found: one loaded later (dlopen) is seen then.
  const Abi now = detect();
  static const Abi unknown;
  if (!now.known) return unknown;
  static Abi detected;
  detected = now;
  found.store(&detected, std::memory_order_release);
  return detected;
}

void* find_pmpi(const char* name) { return find_symbol(name); }

}  // namespace brickprof::agent::mpi
