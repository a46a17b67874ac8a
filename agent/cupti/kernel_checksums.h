// Checksum mode (BRICKPROF_CHECKSUMS=1, `brickprof run --checksums`): after
// each kernel launch, a digest (trace/model/checksum.h) of each buffer the
// kernel may have written, on the kernel's node in the trace's checksums.
//
// Which buffers: the launch's pointer arguments (kernel_args.h) that fall
// inside a live device allocation (live_allocations.h), less those its C++
// signature says are pointers to const. How much of each: from the pointer
// to the end of its allocation (a kernel writes at and after the pointer
// it is given; the whole allocation would also take in what lies before,
// which a caching allocator fills with other tensors).
//
// How (the host-copy path): on the launching thread, right after the launch
// returns, the launch's stream is synchronised and each buffer copied to the
// host (device_reads.h) and digested there with the element type of the
// signature (bytes where it is not known). So checksum mode changes timing:
// the trace says it was on (diagnostics.checksum_mode) and report warns.
// What is not digested is counted and the trace's warnings say why:
// launches while a stream was being captured (they do not run then),
// launches through `extra` (no parameter pointers), kernels whose
// parameters neither the driver nor a PTX module describes, buffers over
// device_reads::kMaxBufferBytes, failed copies. Kernels replayed from a
// CUDA graph are not digested (the replay is one launch of many kernels).
#pragma once

#include <cupti.h>

#include "agent/cupti/state.h"
#include "agent/recorder/staged_records.h"
#include "trace/model/trace.h"

namespace brickprof::agent::kernel_checksums {

// At a driver launch call's exit (cbid: which launch call), in checksum
// mode. Never fails the launch: what cannot be read is counted.
void after_launch(GpuState& s, CUpti_CallbackId cbid, const CUpti_CallbackData* cb);

// Into `header`: each digest on its kernel's node (the staged records'
// ids, by correlation), diagnostics.checksum_mode, and warnings for what
// was not digested.
void contribute(const GpuState& s, const StagedRecords& staged, Trace& header);

void reset_after_fork();

}  // namespace brickprof::agent::kernel_checksums
