/* The scope API from C99: statement macros and run-time names. */
#include <brickprof/brickprof.h>
#include <stdio.h>

int main(void) {
  int layer;
  for (layer = 0; layer < 2; ++layer) {
    BRICKPROF_PUSH_LAYER(layer);
    BRICKPROF_PUSH_BRICK(BRICKPROF_BRICK_QKV_PROJECTION, 1024);
    BRICKPROF_WORK(2048, 4096);
    BRICKPROF_POP();
    BRICKPROF_PUSH_SCOPE("c scope");
    BRICKPROF_POP();
    if (brickprof_push_name(BRICKPROF_KIND_BRICK, "Rope", 64)) brickprof_pop();
    BRICKPROF_POP();
  }
  BRICKPROF_SET_HOST_PEAKS(0, 12.5, "c app"); /* bandwidth only */
  printf("c ok %d\n", brickprof_is_enabled());
  return 0;
}
