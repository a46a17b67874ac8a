// The CUPTI source never hurts the host: a dying signal that arrives inside
// a CUPTI callback is raised again only once the thread is out of CUPTI's
// dispatch (agent/README.md, rule 3), and a fork child finds the source's
// locks free although another thread held them at fork.
#include <cupti.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>

#include "agent/capture/capture.h"
#include "agent/cupti/activity_switch.h"
#include "agent/cupti/callbacks.h"
#include "agent/cupti/state.h"
#include "agent/lifecycle/critical_section.h"

namespace brickprof::agent {
namespace {

// Set while the test stands where CUPTI's dispatch would: around its call
// of the agent's callback.
std::atomic<bool> g_in_dispatch{false};
std::atomic<bool> g_handled{false};
std::atomic<bool> g_handled_in_dispatch{false};

// What the agent's dump handler does with a signal that can wait
// (lifecycle/agent.cpp): inside a critical section, hold it.
void dump_handler(int sig) {
  if (CriticalSection::inside()) {
    CriticalSection::hold(sig);
    return;
  }
  g_handled_in_dispatch = g_in_dispatch.load();
  g_handled = true;
}

// cuptiGetGraphNodeId as the agent's GRAPHNODE_CREATED handler calls it,
// with a SIGTERM arriving meanwhile.
CUptiResult node_id_with_a_signal(CUgraphNode, uint64_t* id) {
  raise(SIGTERM);
  *id = 7;
  return CUPTI_SUCCESS;
}

TEST(HostSafety, ASignalHeldInACallbackIsRaisedOutsideCuptisDispatch) {
  struct sigaction action, saved;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = dump_handler;
  sigemptyset(&action.sa_mask);
  ASSERT_EQ(sigaction(SIGTERM, &action, &saved), 0);

  GpuState state{Config{}};
  state.cupti.get_graph_node_id = node_id_with_a_signal;
  int node = 0;
  CUpti_GraphData graph;
  std::memset(&graph, 0, sizeof graph);
  graph.node = reinterpret_cast<CUgraphNode>(&node);
  graph.nodeType = CU_GRAPH_NODE_TYPE_KERNEL;
  CUpti_ResourceData resource;
  std::memset(&resource, 0, sizeof resource);
  resource.resourceDescriptor = &graph;

  g_in_dispatch = true;
  on_cupti_callback(&state, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED,
                    &resource);
  g_in_dispatch = false;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!g_handled && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  sigaction(SIGTERM, &saved, nullptr);
  ASSERT_TRUE(g_handled) << "the held SIGTERM was never raised again";
  EXPECT_FALSE(g_handled_in_dispatch)
      << "the held SIGTERM was raised while CUPTI's dispatch was still on the stack";
}

// The fork child's answer: 0 when every lock was free, 9 when the test's
// bound on a child stuck on one ran out.
int wait_for_child(pid_t child) {
  for (int i = 0; i < 500; ++i) {
    int status = 0;
    if (waitpid(child, &status, WNOHANG) == child)
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    usleep(10000);
  }
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  return 9;
}

std::atomic<bool> g_switching{false};
std::atomic<bool> g_let_switch_finish{false};

// cuptiActivityDisable as slow as it may be: the switch lock is held
// meanwhile (activity_switch.cpp).
CUptiResult slow_disable(CUpti_ActivityKind) {
  g_switching = true;
  while (!g_let_switch_finish) usleep(1000);
  return CUPTI_SUCCESS;
}
CUptiResult enable(CUpti_ActivityKind) { return CUPTI_SUCCESS; }

// Threads of the parent hold the CUPTI source's locks at fork: the switch
// lock (inside cuptiActivityDisable at a window's edge) and the GPU state's
// (a copy's addresses, a graph node, a device, the records). The child's
// first CUDA call reaches the same callbacks, which take them.
TEST(HostSafety, AForkChildFindsTheCuptiSourcesLocksFree) {
  static GpuState state{Config{}};
  state.activity_on = true;
  state.enabled_kinds = {CUPTI_ACTIVITY_KIND_KERNEL};
  state.cupti.activity_disable = slow_disable;
  state.cupti.activity_enable = enable;
  set_gpu_state(&state);
  capture::configure(capture::Mode::kCudaProfilerApi, "");  // no window: records unwanted
  std::thread switcher([] { activity_switch::install(state); });
  while (!g_switching) usleep(1000);
  std::atomic<bool> release{false};
  std::atomic<int> held{0};
  std::thread holder([&] {
    std::scoped_lock locks(state.translate_mu, state.addresses_mu, state.graph_mu,
                           state.devices_mu);
    held = 1;
    while (!release) usleep(1000);
  });
  while (!held) usleep(1000);

  const pid_t child = fork();
  if (child == 0) {
    activity_switch::report();  // takes the switch lock
    std::scoped_lock locks(state.translate_mu, state.addresses_mu, state.graph_mu,
                           state.devices_mu);
    _exit(0);
  }
  const int answer = wait_for_child(child);
  release = true;
  g_let_switch_finish = true;
  holder.join();
  switcher.join();
  capture::set_activity_hook(nullptr);
  capture::configure(capture::Mode::kAll, "");
  EXPECT_EQ(answer, 0) << "the fork child waited on a lock a parent's thread held at fork";
}

}  // namespace
}  // namespace brickprof::agent
