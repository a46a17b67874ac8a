// Checksum mode's parts without a driver: the live-allocation map the
// memory calls keep, the pointees of a demangled signature, and a launch's
// pointer arguments from the PTX registry's parameter list.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "agent/cupti/kernel_args.h"
#include "agent/cupti/live_allocations.h"
#include "agent/ptx/registry.h"

namespace brickprof::agent {
namespace {

MemoryCallFacts facts(MemoryOp op, MemorySource source, uint64_t address, uint64_t bytes) {
  MemoryCallFacts f;
  f.op = op;
  f.source = source;
  f.address = address;
  f.bytes = bytes;
  return f;
}

TEST(LiveAllocations, AllocationsAndMappingsUntilFreed) {
  live_allocations::Allocation a;
  live_allocations::note(facts(MemoryOp::kAlloc, MemorySource::kDevice, 0x10000, 0x1000));
  live_allocations::note(facts(MemoryOp::kMap, MemorySource::kMapping, 0x40000, 0x2000));
  ASSERT_TRUE(live_allocations::find(0x10000, &a));
  EXPECT_EQ(a.base, 0x10000u);
  EXPECT_EQ(a.bytes, 0x1000u);
  EXPECT_TRUE(live_allocations::find(0x10fff, &a));
  EXPECT_FALSE(live_allocations::find(0x11000, &a)) << "one past the end";
  EXPECT_FALSE(live_allocations::find(0xffff, &a));
  ASSERT_TRUE(live_allocations::find(0x41000, &a));
  EXPECT_EQ(a.base, 0x40000u);
  // A physical allocation's "address" is its handle; host memory is read in place.
  live_allocations::note(facts(MemoryOp::kAlloc, MemorySource::kPhysical, 0x80000, 0x1000));
  MemoryCallFacts pinned = facts(MemoryOp::kAlloc, MemorySource::kPinned, 0x90000, 0x1000);
  pinned.host = true;
  live_allocations::note(pinned);
  EXPECT_FALSE(live_allocations::find(0x80000, &a));
  EXPECT_FALSE(live_allocations::find(0x90000, &a));
  live_allocations::note(facts(MemoryOp::kFree, MemorySource::kDevice, 0x10000, 0));
  live_allocations::note(facts(MemoryOp::kUnmap, MemorySource::kMapping, 0x40000, 0x2000));
  EXPECT_FALSE(live_allocations::find(0x10000, &a));
  EXPECT_FALSE(live_allocations::find(0x41000, &a));
  EXPECT_EQ(live_allocations::dropped(), 0u);
}

TEST(KernelArgs, PointeesOfADemangledSignature) {
  const std::vector<Pointee> saxpy = pointees_of("saxpy(float, float const*, float*, int)");
  ASSERT_EQ(saxpy.size(), 4u);
  EXPECT_FALSE(saxpy[0].pointer);
  EXPECT_TRUE(saxpy[1].pointer);
  EXPECT_TRUE(saxpy[1].read_only);
  EXPECT_EQ(saxpy[1].type, ElementType::kF32);
  EXPECT_TRUE(saxpy[2].pointer);
  EXPECT_FALSE(saxpy[2].read_only);
  EXPECT_EQ(saxpy[2].type, ElementType::kF32);
  EXPECT_FALSE(saxpy[3].pointer);

  const std::vector<Pointee> mixed = pointees_of(
      "ns::k<float, 2>(std::pair<int, int>*, __half*, __nv_bfloat16 const*, double*, long*, "
      "unsigned char*, float**, int* __restrict__)");
  ASSERT_EQ(mixed.size(), 8u) << "the template's commas are not the list's";
  EXPECT_EQ(mixed[0].type, ElementType::kBytes);
  EXPECT_TRUE(mixed[0].pointer);
  EXPECT_EQ(mixed[1].type, ElementType::kF16);
  EXPECT_EQ(mixed[2].type, ElementType::kBf16);
  EXPECT_TRUE(mixed[2].read_only);
  EXPECT_EQ(mixed[3].type, ElementType::kF64);
  EXPECT_EQ(mixed[4].type, ElementType::kI64);
  EXPECT_EQ(mixed[5].type, ElementType::kU8);
  EXPECT_EQ(mixed[6].type, ElementType::kBytes) << "pointers to pointers: bytes";
  EXPECT_EQ(mixed[7].type, ElementType::kI32);

  EXPECT_TRUE(pointees_of("bl_add").empty()) << "an extern \"C\" name has no signature";
  EXPECT_TRUE(pointees_of("k()").empty());
}

TEST(KernelArgs, FromThePtxRegistryWithTheSignaturesTypes) {
  const std::string ptx =
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      ".visible .entry _Z5saxpyfPKfPfi(\n\t.param .f32 _Z5saxpyfPKfPfi_param_0,\n"
      "\t.param .u64 _Z5saxpyfPKfPfi_param_1,\n\t.param .u64 _Z5saxpyfPKfPfi_param_2,\n"
      "\t.param .u32 _Z5saxpyfPKfPfi_param_3\n)\n{\n\tret;\n}\n"
      ".visible .entry bl_add(\n\t.param .u64 bl_add_param_0,\n\t.param .u64 bl_add_param_1,\n"
      "\t.param .u64 bl_add_param_2,\n\t.param .u32 bl_add_param_3\n)\n{\n\tret;\n}\n";
  PtxRegistry registry;
  std::string error;
  ASSERT_TRUE(registry.add_image(ptx.c_str(), 0, &error)) << error;
  Driver no_param_info;  // a driver older than CUDA 12.4
  float alpha = 2;
  uint64_t x = 0x1000, y = 0x2000;
  int n = 7;
  void* params[] = {&alpha, &x, &y, &n};
  std::vector<PointerArg> args;
  ASSERT_EQ(pointer_args(no_param_info, registry, nullptr, "_Z5saxpyfPKfPfi", params, &args),
            ArgsFrom::kPtx);
  ASSERT_EQ(args.size(), 2u);
  EXPECT_EQ(args[0].index, 1u);
  EXPECT_EQ(args[0].value, 0x1000u);
  EXPECT_TRUE(args[0].read_only);
  EXPECT_EQ(args[1].index, 2u);
  EXPECT_EQ(args[1].value, 0x2000u);
  EXPECT_FALSE(args[1].read_only);
  EXPECT_EQ(args[1].type, ElementType::kF32);

  void* add_params[] = {&x, &y, &x, &n};
  ASSERT_EQ(pointer_args(no_param_info, registry, nullptr, "bl_add", add_params, &args),
            ArgsFrom::kPtx);
  ASSERT_EQ(args.size(), 3u);
  EXPECT_EQ(args[2].type, ElementType::kBytes);
  EXPECT_FALSE(args[2].read_only) << "extern \"C\": nothing known to be const";

  EXPECT_EQ(pointer_args(no_param_info, registry, nullptr, "unseen", params, &args),
            ArgsFrom::kNone);
}

}  // namespace
}  // namespace brickprof::agent
