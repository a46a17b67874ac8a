/* A C program of the scope API's memory and shape calls, for
 * program_memory_test.cpp: an arena handing out blocks in two pools under a
 * layer and a brick, shapes on the brick, one block left live at exit, a
 * free of a block never reported, a NULL pool, an empty shape, and a shape
 * too long to keep. Prints what it did; the same with or without an agent. */
#include <brickprof/brickprof.h>
#include <stdio.h>

static char g_arena[1 << 16];

int main(void) {
  int64_t dims[] = {1, 4096, 4096, 4096}, out[] = {1, 4096};
  uint32_t ranks[] = {2, 2};
  int64_t many[200];
  uint32_t many_ranks[100];
  int i;
  for (i = 0; i < 200; ++i) many[i] = 1000000000000 + i;
  for (i = 0; i < 100; ++i) many_ranks[i] = 2;

  BRICKPROF_PUSH_LAYER(0);
  BRICKPROF_PUSH_BRICK(BRICKPROF_BRICK_UP_PROJECTION, 4096);
  BRICKPROF_SET_SHAPES("f32", dims, ranks, 2, out, 2);
  BRICKPROF_MEM_ALLOC(g_arena, 4096, "kv_cache");
  BRICKPROF_MEM_ALLOC(g_arena + 4096, 1024, "activations");
  BRICKPROF_POP();
  BRICKPROF_MEM_FREE(g_arena + 4096, "activations");
  BRICKPROF_PUSH_BRICK_NAMED("Empty", 1);
  brickprof_set_shapes("", 0, 0, 0, 0, 0); /* no inputs, a scalar: kept as "?" */
  BRICKPROF_POP();
  BRICKPROF_PUSH_BRICK_NAMED("TooLong", 1);
  brickprof_set_shapes("f32", many, many_ranks, 100, out, 2); /* past 512 bytes: dropped */
  BRICKPROF_POP();
  BRICKPROF_POP();
  brickprof_mem_alloc(g_arena + 8192, 512, NULL);
  brickprof_mem_free(g_arena + 8192, NULL);
  brickprof_mem_free(g_arena + 16384, "kv_cache"); /* never reported as allocated */
  printf("arena: 4 blocks, 1 left live\n");
  return 0;
}
