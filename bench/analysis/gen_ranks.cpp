// Writes the traces of one synthetic MPI job for scripts/bench-ranks and
// bench/jobs.py: RANKS files DIR/rank<R>.json of about EVENTS nodes each
// (generate_trace as rank R of RANKS: each layer ends in a matched
// MPI_Allreduce), each written back to disk before the next, so timing the
// readers later is not competing with the kernel flushing them; FIRST and
// COUNT write only ranks FIRST..FIRST+COUNT-1 of the job (a job larger than
// the disk is written and converted a few ranks at a time).
// Usage: gen_ranks DIR RANKS EVENTS [FIRST [COUNT]]
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "tests/support/trace_generator.h"
#include "trace/json/trace_json.h"
#include "trace/output/whole_trace.h"

int main(int argc, char** argv) {
  if (argc < 4 || argc > 6) {
    std::fprintf(stderr, "usage: gen_ranks DIR RANKS EVENTS_PER_RANK [FIRST [COUNT]]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const auto ranks = static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10));
  const auto events = static_cast<uint64_t>(std::strtod(argv[3], nullptr));
  const auto first = argc > 4 ? static_cast<uint32_t>(std::strtoul(argv[4], nullptr, 10)) : 0;
  const auto count = argc > 5 ? static_cast<uint32_t>(std::strtoul(argv[5], nullptr, 10)) : ranks;
  for (uint32_t r = first; r < ranks && r - first < count; ++r) {
    brickprof::GeneratorConfig config;
    config.target_events = events;
    config.threads = 1;  // one thread makes a rank's collectives, as in most MPI programs
    config.seed = 1 + r;
    config.rank = r;
    config.world_size = ranks;
    const std::string path = dir + "/rank" + std::to_string(r) + ".json";
    {
      std::ofstream out(path, std::ios::binary);
      brickprof::write_format("json", brickprof::generate_trace(config), out);
      if (!out) {
        std::fprintf(stderr, "gen_ranks: could not write %s\n", path.c_str());
        return 1;
      }
    }
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      fsync(fd);
      close(fd);
    }
  }
  return 0;
}
