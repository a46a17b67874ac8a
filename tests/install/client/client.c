/* A program built outside the source tree against the installed scope API
 * (pkg-config or CMake): one scope, one brick. */
#define _POSIX_C_SOURCE 200809L /* nanosleep under -std=c99 */
#include <brickprof/brickprof.h>
#include <stdio.h>
#include <time.h>

static void wait_ms(long ms) {
  struct timespec t = {0, ms * 1000000L};
  nanosleep(&t, NULL);
}

int main(void) {
  BRICKPROF_PUSH_SCOPE("client work");
  BRICKPROF_PUSH_BRICK(BRICKPROF_BRICK_RMS_NORM, 4096);
  wait_ms(2);
  BRICKPROF_POP();
  BRICKPROF_POP();
  printf("client done\n");
  return 0;
}
