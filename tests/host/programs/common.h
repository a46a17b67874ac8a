/* What every host-process case program shares: recording a few scopes
 * through the public header, a mode table, and output that is the same on
 * every run (the driver compares it with and without the agent). */
#ifndef BRICKPROF_TESTS_HOST_COMMON_H_
#define BRICKPROF_TESTS_HOST_COMMON_H_

#include <brickprof/brickprof.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* `count` scopes named `name`, each with one nested brick: something to
 * find in the trace, and enough events to make the write take a moment. */
static inline void record_scopes(const char* name, long count) {
  long i;
  for (i = 0; i < count; ++i) {
    int outer = brickprof_push_name(BRICKPROF_KIND_SCOPE, name, (uint64_t)i);
    BRICKPROF_PUSH_BRICK(BRICKPROF_BRICK_RMS_NORM, 64);
    BRICKPROF_POP();
    if (outer) brickprof_pop();
  }
}

/* One line on stdout at once: the driver waits for "ready" before it sends
 * a signal, and a pipe would otherwise hold it in the stdio buffer. */
static inline void say(const char* line) {
  printf("%s\n", line);
  fflush(stdout);
}

typedef int (*mode_fn)(int argc, char** argv);
struct mode {
  const char* name;
  mode_fn run;
};

/* Runs the mode argv[1] names with the arguments after it. */
static inline int run_mode(const struct mode* modes, size_t count, int argc, char** argv) {
  size_t i;
  if (argc >= 2)
    for (i = 0; i < count; ++i)
      if (strcmp(argv[1], modes[i].name) == 0) return modes[i].run(argc - 2, argv + 2);
  fprintf(stderr, "%s: unknown mode '%s'\n", argv[0], argc >= 2 ? argv[1] : "");
  return 2;
}

#define MODES(table) run_mode(table, sizeof(table) / sizeof(table[0]), argc, argv)

static inline long arg_or(int argc, char** argv, int index, long fallback) {
  return index < argc ? strtol(argv[index], NULL, 10) : fallback;
}

#endif
