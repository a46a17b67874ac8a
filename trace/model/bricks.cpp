// Brick names, categories and aliases (see bricks.h).
#include "trace/model/bricks.h"

#include <cctype>
#include <charconv>
#include <iterator>
#include <string>

#include "trace/model/name_key.h"

namespace brickprof {
namespace {

struct BrickInfo {
  brickprof_brick id;
  std::string_view name;
  Category category;
};

// In the order of the ids, so an id indexes the table (checked below).
constexpr BrickInfo kBricks[] = {
    {BRICKPROF_BRICK_RMS_NORM, "RmsNorm", Category::kNorm},
    {BRICKPROF_BRICK_LAYER_NORM, "LayerNorm", Category::kNorm},
    {BRICKPROF_BRICK_QKV_PROJECTION, "QkvProjection", Category::kAttention},
    {BRICKPROF_BRICK_ROPE_EMBEDDING, "RopeEmbedding", Category::kAttention},
    {BRICKPROF_BRICK_ATTENTION_SCORE, "AttentionScore", Category::kAttention},
    {BRICKPROF_BRICK_ATTENTION_SOFTMAX, "AttentionSoftmax", Category::kAttention},
    {BRICKPROF_BRICK_ATTENTION_OUTPUT, "AttentionOutput", Category::kAttention},
    {BRICKPROF_BRICK_OUTPUT_PROJECTION, "OutputProjection", Category::kAttention},
    {BRICKPROF_BRICK_GATE_PROJECTION, "GateProjection", Category::kFfn},
    {BRICKPROF_BRICK_UP_PROJECTION, "UpProjection", Category::kFfn},
    {BRICKPROF_BRICK_ACTIVATION, "Activation", Category::kFfn},
    {BRICKPROF_BRICK_DOWN_PROJECTION, "DownProjection", Category::kFfn},
    {BRICKPROF_BRICK_EMBEDDING, "Embedding", Category::kOther},
    {BRICKPROF_BRICK_LM_HEAD, "LmHead", Category::kOther},
    {BRICKPROF_BRICK_SAMPLING, "Sampling", Category::kOther},
};
static_assert(std::size(kBricks) == BRICKPROF_BRICK_COUNT,
              "one entry per well-known brick of <brickprof/brickprof.h>");

constexpr bool indexed_by_id() {
  for (size_t i = 0; i < std::size(kBricks); ++i)
    if (kBricks[i].id != static_cast<int>(i)) return false;
  return true;
}
static_assert(indexed_by_id(), "kBricks lists the bricks in the order of their ids");

struct Alias {
  std::string_view key;  // lower case, no separators
  brickprof_brick brick;
};

// Each canonical name, and common spellings in inference engines
// (llama.cpp, vLLM, HF transformers).
constexpr Alias kAliases[] = {
    {"rmsnorm", BRICKPROF_BRICK_RMS_NORM},
    {"norm", BRICKPROF_BRICK_RMS_NORM},
    {"inputlayernorm", BRICKPROF_BRICK_RMS_NORM},
    {"postattentionlayernorm", BRICKPROF_BRICK_RMS_NORM},
    {"layernorm", BRICKPROF_BRICK_LAYER_NORM},
    {"ln", BRICKPROF_BRICK_LAYER_NORM},
    {"qkvprojection", BRICKPROF_BRICK_QKV_PROJECTION},
    {"qkv", BRICKPROF_BRICK_QKV_PROJECTION},
    {"qkvproj", BRICKPROF_BRICK_QKV_PROJECTION},
    {"ropeembedding", BRICKPROF_BRICK_ROPE_EMBEDDING},
    {"rope", BRICKPROF_BRICK_ROPE_EMBEDDING},
    {"rotary", BRICKPROF_BRICK_ROPE_EMBEDDING},
    {"rotaryembedding", BRICKPROF_BRICK_ROPE_EMBEDDING},
    {"attentionscore", BRICKPROF_BRICK_ATTENTION_SCORE},
    {"attention", BRICKPROF_BRICK_ATTENTION_SCORE},
    {"attn", BRICKPROF_BRICK_ATTENTION_SCORE},
    {"flashattention", BRICKPROF_BRICK_ATTENTION_SCORE},
    {"sdpa", BRICKPROF_BRICK_ATTENTION_SCORE},
    {"attentionsoftmax", BRICKPROF_BRICK_ATTENTION_SOFTMAX},
    {"softmax", BRICKPROF_BRICK_ATTENTION_SOFTMAX},
    {"attentionoutput", BRICKPROF_BRICK_ATTENTION_OUTPUT},
    {"attnoutput", BRICKPROF_BRICK_ATTENTION_OUTPUT},
    {"outputprojection", BRICKPROF_BRICK_OUTPUT_PROJECTION},
    {"oproj", BRICKPROF_BRICK_OUTPUT_PROJECTION},
    {"outproj", BRICKPROF_BRICK_OUTPUT_PROJECTION},
    {"gateprojection", BRICKPROF_BRICK_GATE_PROJECTION},
    {"gate", BRICKPROF_BRICK_GATE_PROJECTION},
    {"gateproj", BRICKPROF_BRICK_GATE_PROJECTION},
    {"upprojection", BRICKPROF_BRICK_UP_PROJECTION},
    {"up", BRICKPROF_BRICK_UP_PROJECTION},
    {"upproj", BRICKPROF_BRICK_UP_PROJECTION},
    {"activation", BRICKPROF_BRICK_ACTIVATION},
    {"silu", BRICKPROF_BRICK_ACTIVATION},
    {"swiglu", BRICKPROF_BRICK_ACTIVATION},
    {"gelu", BRICKPROF_BRICK_ACTIVATION},
    {"act", BRICKPROF_BRICK_ACTIVATION},
    {"downprojection", BRICKPROF_BRICK_DOWN_PROJECTION},
    {"down", BRICKPROF_BRICK_DOWN_PROJECTION},
    {"downproj", BRICKPROF_BRICK_DOWN_PROJECTION},
    {"embedding", BRICKPROF_BRICK_EMBEDDING},
    {"embed", BRICKPROF_BRICK_EMBEDDING},
    {"embedtokens", BRICKPROF_BRICK_EMBEDDING},
    {"tokenembedding", BRICKPROF_BRICK_EMBEDDING},
    {"lmhead", BRICKPROF_BRICK_LM_HEAD},
    {"output", BRICKPROF_BRICK_LM_HEAD},
    {"sampling", BRICKPROF_BRICK_SAMPLING},
    {"sample", BRICKPROF_BRICK_SAMPLING},
    {"sampler", BRICKPROF_BRICK_SAMPLING},
};

// A brick's canonical name finds that brick, so a name the trace shows reads back.
constexpr bool every_name_is_an_alias() {
  for (const BrickInfo& b : kBricks) {
    bool found = false;
    for (const Alias& a : kAliases) {
      if (a.brick != b.id || a.key.size() != b.name.size()) continue;
      bool same = true;
      for (size_t i = 0; i < a.key.size(); ++i) same = same && a.key[i] == ascii_lower(b.name[i]);
      found = found || same;
    }
    if (!found) return false;
  }
  return true;
}
static_assert(every_name_is_an_alias(), "each canonical brick name is among kAliases");

}  // namespace

std::string_view brick_name(int brick_id) {
  return (brick_id >= 0 && brick_id < kBrickCount) ? kBricks[brick_id].name : "";
}

Category brick_category(int brick_id) {
  return (brick_id >= 0 && brick_id < kBrickCount) ? kBricks[brick_id].category : Category::kOther;
}

int brick_from_name(std::string_view name) {
  std::string key = name_key(name);
  for (const Alias& a : kAliases)
    if (a.key == key) return a.brick;
  return -1;
}

Category custom_brick_category(std::string_view name) {
  if (name.substr(0, 4) == "MPI_" || name.substr(0, 4) == "MPI ") return Category::kCommunication;
  static constexpr std::string_view kCommunication[] = {
      "allreduce", "allgather", "reducescatter", "broadcast", "bcast",
      "alltoall",  "sendrecv",  "barrier",       "reduce"};
  const std::string key = name_key(name);
  for (std::string_view c : kCommunication)
    if (key == c) return Category::kCommunication;
  return Category::kOther;
}

bool is_communication_kernel(std::string_view name) {
  return name.substr(0, 10) == "ncclKernel" || name.substr(0, 13) == "ncclDevKernel";
}

std::optional<int32_t> layer_from_name(std::string_view name) {
  // "Layer 3", "layer.3", "layers.3", "layer_3", "model.layers.3"
  const std::string lower = lower_case(name);
  size_t pos = lower.rfind("layer");
  if (pos == std::string::npos) return std::nullopt;
  size_t i = pos + 5;
  if (i < lower.size() && lower[i] == 's') ++i;
  if (i < lower.size() && (lower[i] == ' ' || lower[i] == '.' || lower[i] == '_')) ++i;
  if (i >= lower.size() || !std::isdigit(static_cast<unsigned char>(lower[i]))) return std::nullopt;
  int32_t index = 0;
  auto [end, ec] = std::from_chars(lower.data() + i, lower.data() + lower.size(), index);
  if (ec != std::errc() || end != lower.data() + lower.size()) return std::nullopt;
  return index;
}

ScopeIdentity identify_scope(NodeKind kind, int brick_id, std::string_view name) {
  ScopeIdentity id;
  id.kind = kind;
  id.name = name;
  if (kind == NodeKind::kBrick) {
    if (brick_id < 0 && !name.empty()) brick_id = brick_from_name(name);
    if (brick_id >= 0 && brick_id < kBrickCount) {
      id.name = brick_name(brick_id);  // aliases become the canonical name
      id.category = brick_category(brick_id);
      id.name_is_static = true;
    } else {
      brick_id = -1;
      id.category = custom_brick_category(name);
    }
    id.brick_id = static_cast<int16_t>(brick_id);
  } else if (kind == NodeKind::kLayer) {
    id.name = "Layer";  // the index comes with each push
    id.name_is_static = true;
  } else if (custom_brick_category(name) == Category::kCommunication) {
    id.category = Category::kCommunication;  // an MPI call, a scope "AllReduce"
  }
  return id;
}

ScopeIdentity identify_named(std::string_view name, NodeKind default_kind) {
  if (layer_from_name(name)) return identify_scope(NodeKind::kLayer, -1, name);
  int brick = brick_from_name(name);
  if (brick >= 0) return identify_scope(NodeKind::kBrick, brick, "");
  return identify_scope(default_kind, -1, name);
}

}  // namespace brickprof
