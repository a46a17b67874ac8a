// The line of a bytecode offset, from a code object's line table as each
// CPython version encodes it (the formats are described in CPython's
// Objects/lnotab_notes.txt (3.9, 3.10) and Objects/locations.md (3.11+)):
//  - 3.9 co_lnotab: (bytes advanced, signed lines advanced) pairs;
//  - 3.10 co_linetable (PEP 626): (bytes in range, signed line delta or
//    -128 for "no line") pairs;
//  - 3.11+ the location table (PEP 657): one entry per run of code units,
//    a header byte (bit 7 set, a 4-bit code, the run's length - 1) and,
//    by code, a line delta in a (signed) 6-bit varint and column bytes.
// Pure functions over bytes copied or read in place: no Python here. Each
// stops at the table's end, so a short or damaged table gives a wrong line,
// never a read past it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace brickprof::agent::python {

enum class LineTableFormat : uint8_t {
  kLnotab39,      // 3.9
  kLinetable310,  // 3.10
  kLocations311,  // 3.11 and later
};

// The line of the instruction at `byte_offset` (bytes from the start of the
// code), as PyCode_Addr2Line answers: the first line for a negative
// offset, -1 where the table says the instruction has no line. `*read`,
// if given: how many of the table's first bytes the answer depends on.
int64_t line_of(LineTableFormat format, const uint8_t* table, size_t size, int64_t first_line,
                int64_t byte_offset, size_t* read = nullptr);

}  // namespace brickprof::agent::python
