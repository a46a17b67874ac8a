// Interned sites: what a recorded push or mark stands for (kind, brick,
// display name), named in every event by a 32-bit id. Call sites intern
// once; NVTX ranges and brickprof_push_name() intern on every push, so the
// table can grow as long as the program invents names. It is charged to the
// memory budget byte for byte (names, the site entries, the hash index), and
// a name that does not fit falls back to site 0, "(other)", and is counted.
#pragma once

#include <cstdint>
#include <string_view>

#include "trace/model/trace.h"

namespace brickprof::agent {

// What an interned site stands for, resolved once when first seen.
struct SiteInfo {
  std::string_view name;  // the display name; storage lives as long as the process
  NodeKind kind = NodeKind::kScope;
  int16_t brick_id = -1;
  Category category = Category::kNone;
  bool opens_capture = false;  // named like BRICKPROF_CAPTURE=scope:NAME
};

namespace sites {

// The catch-all every name that did not fit is recorded under.
inline constexpr uint32_t kOther = 0;
inline constexpr std::string_view kOtherName = "(other)";

// Interns by kind, brick id and name (name may be empty for layers and
// well-known bricks); names map to layers and bricks as NVTX and
// BRICKPROF_BRICK_NAMED need ("Layer 3" -> layer, "Rope" -> RopeEmbedding).
// Takes a lock. kOther when the table or the budget is full (counted).
uint32_t intern(NodeKind kind, int brick_id, std::string_view name);
// For NVTX and run-time names: picks layer / brick / `default_kind` from the name.
uint32_t intern_named(std::string_view name, NodeKind default_kind);

// Lock-free: the hot path reads kinds while other threads intern.
SiteInfo get(uint32_t id);
uint32_t count();
// Interns that fell back to kOther (each push of a name that did not fit).
uint64_t dropped_names();

// BRICKPROF_CAPTURE=scope:NAME: sites displayed as NAME (not layers) open
// capture windows; "" turns it off. Applies to sites interned before, too.
void set_capture_name(std::string_view name);

// Bytes the table holds (charged to the budget).
uint64_t bytes_held();
// In a fork child: the sites stay (call sites cache their ids), the lock is
// new (another thread may have held it at fork), the counter starts over.
void reset_after_fork();

}  // namespace sites
}  // namespace brickprof::agent
