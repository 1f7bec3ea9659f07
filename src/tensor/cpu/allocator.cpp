// A caching allocator: freed blocks go to a free list per size class and are handed out again, so
// a loop that allocates the same shapes every iteration reaches the system allocator only during
// its first iterations (DESIGN.md: no heap allocation per gradient in steady state).
#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

#include "tensor/cpu/cpu_backend.hpp"

namespace variate::cpu {
namespace {

constexpr std::size_t kAlignment = 64;
constexpr int kClassesPerOctave = 4;  // size classes grow by 2^(1/4): at most ~19% slack
constexpr int kNumClasses = 64 * kClassesPerOctave;

// Header and data live in one block: [Storage | padding to 64 | data].
constexpr std::size_t kHeaderBytes = (sizeof(detail::Storage) + kAlignment - 1) / kAlignment * kAlignment;

int size_class(std::size_t bytes) {
  if (bytes <= kAlignment) return 0;
  int octave = 63 - __builtin_clzll(bytes - 1);  // 2^octave < bytes <= 2^(octave+1)
  std::size_t base = std::size_t(1) << octave;
  int step = int(((bytes - 1 - base) * kClassesPerOctave) >> octave);
  return octave * kClassesPerOctave + step + 1;
}

std::size_t class_bytes(int cls) {
  if (cls == 0) return kAlignment;
  int octave = (cls - 1) / kClassesPerOctave, step = (cls - 1) % kClassesPerOctave;
  std::size_t base = std::size_t(1) << octave;
  return base + ((base * std::size_t(step + 1)) / kClassesPerOctave);
}

struct Pool {
  std::mutex mutex;
  std::vector<detail::Storage*> free_lists[kNumClasses];
  std::int64_t system_allocations = 0;
};

// Never destroyed: tensors in static objects may be released during exit.
Pool& pool() {
  static Pool* p = new Pool;
  return *p;
}

// A small per-thread cache of small blocks in front of the shared pool, so that threads running
// chains side by side do not serialize on the pool's lock once per op. Fixed arrays: using it never
// allocates. Blocks left in it when the thread ends go back to the pool.
constexpr int kCachedClasses = 16 * kClassesPerOctave + 1;  // blocks up to 64 KiB
constexpr int kCacheDepth = 16;

struct ThreadCache {
  detail::Storage* blocks[kCachedClasses][kCacheDepth];
  int count[kCachedClasses] = {};
  ~ThreadCache() {
    Pool& p = pool();
    std::lock_guard lock(p.mutex);
    for (int c = 0; c < kCachedClasses; ++c)
      for (int i = 0; i < count[c]; ++i) p.free_lists[c].push_back(blocks[c][i]);
  }
};

ThreadCache& thread_cache() {
  thread_local ThreadCache cache;
  return cache;
}

}  // namespace

detail::Storage* CpuBackend::allocate_storage(std::size_t bytes) {
  const int cls = size_class(bytes);
  if (cls < kCachedClasses) {
    ThreadCache& cache = thread_cache();
    if (cache.count[cls] > 0) {
      detail::Storage* s = cache.blocks[cls][--cache.count[cls]];
      s->refs.store(1, std::memory_order_relaxed);
      s->bytes = bytes;
      return s;
    }
  }
  Pool& p = pool();
  {
    std::lock_guard lock(p.mutex);
    auto& list = p.free_lists[cls];
    if (!list.empty()) {
      detail::Storage* s = list.back();
      list.pop_back();
      s->refs.store(1, std::memory_order_relaxed);
      s->bytes = bytes;
      return s;
    }
    ++p.system_allocations;
  }
  // aligned_alloc needs a size that is a multiple of the alignment.
  const std::size_t total = (kHeaderBytes + class_bytes(cls) + kAlignment - 1) / kAlignment * kAlignment;
  void* block = std::aligned_alloc(kAlignment, total);
  if (!block) throw std::bad_alloc();
  auto* s = new (block) detail::Storage;
  s->data = static_cast<char*>(block) + kHeaderBytes;
  s->bytes = bytes;
  s->device = Device{};
  return s;
}

void CpuBackend::release_storage(detail::Storage* s) {
  const int cls = size_class(s->bytes);
  if (cls < kCachedClasses) {
    ThreadCache& cache = thread_cache();
    if (cache.count[cls] < kCacheDepth) {
      cache.blocks[cls][cache.count[cls]++] = s;
      return;
    }
  }
  Pool& p = pool();
  std::lock_guard lock(p.mutex);
  auto& list = p.free_lists[cls];
  // The free list's capacity grows with the number of blocks ever alive, so pushing back reaches
  // the system allocator only while the working set still grows.
  list.push_back(s);
}

std::int64_t CpuBackend::system_allocations() const {
  Pool& p = pool();
  std::lock_guard lock(p.mutex);
  return p.system_allocations;
}

}  // namespace variate::cpu
