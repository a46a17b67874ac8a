// The fake driver's streams and CUDA graphs: launches on a capturing stream
// become kernel nodes, instantiation clones them, and a graph launch runs
// the clones in order. CUPTI hears of nodes as it does from the real
// driver: GRAPHNODE_CREATED inside the capturing launch, GRAPHNODE_CLONED
// inside cuGraphInstantiate, and kernel records naming the executed node
// (or, when the tool enabled GRAPH_TRACE, one record per replay). Memory
// nodes (captured cuMemAllocAsync/cuMemFreeAsync) allocate and free at each
// launch (driver_memory.cpp).
#include <cstring>

#include "driver_memory.h"
#include "driver_state.h"
#include "driver_trace.h"
#include "driver_work.h"

using namespace fake_cuda;

CUresult CUDAAPI cuStreamCreate(CUstream* stream, unsigned int flags) {
  cuStreamCreate_params p{stream, flags};
  TRACED(cuStreamCreate, &p);
  if (current_context() == nullptr) return call.finish(CUDA_ERROR_INVALID_CONTEXT);
  if (stream == nullptr) return call.finish(CUDA_ERROR_INVALID_VALUE);
  *stream = new_stream();
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuStreamDestroy_v2(CUstream stream) {
  cuStreamDestroy_v2_params p{stream};
  TRACED(cuStreamDestroy_v2, &p);
  return call.finish(stream != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE);
}

CUresult CUDAAPI cuStreamBeginCapture_v2(CUstream stream, CUstreamCaptureMode mode) {
  cuStreamBeginCapture_v2_params p{stream, mode};
  TRACED(cuStreamBeginCapture_v2, &p);
  // The legacy NULL stream cannot be captured.
  if (stream == nullptr) return call.finish(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  if (stream->capture != nullptr) return call.finish(CUDA_ERROR_ILLEGAL_STATE);
  stream->capture = new_graph();
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuStreamEndCapture(CUstream stream, CUgraph* graph) {
  cuStreamEndCapture_params p{stream, graph};
  TRACED(cuStreamEndCapture, &p);
  if (stream == nullptr || graph == nullptr) return call.finish(CUDA_ERROR_INVALID_VALUE);
  if (stream->capture == nullptr) return call.finish(CUDA_ERROR_ILLEGAL_STATE);
  bool broken = stream->invalidated;
  *graph = broken ? nullptr : stream->capture;
  stream->capture = nullptr;
  stream->invalidated = false;
  return call.finish(broken ? CUDA_ERROR_STREAM_CAPTURE_INVALIDATED : CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphInstantiateWithFlags(CUgraphExec* exec, CUgraph graph,
                                             unsigned long long flags) {
  cuGraphInstantiateWithFlags_params p{exec, graph, flags};
  TRACED(cuGraphInstantiateWithFlags, &p);
  if (exec == nullptr || graph == nullptr) return call.finish(CUDA_ERROR_INVALID_VALUE);
  CUgraphExec e = new_graph_exec();
  for (CUgraphNode original : graph->nodes) {
    CUgraphNode clone = new_graph_node(*original);
    e->nodes.push_back(clone);
    CUpti_GraphData g{};
    g.graph = graph;
    g.originalGraph = graph;
    g.node = clone;
    g.originalNode = original;
    g.nodeType = node_type(*original);
    g.graphExec = e;
    resource_callback(CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED, current_context(), &g);
  }
  *exec = e;
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphLaunch(CUgraphExec exec, CUstream stream) {
  cuGraphLaunch_params p{exec, stream};
  TRACED(cuGraphLaunch, &p);
  CUcontext ctx = current_context();
  if (ctx == nullptr) return call.finish(CUDA_ERROR_INVALID_CONTEXT);
  if (exec == nullptr) return call.finish(CUDA_ERROR_INVALID_VALUE);
  // Every kernel and copy of the replay carries the launch's correlation id
  // and the id of the (cloned) node it ran from; with GRAPH_TRACE, the
  // replay is one record instead.
  const Tool* t = tool();
  Interval span{0, 0};
  Interval* whole = t != nullptr && t->wants(CUPTI_ACTIVITY_KIND_GRAPH_TRACE) ? &span : nullptr;
  for (CUgraphNode node : exec->nodes) {
    const LaunchOrigin origin{call.correlation(), node->id, exec->id, whole};
    if (node->memory != CU_GRAPH_NODE_TYPE_EMPTY) {
      if (const CUresult r = run_memory_node(*exec, *node, ctx, stream, call.correlation());
          r != CUDA_SUCCESS)
        return call.finish(r);
    } else if (node->is_copy) {
      run_copy(node->copy, ctx, stream, origin);
    } else if (const CUresult r = run_kernel(node->launch, ctx, stream, origin); r != CUDA_SUCCESS) {
      return call.finish(r);
    }
  }
  if (whole != nullptr && span.end != 0) {
    CUpti_ActivityGraphTrace2 g;
    std::memset(&g, 0, sizeof g);
    g.kind = CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
    g.correlationId = call.correlation();
    g.start = span.start;
    g.end = span.end;
    g.deviceId = g.endDeviceId = static_cast<uint32_t>(ctx->device);
    g.contextId = g.endContextId = ctx->id;
    g.streamId = stream_id(stream);
    g.graphId = exec->id;
    emit(g, ctx->id);
  }
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec exec) {
  cuGraphExecDestroy_params p{exec};
  TRACED(cuGraphExecDestroy, &p);
  return call.finish(exec != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

CUresult CUDAAPI cuGraphDestroy(CUgraph graph) {
  cuGraphDestroy_params p{graph};
  TRACED(cuGraphDestroy, &p);
  return call.finish(graph != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}
