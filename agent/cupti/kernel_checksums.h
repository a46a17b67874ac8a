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
// How: on the GPU (BRICKPROF_CHECKSUMS=1), each buffer's digest is queued
// on the launch's stream right after the kernel (device_digest.h) and
// collected when it is done, with no host synchronisation; a buffer the
// device path cannot take (the reason counted) goes the host-copy way.
// The host-copy path (BRICKPROF_CHECKSUMS=host, and that fallback): on the
// launching thread, right after the launch returns, the launch's stream is
// synchronised and each buffer copied to the host (device_reads.h) and
// digested there. Both give the same digest bit for bit (digest_of, with
// the element type of the signature; bytes where it is not known). Either
// way checksum mode changes timing: the trace says which path ran and
// what the device path waited (diagnostics.checksum_mode) and report warns.
// What is not digested is counted and the trace's warnings say why:
// launches while a stream was being captured (they do not run then),
// launches through `extra` (no parameter pointers), kernels whose
// parameters neither the driver nor a PTX module describes, buffers over
// device_reads::kMaxBufferBytes (host-copy path), failed copies. Kernels
// replayed from a CUDA graph are not digested (the replay is one launch of
// many kernels).
#pragma once

#include <cupti.h>

#include "agent/cupti/state.h"
#include "agent/recorder/staged_records.h"
#include "trace/model/trace.h"

namespace brickprof::agent::kernel_checksums {

// At a driver launch call's exit (cbid: which launch call), in checksum
// mode: first collects the device path's finished digests. Never fails the
// launch: what cannot be read is counted.
void after_launch(GpuState& s, CUpti_CallbackId cbid, const CUpti_CallbackData* cb);

// Into `header`: each digest on its kernel's node (the staged records'
// ids, by correlation; the device path's in flight are waited for first),
// diagnostics.checksum_mode, and warnings for what was not digested.
void contribute(const GpuState& s, const StagedRecords& staged, Trace& header);

// Before a context is destroyed: the device path's digests in it are
// collected while its events still exist.
void context_destroying(const GpuState& s, CUcontext ctx);

void reset_after_fork();

}  // namespace brickprof::agent::kernel_checksums
