// A scope's element type and shapes as one line of text, the form in which
// brickprof_set_shapes() records them: interned as a site, so a shape seen
// once costs one word per use in the thread buffers, and the exit write
// parses it back into the trace's `shapes`.
//
//   f32 [1,4096] [4096,4096] -> [1,4096]
//
// The dtype, then each input's dims in brackets, then "->" and the
// output's; a scalar is "[]". The dtype keeps only [A-Za-z0-9_.]; anything
// else becomes '_' (so the text always parses).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace brickprof::agent {

struct ShapeSignature {
  std::string dtype;
  std::vector<std::vector<int64_t>> inputs;
  std::vector<int64_t> output;
};

// Writes the text into `out` (at most `capacity` bytes, no terminator);
// its length, or 0 when it does not fit. No allocation: the scope API's
// path. A null `dtype` is written as "?".
size_t format_shape_text(char* out, size_t capacity, const char* dtype, const int64_t* dims,
                         const uint32_t* ranks, uint32_t n_inputs, const int64_t* out_dims,
                         uint32_t out_rank);

// The text back; false for anything format_shape_text() does not write.
bool parse_shape_text(std::string_view text, ShapeSignature* shape);

}  // namespace brickprof::agent
