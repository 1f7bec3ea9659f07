// parallel_blocks: every block runs once, with bounds that depend only on n and the block size,
// and a thread that has finished its share takes blocks from a share still in progress.
#include <gtest/gtest.h>
#include <omp.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "tensor/cpu/strided_loop.hpp"

namespace variate::cpu {
namespace {

// Restores the thread count a test changes.
class ThreadCount {
 public:
  explicit ThreadCount(int threads) : saved_(omp_get_max_threads()) { omp_set_num_threads(threads); }
  ~ThreadCount() { omp_set_num_threads(saved_); }

 private:
  int saved_;
};

TEST(ParallelBlocks, RunsEveryBlockOnceWithItsBounds) {
  for (const int threads : {1, 2, 3, 5}) {
    const ThreadCount use(threads);
    for (const std::int64_t n : {1, 7, 64, 1000}) {
      for (const std::int64_t block : {1, 3, 64}) {
        const std::int64_t blocks = (n + block - 1) / block;
        std::vector<std::atomic<int>> runs(static_cast<std::size_t>(blocks));
        std::atomic<bool> bounds_ok{true};
        parallel_blocks(n, block, [&](std::int64_t begin, std::int64_t end) {
          const std::int64_t k = begin / block;
          if (begin != k * block || end != std::min(n, begin + block)) bounds_ok = false;
          ++runs[static_cast<std::size_t>(k)];
        });
        EXPECT_TRUE(bounds_ok) << "threads " << threads << ", n " << n << ", block " << block;
        for (std::int64_t k = 0; k < blocks; ++k)
          EXPECT_EQ(runs[static_cast<std::size_t>(k)], 1)
              << "block " << k << " of " << blocks << ", threads " << threads << ", n " << n;
      }
    }
  }
}

TEST(ParallelBlocks, AFinishedThreadTakesBlocksOfASlowShare) {
  // On a thread of its own: its pool's helpers have missed no call yet, so the call wakes them
  // (a pool whose helpers missed earlier calls may run the next ones alone: HelperBackoff).
  std::thread caller([] {
    const ThreadCount use(2);
    // Blocks 0-3 are the calling thread's share and each takes 100 ms; the helper's share, blocks
    // 4-7, takes no time, so the helper goes on to take blocks from the back of the caller's share
    // while the caller is still in its first block (unless the helper starts 300 ms late).
    constexpr int kBlocks = 8;
    std::vector<std::thread::id> ran_on(kBlocks);
    parallel_blocks(kBlocks, 1, [&](std::int64_t begin, std::int64_t) {
      ran_on[static_cast<std::size_t>(begin)] = std::this_thread::get_id();
      if (begin < kBlocks / 2) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    });
    const auto self = std::this_thread::get_id();
    EXPECT_EQ(ran_on[0], self);  // a share's owner starts at its front
    EXPECT_NE(ran_on[3], self);  // the last block of the slow share was taken by the helper
    for (int k = kBlocks / 2; k < kBlocks; ++k) EXPECT_EQ(ran_on[std::size_t(k)], ran_on[3]) << "block " << k;
  });
  caller.join();
}

}  // namespace
}  // namespace variate::cpu
