// The replacement operator new that counts every C++ heap allocation of the program it is linked
// into. Built on malloc, so free is the matching release.
#include "support/heap_allocations.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<std::int64_t> allocations{0};
std::atomic<std::size_t> largest{0};
}  // namespace

void* operator new(std::size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  for (std::size_t seen = largest.load(std::memory_order_relaxed);
       n > seen && !largest.compare_exchange_weak(seen, n, std::memory_order_relaxed);) {
  }
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
// The nothrow form too (std::stable_sort's temporary buffer uses it): otherwise its memory would
// come from the default operator new and be released by the free below (ASan: alloc-dealloc mismatch).
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return ::operator new(n);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace variate::testing {

std::int64_t heap_allocations() { return allocations.load(); }
std::size_t largest_heap_allocation() { return largest.load(); }
void reset_largest_heap_allocation() { largest.store(0); }

}  // namespace variate::testing
