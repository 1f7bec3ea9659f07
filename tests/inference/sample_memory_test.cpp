#include "variate/inference/sample_memory.hpp"

#include <gtest/gtest.h>

#include "variate/inference/kernel.hpp"

namespace variate::inference {
namespace {

TEST(SampleMemory, CountsKeptDrawsAndTheMetric) {
  const double stats = double(sizeof(TransitionStats));
  // 4 chains x 1000 draws, 650 coordinates written as 657 columns.
  const SampleMemory diag = estimate_sample_memory(4, 1000, 650, 657, false);
  EXPECT_DOUBLE_EQ(diag.draws, 4 * 1000 * (8 * 650 + stats + 8 * 657));
  EXPECT_DOUBLE_EQ(diag.metric, 4 * 3 * 8 * 650);
  const SampleMemory dense = estimate_sample_memory(4, 1000, 650, 657, true);
  EXPECT_DOUBLE_EQ(dense.draws, diag.draws);
  EXPECT_DOUBLE_EQ(dense.metric, 4 * 3 * 8 * 650.0 * 650.0);
  EXPECT_DOUBLE_EQ(dense.total(), dense.draws + dense.metric);
  // The metric grows as the dimension squared: 100000 coordinates take 960 GB for 4 chains.
  EXPECT_DOUBLE_EQ(estimate_sample_memory(4, 1, 100000, 1, true).metric, 9.6e11);
}

TEST(SampleMemory, AvailableMemoryIsKnownOnLinux) {
  const std::optional<double> available = available_memory_bytes();
  ASSERT_TRUE(available.has_value());
  EXPECT_GT(*available, 1e6);
  EXPECT_LT(*available, 1e15);
}

TEST(SampleMemory, ByteTextUsesDecimalUnits) {
  EXPECT_EQ(byte_text(512), "512 bytes");
  EXPECT_EQ(byte_text(2.1e9), "2.1 GB");
  EXPECT_EQ(byte_text(9.6e11), "960 GB");
  EXPECT_EQ(byte_text(1.2345e13), "12.3 TB");
}

}  // namespace
}  // namespace variate::inference
