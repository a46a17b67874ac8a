// CUPTI activity record -> trace node translation (see translate.h).
#include "agent/cupti/translate.h"

#include <string>

#include "agent/ptx/module_image.h"

namespace brickprof::agent {
namespace {

Direction direction_of(uint8_t copy_kind) {
  switch (copy_kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
      return Direction::kH2D;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
      return Direction::kD2H;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
      return Direction::kD2D;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      return Direction::kH2H;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
      return Direction::kPeer;
    default:
      return Direction::kUnknown;
  }
}

MemoryKind memory_kind_of(uint32_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
      return MemoryKind::kPageable;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
      return MemoryKind::kPinned;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC:
      return MemoryKind::kDevice;
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY:
      return MemoryKind::kArray;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC:
      return MemoryKind::kManaged;
    default:
      return MemoryKind::kUnknown;
  }
}

SyncKind sync_kind_of(CUpti_ActivitySynchronizationType type) {
  switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
      return SyncKind::kEvent;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
      return SyncKind::kStreamWait;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
      return SyncKind::kStream;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
      return SyncKind::kContext;
    default:
      return SyncKind::kUnknown;
  }
}

// A record without both timestamps cannot be placed on the timeline.
bool usable_times(uint64_t start, uint64_t end, TranslationContext& ctx) {
  if (start == 0 || end == 0 || end < start) {
    ++ctx.zero_timestamp_records;
    return false;
  }
  return true;
}

bool stage(TranslationContext& ctx, Node node, const GpuDetail& detail) {
  if (detail.correlation > ctx.stage_correlations_up_to) {
    ++ctx.outside_capture;
    return false;
  }
  if (ctx.agent_work != nullptr && ctx.agent_work(detail.correlation)) return false;
  if (ctx.staged.size() >= ctx.max_nodes || !ctx.staged.add(node, detail)) {
    ++ctx.dropped_over_cap;
    return false;
  }
  return true;
}

// A name for a staged node; kNoName (counted as dropped) when the budget
// refuses it.
constexpr StringId kNoName = UINT32_MAX;
StringId name_for(TranslationContext& ctx, std::string_view text) {
  StringId id;
  if (ctx.staged.intern(text, &id)) return id;
  ++ctx.dropped_over_cap;
  return kNoName;
}

// What every device-side record (kernel, copy, memset) says about where it
// ran and which call issued it.
template <typename Record>
GpuDetail device_detail(const Record& r) {
  GpuDetail d;
  d.device = r.deviceId;
  d.context = r.contextId;
  d.stream = r.streamId;
  d.correlation = r.correlationId;
  d.graph_node = r.graphNodeId;
  return d;
}

// Stages a node of `kind` named `name` over the record's start..end.
template <typename Record>
bool stage_record(TranslationContext& ctx, const Record& r, NodeKind kind, StringId name,
                  const GpuDetail& d) {
  Node n;
  n.kind = kind;
  n.name = name;
  n.start_ns = static_cast<int64_t>(r.start);
  n.end_ns = static_cast<int64_t>(r.end);
  return stage(ctx, n, d);
}

bool translate_kernel(const KernelRecord& k, TranslationContext& ctx) {
  if (!usable_times(k.start, k.end, ctx)) return false;
  auto it = ctx.names.find(k.name);
  if (it == ctx.names.end()) {
    TranslationContext::NameInfo info;
    if (!ctx.staged.intern(k.name ? demangle(k.name) : std::string("<unnamed>"), &info.name)) {
      ++ctx.dropped_over_cap;
      return false;
    }
    info.ptx_hash = (ctx.registry && k.name) ? ctx.registry->hash_for_kernel(k.name) : 0;
    it = ctx.names.emplace(k.name, info).first;
  }
  GpuDetail d = device_detail(k);
  d.grid[0] = static_cast<uint32_t>(k.gridX);
  d.grid[1] = static_cast<uint32_t>(k.gridY);
  d.grid[2] = static_cast<uint32_t>(k.gridZ);
  d.block[0] = static_cast<uint32_t>(k.blockX);
  d.block[1] = static_cast<uint32_t>(k.blockY);
  d.block[2] = static_cast<uint32_t>(k.blockZ);
  d.smem = static_cast<uint32_t>(k.staticSharedMemory + k.dynamicSharedMemory);
  d.registers = k.registersPerThread;
  d.ptx_hash = it->second.ptx_hash;
  return stage_record(ctx, k, NodeKind::kKernel, it->second.name, d);
}

