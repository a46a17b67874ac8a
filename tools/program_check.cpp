// ELF and mode checks before `run` starts a program (see program_check.h).
#include "tools/program_check.h"

#include <elf.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

namespace brickprof::cli {
namespace {

// The file execvp would run for `program`: itself when it has a '/', else
// the first executable match on PATH.
std::string resolve(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/bin:/usr/bin";
  size_t at = 0;
  while (at <= dirs.size()) {
    size_t colon = dirs.find(':', at);
    if (colon == std::string::npos) colon = dirs.size();
    std::string dir = dirs.substr(at, colon - at);
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    at = colon + 1;
  }
  return "";
}

// The secure-execution triggers a non-root user meets: set-user-ID or
// set-group-ID bits that change the IDs, or file capabilities.
std::string secure_mode_problem(const std::string& file) {
  struct stat st{};
  if (::stat(file.c_str(), &st) != 0) return "";
  // On a nosuid mount exec ignores the bits and the capabilities.
  struct statvfs fs{};
  if (::statvfs(file.c_str(), &fs) == 0 && (fs.f_flag & ST_NOSUID)) return "";
  const char* why = nullptr;
  if ((st.st_mode & S_ISUID) && st.st_uid != ::geteuid())
    why = "set-user-ID";
  else if ((st.st_mode & S_ISGID) && st.st_gid != ::getegid())
    why = "set-group-ID";
  else if (::getxattr(file.c_str(), "security.capability", nullptr, 0) > 0)
    why = "given file capabilities";
  if (why == nullptr) return "";
  return file + " is " + why + ": the loader ignores LD_PRELOAD for it (secure-execution mode)";
}

struct ElfFacts {
  bool elf = false;
  bool is64 = false;
  bool shared_object = false;  // ET_DYN
  bool has_interpreter = false;  // PT_INTERP: the dynamic loader runs
};

ElfFacts read_elf(const std::string& file) {
  ElfFacts f;
  std::ifstream in(file, std::ios::binary);
  Elf64_Ehdr h{};
  in.read(reinterpret_cast<char*>(&h), sizeof h);
  if (in.gcount() < EI_NIDENT || std::memcmp(h.e_ident, ELFMAG, SELFMAG) != 0) return f;
  f.elf = true;
  f.is64 = h.e_ident[EI_CLASS] == ELFCLASS64;
  if (!f.is64 || in.gcount() < static_cast<std::streamsize>(sizeof h)) return f;
  f.shared_object = h.e_type == ET_DYN;
  if (h.e_phentsize < sizeof(Elf64_Phdr)) return f;
  for (unsigned i = 0; i < h.e_phnum && i < 4096; ++i) {
    Elf64_Phdr ph{};
    in.seekg(static_cast<std::streamoff>(h.e_phoff + static_cast<uint64_t>(i) * h.e_phentsize));
    in.read(reinterpret_cast<char*>(&ph), sizeof ph);
    if (!in) break;
    if (ph.p_type == PT_INTERP) f.has_interpreter = true;
  }
  return f;
}

// The interpreter a "#!" line names, or "".
std::string script_interpreter(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::string line;
  if (!std::getline(in, line) || line.rfind("#!", 0) != 0) return "";
  const size_t start = line.find_first_not_of(" \t", 2);
  if (start == std::string::npos) return "";
  return line.substr(start, line.find_first_of(" \t\r", start) - start);
}

}  // namespace

std::string preload_problem(const std::string& program) {
  std::string file = resolve(program);
  for (int depth = 0; depth < 4 && !file.empty(); ++depth) {
    if (std::string secure = secure_mode_problem(file); !secure.empty()) return secure;
    const std::string interpreter = script_interpreter(file);
    if (!interpreter.empty()) {
      file = interpreter;  // the loader runs for the interpreter
      continue;
    }
    const ElfFacts elf = read_elf(file);
    if (!elf.elf) return "";
    if (!elf.is64) return file + " is a 32-bit program: the 64-bit agent cannot load into it";
    if (!elf.has_interpreter)
      return file + " is statically linked: no dynamic loader runs, so LD_PRELOAD cannot load "
                    "the agent";
    return "";
  }
  return "";
}

std::string agent_file_problem(const std::string& agent) {
  const ElfFacts elf = read_elf(agent);
  if (!elf.elf) return agent + ": not an ELF file (the agent is libbrickprof.so)";
  if (!elf.is64) return agent + ": a 32-bit library; the agent is 64-bit";
  if (!elf.shared_object) return agent + ": not a shared library (the agent is libbrickprof.so)";
  return "";
}

}  // namespace brickprof::cli
