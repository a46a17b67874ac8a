// The well-known bricks, their categories, and the names (and aliases) by
// which scopes and NVTX ranges are recognised as layers and bricks.
#pragma once

#include <brickprof/brickprof.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "trace/model/trace.h"

namespace brickprof {

// The well-known brick ids are the public header's brickprof_brick values.
inline constexpr int kBrickCount = BRICKPROF_BRICK_COUNT;

// Canonical name of a well-known brick id (0..kBrickCount-1), "" otherwise.
std::string_view brick_name(int brick_id);
Category brick_category(int brick_id);
// Well-known brick id for a name or alias ("RmsNorm", "rms_norm", "Rope",
// "Gate", "SiLU", ...), case-insensitive; -1 if the name is custom.
int brick_from_name(std::string_view name);
// Category of a name that is not a well-known brick: Communication for the
// collective and point-to-point names ("AllReduce", "AllGather",
// "ReduceScatter", "Broadcast", "AllToAll", "SendRecv", "Barrier", any case
// and separators) and for MPI functions ("MPI_...", and the agent's "MPI
// clock sync"), Other for the rest.
Category custom_brick_category(std::string_view name);
// NCCL's kernels ("ncclKernel_AllReduce_...", "ncclDevKernel_..."): the GPU
// side of a collective, communication rather than compute.
bool is_communication_kernel(std::string_view name);
// Layer index from names such as "Layer 3", "layer.3", "layers.3", "layer_3".
std::optional<int32_t> layer_from_name(std::string_view name);

// What a scope pushed as (kind, brick id, name) is, by the rules above: a
// brick by id or by name or alias gets its canonical name and category, any
// other brick its custom category; a layer is "Layer" (its index comes
// with each push); a scope named like a collective or an MPI call is
// Communication. The agent interns sites by it, so a name means the same in
// every trace.
struct ScopeIdentity {
  NodeKind kind = NodeKind::kScope;
  int16_t brick_id = -1;
  Category category = Category::kNone;
  std::string_view name;
  bool name_is_static = false;  // `name` is this table's own, not the caller's
};
ScopeIdentity identify_scope(NodeKind kind, int brick_id, std::string_view name);
// A name alone (NVTX ranges, brickprof_push_name): a layer if named like one,
// a well-known brick if named like one, else `default_kind`.
ScopeIdentity identify_named(std::string_view name, NodeKind default_kind);

}  // namespace brickprof
