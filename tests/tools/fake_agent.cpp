// A stand-in for libbrickprof.so in `brickprof run` tests: a loadable shared
// object that does nothing, so the tests check only the CLI's plumbing.
extern "C" __attribute__((visibility("default"))) int brickprof_fake_agent_marker() { return 0; }
