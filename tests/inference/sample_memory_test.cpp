#include "variate/inference/sample_memory.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "variate/inference/kernel.hpp"

namespace variate::inference {
namespace {

TEST(SampleMemory, CountsKeptDrawsAndTheMetric) {
  const double stats = double(sizeof(TransitionStats));
  // 4 chains x 1000 draws, 650 coordinates written as 657 columns.
  const SampleMemory diag = estimate_sample_memory(4, 1000, 650, 657, MetricKind::diagonal);
  EXPECT_DOUBLE_EQ(diag.draws, 4 * 1000 * (8 * 650 + stats + 8 * 657));
  EXPECT_DOUBLE_EQ(diag.metric, 4 * 3 * 8 * 650);
  const SampleMemory dense = estimate_sample_memory(4, 1000, 650, 657, MetricKind::dense);
  EXPECT_DOUBLE_EQ(dense.draws, diag.draws);
  EXPECT_DOUBLE_EQ(dense.metric, 4 * 3 * 8 * 650.0 * 650.0);
  EXPECT_DOUBLE_EQ(dense.total(), dense.draws + dense.metric);
  // The metric grows as the dimension squared: 100000 coordinates take 960 GB for 4 chains.
  EXPECT_DOUBLE_EQ(estimate_sample_memory(4, 1, 100000, 1, MetricKind::dense).metric, 9.6e11);
  // A low-rank metric's warm-up keeps its windows' draws and gradients: 18 x 80 vectors more per
  // chain with the default windows of 80 draws, 1443 x 8 x 100000 bytes = 1.15 GB.
  EXPECT_DOUBLE_EQ(estimate_sample_memory(1, 1, 100000, 1, MetricKind::low_rank).metric, 1443 * 8 * 1e5);
  FisherOptions shorter;
  shorter.switch_interval = 10;
  EXPECT_DOUBLE_EQ(estimate_sample_memory(1, 1, 100, 1, MetricKind::low_rank, shorter).metric, 183 * 8 * 100);
}

TEST(SampleMemory, AvailableMemoryIsKnownOnLinux) {
  const std::optional<double> available = available_memory_bytes();
  ASSERT_TRUE(available.has_value());
  EXPECT_GT(*available, 1e6);
  EXPECT_LT(*available, 1e15);
}

// A cgroup file system in a temporary folder: `files` maps paths under it to their contents.
std::filesystem::path fake_cgroups(const std::string& name, const std::map<std::string, std::string>& files) {
  const std::filesystem::path root = std::filesystem::temp_directory_path() / ("variate_cgroup_" + name);
  std::filesystem::remove_all(root);
  for (const auto& [path, text] : files) {
    std::filesystem::create_directories((root / path).parent_path());
    std::ofstream(root / path) << text << "\n";
  }
  return root;
}

TEST(SampleMemory, CgroupV2HeadroomIsTheLeastOverTheCgroupAndItsAncestors) {
  const std::filesystem::path root =
      fake_cgroups("v2", {{"memory.max", "max"},
                          {"memory.current", "9000000000"},
                          {"jobs/memory.max", "4000000000"},
                          {"jobs/memory.current", "3500000000"},
                          {"jobs/run/memory.max", "2000000000"},
                          {"jobs/run/memory.current", "1000000000"},
                          {"jobs/run/memory.stat", "anon 700000000\ninactive_file 300000000"}});
  // The parent leaves 0.5 GB, less than the run's own 1 GB.
  EXPECT_EQ(cgroup_memory_headroom("0::/jobs/run\n", root), 5e8);
  // Inactive page cache is reclaimable: 2 GB - (1.5 GB - 1 GB).
  const std::filesystem::path cache = fake_cgroups("v2cache", {{"box/memory.max", "2000000000"},
                                                               {"box/memory.current", "1500000000"},
                                                               {"box/memory.stat", "inactive_file 1000000000"}});
  EXPECT_EQ(cgroup_memory_headroom("0::/box\n", cache), 1.5e9);
  std::filesystem::remove_all(cache);
  EXPECT_EQ(cgroup_memory_headroom("0::/jobs\n", root), 5e8);
  EXPECT_FALSE(cgroup_memory_headroom("0::/\n", root).has_value());  // "max": no limit
  EXPECT_FALSE(cgroup_memory_headroom("0::/elsewhere\n", root).has_value());
  std::filesystem::remove_all(root);
}

TEST(SampleMemory, CgroupV1ReadsTheMemoryControllerAndIgnoresItsNoLimitValue) {
  const std::filesystem::path root = fake_cgroups("v1", {{"memory/memory.limit_in_bytes", "9223372036854771712"},
                                                         {"memory/memory.usage_in_bytes", "7000000000"},
                                                         {"memory/box/memory.limit_in_bytes", "3000000000"},
                                                         {"memory/box/memory.usage_in_bytes", "1000000000"},
                                                         {"memory/box/memory.stat", "cache 5\ntotal_inactive_file 0"},
                                                         {"cpu/box/cpu.shares", "1024"}});
  EXPECT_EQ(cgroup_memory_headroom("5:cpu,cpuacct:/box\n4:memory:/box\n0::/\n", root), 2e9);
  EXPECT_FALSE(cgroup_memory_headroom("4:memory:/\n", root).has_value());
  EXPECT_FALSE(cgroup_memory_headroom("5:cpu,cpuacct:/box\n", root).has_value());
  EXPECT_FALSE(cgroup_memory_headroom("not a cgroup line\n", root).has_value());
  std::filesystem::remove_all(root);
}

TEST(SampleMemory, ByteTextUsesDecimalUnits) {
  EXPECT_EQ(byte_text(512), "512 bytes");
  EXPECT_EQ(byte_text(2.1e9), "2.1 GB");
  EXPECT_EQ(byte_text(9.6e11), "960 GB");
  EXPECT_EQ(byte_text(1.2345e13), "12.3 TB");
}

}  // namespace
}  // namespace variate::inference