const char* direction_label(Direction d) {
  switch (d) {
    case Direction::kH2D: return "memcpy HtoD";
    case Direction::kD2H: return "memcpy DtoH";
    case Direction::kD2D: return "memcpy DtoD";
    case Direction::kH2H: return "memcpy HtoH";
    case Direction::kPeer: return "memcpy PtoP";
    default: return "memcpy";
  }
}

// A copy within a device or between host and device (memcpy records), or
// between two devices (peer records).
template <typename Record>
bool translate_copy(const Record& m, Direction direction, TranslationContext& ctx) {
  if (!usable_times(m.start, m.end, ctx)) return false;
  GpuDetail d = device_detail(m);
  d.direction = direction;
  d.src_kind = memory_kind_of(m.srcKind);
  d.dst_kind = memory_kind_of(m.dstKind);
  d.bytes = m.bytes;
  StringId name = name_for(ctx, direction_label(direction));
  return name != kNoName && stage_record(ctx, m, NodeKind::kTransfer, name, d);
}

bool translate_memcpy(const CUpti_ActivityMemcpy6& m, TranslationContext& ctx) {
  return translate_copy(m, direction_of(m.copyKind), ctx);
}

bool translate_peer(const CUpti_ActivityMemcpyPtoP4& m, TranslationContext& ctx) {
  // Between two devices it is a peer copy whatever copyKind says (DtoD).
  Direction d = m.srcDeviceId != m.dstDeviceId ? Direction::kPeer : direction_of(m.copyKind);
  return translate_copy(m, d, ctx);
}

bool translate_memset(const CUpti_ActivityMemset4& m, TranslationContext& ctx) {
  if (!usable_times(m.start, m.end, ctx)) return false;
  GpuDetail d = device_detail(m);
  d.bytes = m.bytes;
  d.dst_kind = memory_kind_of(m.memoryKind);
  StringId name = name_for(ctx, "memset");
  return name != kNoName && stage_record(ctx, m, NodeKind::kMemset, name, d);
}

bool translate_sync(const CUpti_ActivitySynchronization2& s, TranslationContext& ctx) {
  if (!usable_times(s.start, s.end, ctx)) return false;
  GpuDetail d;
  d.sync = sync_kind_of(s.type);
  d.context = s.contextId;
  // CUPTI marks "no stream" (context/event syncs) with all bits set.
  d.stream = s.streamId == UINT32_MAX ? 0 : s.streamId;
  d.correlation = s.correlationId;
  d.event = s.cudaEventId == UINT32_MAX ? 0 : s.cudaEventId;
  StringId name = name_for(ctx, "sync " + std::string(to_string(d.sync)));
  return name != kNoName && stage_record(ctx, s, NodeKind::kSync, name, d);
}

// BRICKPROF_CUDA_GRAPH_TRACE=graph: a whole graph replay, one GPU interval
// on the launching stream, under the scope around the graph launch (its
// correlation). A kernel node: work on a stream, as the views expect.
bool translate_graph(const CUpti_ActivityGraphTrace2& g, TranslationContext& ctx) {
  if (!usable_times(g.start, g.end, ctx)) return false;
  GpuDetail d;
  // INT_MAX: the graph began with host work; its end is on a device.
  constexpr uint32_t kHost = 0x7fffffff;
  d.device = g.deviceId != kHost ? g.deviceId : g.endDeviceId;
  d.context = g.contextId != kHost ? g.contextId : g.endContextId;
  d.stream = g.streamId;
  d.correlation = g.correlationId;
  d.graph_id = g.graphId;
  StringId name = name_for(ctx, "CUDA graph " + std::to_string(g.graphId));
  return name != kNoName && stage_record(ctx, g, NodeKind::kKernel, name, d);
}

// CUPTI names a local pool's size and use in its records; an imported
// pool's belong to the process that exported it.
bool stage_memory(TranslationContext& ctx, const MemoryActivity& m) {
  // The agent's own (checksum mode's scratch and pool): not the program's.
  if (ctx.agent_work != nullptr && ctx.agent_work(m.correlation)) return false;
  if (m.time_ns <= 0) {
    ++ctx.zero_timestamp_records;
    return false;
  }
  if (ctx.memory.size() >= ctx.max_nodes || !ctx.memory_hooks.take(sizeof(MemoryActivity))) {
    ++ctx.memory_dropped;
    return false;
  }
  ctx.memory.push_back(m);
  return true;
}

