// A shapes record's text (Recorder::shapes_signature, recorder.h): interned
// once per distinct signature like a name, so a brick that runs a million
// times with the same shapes costs one site and a 16-byte record each time.
#include <charconv>

#include "agent/recorder/recorder.h"

namespace brickprof::agent {
namespace {

void append_dims(std::string& s, const std::vector<int64_t>& dims) {
  if (dims.empty()) {
    s += '_';
    return;
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) s += 'x';
    s += std::to_string(dims[i]);
  }
}

bool parse_dims(std::string_view text, std::vector<int64_t>* dims) {
  dims->clear();
  if (text == "_") return true;
  if (text.empty()) return false;
  while (true) {
    const size_t x = text.find('x');
    const std::string_view part = text.substr(0, x);
    int64_t v = 0;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (ec != std::errc() || end != part.data() + part.size() || part.empty()) return false;
    dims->push_back(v);
    if (x == std::string_view::npos) return true;
    text.remove_prefix(x + 1);
  }
}

}  // namespace

std::string Recorder::shapes_signature(std::string_view dtype,
                                       const std::vector<std::vector<int64_t>>& inputs,
                                       const std::vector<int64_t>& output) {
  std::string s(dtype);
  s += '|';
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i > 0) s += ';';
    append_dims(s, inputs[i]);
  }
  s += '|';
  append_dims(s, output);
  return s;
}

bool Recorder::parse_shapes_signature(std::string_view text, NodeShape* out) {
  const size_t first = text.find('|');
  const size_t second = first == std::string_view::npos ? first : text.find('|', first + 1);
  if (second == std::string_view::npos || first == 0) return false;
  NodeShape shape;
  shape.dtype = std::string(text.substr(0, first));
  std::string_view inputs = text.substr(first + 1, second - first - 1);
  while (!inputs.empty()) {
    const size_t semi = inputs.find(';');
    shape.inputs.emplace_back();
    if (!parse_dims(inputs.substr(0, semi), &shape.inputs.back())) return false;
    if (semi == std::string_view::npos) break;
    inputs.remove_prefix(semi + 1);
    if (inputs.empty()) return false;  // a trailing ';'
  }
  if (!parse_dims(text.substr(second + 1), &shape.output)) return false;
  shape.node = out->node;
  *out = std::move(shape);
  return true;
}

}  // namespace brickprof::agent
