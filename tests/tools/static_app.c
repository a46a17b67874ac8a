/* A statically linked program: no dynamic loader runs for it, so LD_PRELOAD
   cannot load the agent. `brickprof run` must say so. */
int main(void) { return 0; }
