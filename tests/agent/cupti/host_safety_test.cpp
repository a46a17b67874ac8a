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
#include <thread>

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

}  // namespace
}  // namespace brickprof::agent
