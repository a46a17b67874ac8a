// Pushes far more events than a 1 MiB buffer holds, to exercise the cap.
#include <brickprof/brickprof.h>

int main() {
  for (int i = 0; i < 200000; ++i) {
    BRICKPROF_SCOPE("tick");
  }
  return 0;
}
