// The handler that kernel code built with -fsanitize=alignment calls (GCC's
// UBSan ABI; libubsan is not linked): a load or store through a pointer not
// aligned for its type. A GPU faults on those ("misaligned address"), while
// x86 would quietly load, so the emulator fails the launch instead.
#include <cstdint>

#include "emulator.h"

namespace {

// UBSan's data for a type mismatch (version 1 of its handler ABI).
struct SourceLocation {
  const char* file;
  uint32_t line, column;
};
struct TypeDescriptor {
  uint16_t kind, info;
  char name[1];
};
struct TypeMismatchData {
  SourceLocation location;
  const TypeDescriptor* type;
  unsigned char log_alignment;
  unsigned char check_kind;  // 0 load, 1 store, others: member access, reference, ...
};

}  // namespace

extern "C" void __ubsan_handle_type_mismatch_v1_abort(TypeMismatchData* data, uintptr_t pointer) {
  cuda_emulator::report_misaligned(reinterpret_cast<const void*>(pointer),
                                   1u << data->log_alignment, data->type->name,
                                   data->location.file, data->location.line);
}
