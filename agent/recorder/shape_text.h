// The text brickprof_set_shapes() records for the innermost scope, written
// on the program's thread without allocating: the form of
// Recorder::shapes_signature (recorder.h), which the exit write parses back
// (Recorder::parse_shapes_signature):
//
//   f32|1x4096;4096x4096|1x4096
//
// The dtype, '|', the inputs separated by ';' (each its dims joined by 'x',
// a scalar "_"), '|', the output's dims. The dtype keeps only
// [A-Za-z0-9_.]; anything else becomes '_' (so the text always parses).
#pragma once

#include <cstddef>
#include <cstdint>

namespace brickprof::agent {

// Writes the text into `out` (at most `capacity` bytes, no terminator);
// its length, or 0 when it does not fit or an array it needs is null. A
// null or empty `dtype` is written as "?".
size_t format_shape_text(char* out, size_t capacity, const char* dtype, const int64_t* dims,
                         const uint32_t* ranks, uint32_t n_inputs, const int64_t* out_dims,
                         uint32_t out_rank);

}  // namespace brickprof::agent
