// Brick names, categories and aliases (see bricks.h).
#include "analysis/bricks.h"

#include <array>
#include <cctype>
#include <charconv>
#include <string>

namespace brickprof {
namespace {

struct BrickInfo {
  std::string_view name;
  Category category;
};

constexpr std::array<BrickInfo, kBrickCount> kBricks = {{
    {"RmsNorm", Category::kNorm},
    {"LayerNorm", Category::kNorm},
    {"QkvProjection", Category::kAttention},
    {"RopeEmbedding", Category::kAttention},
    {"AttentionScore", Category::kAttention},
    {"AttentionSoftmax", Category::kAttention},
    {"AttentionOutput", Category::kAttention},
    {"OutputProjection", Category::kAttention},
    {"GateProjection", Category::kFfn},
    {"UpProjection", Category::kFfn},
    {"Activation", Category::kFfn},
    {"DownProjection", Category::kFfn},
    {"Embedding", Category::kOther},
    {"LmHead", Category::kOther},
    {"Sampling", Category::kOther},
}};

struct Alias {
  std::string_view key;  // lower case, no separators
  int brick;
};

// Common spellings in inference engines (llama.cpp, vLLM, HF transformers).
constexpr Alias kAliases[] = {
    {"rmsnorm", 0},          {"norm", 0},           {"inputlayernorm", 0},
    {"postattentionlayernorm", 0},                  {"layernorm", 1},
    {"ln", 1},               {"qkvprojection", 2},  {"qkv", 2},
    {"qkvproj", 2},          {"ropeembedding", 3},  {"rope", 3},
    {"rotary", 3},           {"rotaryembedding", 3},{"attentionscore", 4},
    {"attention", 4},        {"attn", 4},           {"flashattention", 4},
    {"sdpa", 4},             {"attentionsoftmax", 5},{"softmax", 5},
    {"attentionoutput", 6},  {"attnoutput", 6},     {"outputprojection", 7},
    {"oproj", 7},            {"outproj", 7},        {"gateprojection", 8},
    {"gate", 8},             {"gateproj", 8},       {"upprojection", 9},
    {"up", 9},               {"upproj", 9},         {"activation", 10},
    {"silu", 10},            {"swiglu", 10},        {"gelu", 10},
    {"act", 10},             {"downprojection", 11},{"down", 11},
    {"downproj", 11},        {"embedding", 12},     {"embed", 12},
    {"embedtokens", 12},     {"tokenembedding", 12},{"lmhead", 13},
    {"output", 13},          {"sampling", 14},      {"sample", 14},
    {"sampler", 14},
};

std::string normalise(std::string_view name) {
  std::string key;
  key.reserve(name.size());
  for (char c : name) {
    if (c == '_' || c == '-' || c == ' ' || c == '.') continue;
    key.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return key;
}

}  // namespace

std::string_view brick_name(int brick_id) {
  return (brick_id >= 0 && brick_id < kBrickCount) ? kBricks[brick_id].name : "";
}

Category brick_category(int brick_id) {
  return (brick_id >= 0 && brick_id < kBrickCount) ? kBricks[brick_id].category : Category::kOther;
}

int brick_from_name(std::string_view name) {
  std::string key = normalise(name);
  for (const Alias& a : kAliases)
    if (a.key == key) return a.brick;
  return -1;
}

std::optional<int32_t> layer_from_name(std::string_view name) {
  // "Layer 3", "layer.3", "layers.3", "layer_3", "model.layers.3"
  std::string lower;
  for (char c : name) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
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

}  // namespace brickprof
