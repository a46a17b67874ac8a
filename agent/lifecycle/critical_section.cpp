// Signals held across the agent's critical sections (see critical_section.h).
#include "agent/lifecycle/critical_section.h"

#include <signal.h>

namespace brickprof::agent::critical {

constinit thread_local int tls_depth = 0;
constinit thread_local volatile sig_atomic_t tls_held_signal = 0;

void raise_held_signal() {
  int sig = tls_held_signal;
  tls_held_signal = 0;
  raise(sig);  // the handler runs now, outside every section
}

}  // namespace brickprof::agent::critical
