/* A statically linked program: the loader is not involved, so LD_PRELOAD
 * does nothing and the program must run exactly as without it. */
#include <stdio.h>

int main(void) {
  printf("static program ran\n");
  return 0;
}