bool translate_memory(const CUpti_ActivityMemory4& r, TranslationContext& ctx) {
  MemoryActivity m;
  switch (r.memoryOperationType) {
    case CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION:
      m.kind = MemoryActivity::Kind::kAlloc;
      break;
    case CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE:
      m.kind = MemoryActivity::Kind::kRelease;
      break;
    default:
      ++ctx.unhandled_records;
      return false;
  }
  m.correlation = r.correlationId;
  m.device = r.deviceId;
  m.time_ns = static_cast<int64_t>(r.timestamp);
  m.address = r.address;
  m.bytes = r.bytes;
  if (r.isAsync != 0 && r.memoryPoolConfig.memoryPoolType == CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL) {
    m.pool = r.memoryPoolConfig.address;
    m.pool_size = r.memoryPoolConfig.pool.size;
    m.pool_size_known = true;
  }
  return stage_memory(ctx, m);
}

bool translate_memory_pool(const CUpti_ActivityMemoryPool3& r, TranslationContext& ctx) {
  MemoryActivity m;
  switch (r.memoryPoolOperationType) {
    case CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_CREATED:
      m.kind = MemoryActivity::Kind::kPoolCreated;
      break;
    case CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_DESTROYED:
      m.kind = MemoryActivity::Kind::kPoolDestroyed;
      break;
    case CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_TRIMMED:
      m.kind = MemoryActivity::Kind::kPoolTrimmed;
      break;
    default:
      ++ctx.unhandled_records;
      return false;
  }
  m.correlation = r.correlationId;
  m.device = r.deviceId;
  m.time_ns = static_cast<int64_t>(r.timestamp);
  m.pool = r.address;
  m.pool_size = r.size;
  m.pool_size_known = r.memoryPoolType == CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
  return stage_memory(ctx, m);
}

}  // namespace

bool translate(const CUpti_Activity* record, TranslationContext& ctx) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      return translate_kernel(*reinterpret_cast<const KernelRecord*>(record), ctx);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      return translate_memcpy(*reinterpret_cast<const CUpti_ActivityMemcpy6*>(record), ctx);
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      return translate_peer(*reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record), ctx);
    case CUPTI_ACTIVITY_KIND_MEMSET:
      return translate_memset(*reinterpret_cast<const CUpti_ActivityMemset4*>(record), ctx);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      return translate_sync(*reinterpret_cast<const CUpti_ActivitySynchronization2*>(record),
                            ctx);
    case CUPTI_ACTIVITY_KIND_GRAPH_TRACE:
      return translate_graph(*reinterpret_cast<const CUpti_ActivityGraphTrace2*>(record), ctx);
    case CUPTI_ACTIVITY_KIND_MEMORY2:
      return translate_memory(*reinterpret_cast<const CUpti_ActivityMemory4*>(record), ctx);
    case CUPTI_ACTIVITY_KIND_MEMORY_POOL:
      return translate_memory_pool(*reinterpret_cast<const CUpti_ActivityMemoryPool3*>(record),
                                   ctx);
    default:
      ++ctx.unhandled_records;
      return false;
  }
}

uint64_t original_graph_node(const AttributionInputs& in, uint64_t id) {
  if (in.graph_node_origin == nullptr) return id;
  for (int hops = 0; hops < 8; ++hops) {
    auto o = in.graph_node_origin->find(id);
    if (o == in.graph_node_origin->end() || o->second == id) break;
    id = o->second;
  }
  return id;
}

const TransferAddresses* addresses_of(const AttributionInputs& in, const GpuDetail& d) {
  if (!in.addresses) return nullptr;
  auto a = in.addresses->find(d.correlation);
  // A replayed copy carries the graph launch's correlation; its addresses
  // were stored under the call that captured its node.
  if (a == in.addresses->end() && d.graph_node != 0 && in.node_correlation) {
    auto c = in.node_correlation->find(original_graph_node(in, d.graph_node));
    if (c != in.node_correlation->end()) a = in.addresses->find(c->second);
  }
  return a == in.addresses->end() ? nullptr : &a->second;
}

}  // namespace brickprof::agent
