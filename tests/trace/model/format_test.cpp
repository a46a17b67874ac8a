// Time, size and dimension formatting used by the text outputs.
#include <gtest/gtest.h>

#include <limits>

#include "trace/model/format.h"

namespace brickprof {
namespace {

TEST(Format, DurationUnits) {
  EXPECT_EQ(format_duration(0), "0ns");
  EXPECT_EQ(format_duration(999), "999ns");
  EXPECT_EQ(format_duration(1000), "1.0µs");
  EXPECT_EQ(format_duration(12345), "12.3µs");
  EXPECT_EQ(format_duration(12350), "12.4µs");
  EXPECT_EQ(format_duration(50000), "50.0µs");
  EXPECT_EQ(format_duration(999949), "999.9µs");
  EXPECT_EQ(format_duration(999950), "1.00ms");  // rounding picks the unit
  EXPECT_EQ(format_duration(1230000), "1.23ms");
  EXPECT_EQ(format_duration(999994999), "999.99ms");
  EXPECT_EQ(format_duration(999995000), "1.00s");
  EXPECT_EQ(format_duration(4560000000), "4.56s");
  EXPECT_EQ(format_duration(7200000000000), "7200.00s");
  EXPECT_EQ(format_duration(-1500), "-1.5µs");
  EXPECT_EQ(format_duration(std::numeric_limits<int64_t>::min()), "-9223372036.85s");
}

TEST(Format, ParseDuration) {
  int64_t ns = -1;
  EXPECT_TRUE(parse_duration("200ns", &ns));
  EXPECT_EQ(ns, 200);
  EXPECT_TRUE(parse_duration("5us", &ns));
  EXPECT_EQ(ns, 5000);
  EXPECT_TRUE(parse_duration("5µs", &ns));
  EXPECT_EQ(ns, 5000);
  EXPECT_TRUE(parse_duration("1.5", &ns));  // plain: µs
  EXPECT_EQ(ns, 1500);
  EXPECT_TRUE(parse_duration("0.5ms", &ns));
  EXPECT_EQ(ns, 500000);
  EXPECT_TRUE(parse_duration("2s", &ns));
  EXPECT_EQ(ns, 2000000000);
  EXPECT_TRUE(parse_duration("0", &ns));
  EXPECT_EQ(ns, 0);
  EXPECT_TRUE(parse_duration("0.0004us", &ns));  // rounds to the nanosecond
  EXPECT_EQ(ns, 0);
  ns = 7;
  for (const char* bad : {"", "us", "-1us", "1 us", "1xs", "1usx", "nan", "inf", "1e30s", "+1"}) {
    EXPECT_FALSE(parse_duration(bad, &ns)) << bad;
    EXPECT_EQ(ns, 7) << bad;  // untouched
  }
}

TEST(Format, Bytes) {
  EXPECT_EQ(format_bytes(0), "0B");
  EXPECT_EQ(format_bytes(1023), "1023B");
  EXPECT_EQ(format_bytes(1024), "1.0KiB");
  EXPECT_EQ(format_bytes(1536), "1.5KiB");
  EXPECT_EQ(format_bytes(4 << 20), "4.0MiB");
  EXPECT_EQ(format_bytes((1 << 20) - 1), "1.0MiB");
  EXPECT_EQ(format_bytes(3ull << 30), "3.0GiB");
}

TEST(Format, Dims) {
  std::string s;
  const uint32_t flat[3] = {16, 1, 1};
  append_dims(s, flat);
  EXPECT_EQ(s, "16");
  s.clear();
  const uint32_t cube[3] = {8, 4, 1};
  append_dims(s, cube);
  EXPECT_EQ(s, "8×4×1");
}

TEST(Format, Rate) {
  EXPECT_EQ(format_rate(0), "0");
  EXPECT_EQ(format_rate(950), "950");
  EXPECT_EQ(format_rate(12500), "12.50K");
  EXPECT_EQ(format_rate(3.2e9), "3.20G");
  EXPECT_EQ(format_rate(999.4), "999");
  EXPECT_EQ(format_rate(999.6), "1.00K");  // the prefix is picked after rounding
  EXPECT_EQ(format_rate(950, "B"), "950B/s");
  EXPECT_EQ(format_rate(12.345e9, "B"), "12.35GB/s");  // SI, as bandwidths are quoted
  EXPECT_EQ(format_rate(83e12, "FLOP"), "83.00TFLOP/s");
  EXPECT_EQ(format_rate(0, "B"), "0B/s");
}

TEST(Format, CellsCountDisplayColumns) {
  EXPECT_EQ(pad_left("1.0µs", 7), "  1.0µs");  // µ is two bytes, one column
  EXPECT_EQ(pad_right("2×4", 5), "2×4  ");
  EXPECT_EQ(pad_left("longer", 3), "longer");  // kept whole
  EXPECT_EQ(clip("bl_gemv_q4k", 11), "bl_gemv_q4k");
  EXPECT_EQ(clip("bl_gemv_q4k", 8), "bl_ge...");
  EXPECT_EQ(clip("ab\xc2\xb5"
                 "cdef",
                 6),
            "ab...");  // not through the middle of µ
}

TEST(Format, Fixed) {
  EXPECT_EQ(format_fixed(12.345, 1), "12.3");
  EXPECT_EQ(format_fixed(7, 2), "7.00");
}

}  // namespace
}  // namespace brickprof
