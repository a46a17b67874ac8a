/* A C program that digests its outputs through brickprof_checksum, for
 * checksum_test.cpp. Buffers hold known values, so the test computes the
 * same digests itself:
 *   checksum_app            layer 0 > RmsNorm: "out" (4096 f32, value i/1024 - 2),
 *                           "with nan" (8 f32 0..7, element 3 NaN), "ids" (5 i32 0..4),
 *                           "raw" (3 bytes, no dtype); then a dtype it cannot read
 *                           and one outside every scope (both left out); a second
 *                           thread's scope "worker" > "out" (16 f32, value i)
 *   checksum_app many N     N digests of 64 f32 inside one scope */
#include <brickprof/brickprof.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void* worker(void* unused) {
  float out[16];
  (void)unused;
  for (int i = 0; i < 16; ++i) out[i] = (float)i;
  BRICKPROF_PUSH_SCOPE("worker");
  brickprof_checksum("out", out, 16, "f32");
  BRICKPROF_POP();
  return NULL;
}

int main(int argc, char** argv) {
  static float out[4096];
  for (int i = 0; i < 4096; ++i) out[i] = (float)i / 1024.0f - 2.0f;
  if (argc > 2 && strcmp(argv[1], "many") == 0) {
    const long n = atol(argv[2]);
    BRICKPROF_PUSH_SCOPE("many");
    for (long i = 0; i < n; ++i) brickprof_checksum("out", out, 64, "f32");
    BRICKPROF_POP();
    return 0;
  }
  float with_nan[8];
  for (int i = 0; i < 8; ++i) with_nan[i] = (float)i;
  with_nan[3] = NAN;
  const int32_t ids[5] = {0, 1, 2, 3, 4};
  const unsigned char raw[3] = {1, 2, 3};

  BRICKPROF_PUSH_LAYER(0);
  BRICKPROF_PUSH_BRICK(BRICKPROF_BRICK_RMS_NORM, 4096);
  BRICKPROF_CHECKSUM("out", out, 4096, "f32");
  brickprof_checksum("with nan", with_nan, 8, "f32");
  brickprof_checksum("ids", ids, 5, "i32");
  brickprof_checksum("raw", raw, 3, NULL);
  brickprof_checksum("unreadable", raw, 3, "q3_k");
  BRICKPROF_POP();
  BRICKPROF_POP();
  brickprof_checksum("outside", out, 4096, "f32");

  pthread_t t;
  if (pthread_create(&t, NULL, worker, NULL) == 0) pthread_join(t, NULL);
  return 0;
}
