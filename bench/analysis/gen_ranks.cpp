// Writes the traces of one synthetic MPI job for scripts/bench-ranks:
// RANKS files DIR/rank<R>.json of about EVENTS nodes each (generate_trace as
// rank R of RANKS: each layer ends in a matched MPI_Allreduce), each
// written back to disk before the next, so timing the readers later is not
// competing with the kernel flushing them. Usage: gen_ranks DIR RANKS EVENTS
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
  if (argc != 4) {
    std::fprintf(stderr, "usage: gen_ranks DIR RANKS EVENTS_PER_RANK\n");
    return 2;
  }
  const std::string dir = argv[1];
  const auto ranks = static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10));
  const auto events = static_cast<uint64_t>(std::strtod(argv[3], nullptr));
  for (uint32_t r = 0; r < ranks; ++r) {
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
