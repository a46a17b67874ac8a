// Loading the MPI communicator plugin (see communicator.h).
#include "kernels/communicator.h"

#include <dlfcn.h>
#include <unistd.h>

#include <climits>

namespace bricklayer {

std::unique_ptr<Communicator> open_mpi_communicator(std::string* error) {
  char exe[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) {
    *error = "--tp: cannot find this executable's folder (/proc/self/exe)";
    return nullptr;
  }
  std::string path(exe, static_cast<size_t>(n));
  path = path.substr(0, path.rfind('/') + 1) + "libbricklayer_mpi.so";
  // Global: Open MPI's components, loaded later, need libmpi's symbols.
  void* plugin = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!plugin) {
    const char* why = dlerror();
    *error = "--tp needs MPI: " + path + " could not be loaded (" + (why ? why : "unknown error") +
             "); build bricklayer where Open MPI is installed (libopenmpi-dev)";
    return nullptr;
  }
  using OpenFn = Communicator*(char*, size_t);
  auto* open = reinterpret_cast<OpenFn*>(dlsym(plugin, "bricklayer_open_mpi"));
  char why[256] = {0};
  Communicator* comm = open ? open(why, sizeof why) : nullptr;
  if (!comm) {
    *error = std::string("--tp: ") + (open ? why : "the MPI plugin has no bricklayer_open_mpi");
    return nullptr;
  }
  return std::unique_ptr<Communicator>(comm);  // the plugin stays loaded
}

}  // namespace bricklayer
