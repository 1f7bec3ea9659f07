#pragma once
// Counting C++ heap allocations, for tests that promise a steady state allocates nothing. Only the
// test programs linked with the `variate_heap_allocations` object library (tests/CMakeLists.txt)
// replace operator new; this count is defined there alone.
#include <cstddef>
#include <cstdint>

namespace variate::testing {

/// Calls of operator new in this program so far.
std::int64_t heap_allocations();

/// The most bytes one call of operator new asked for since the last reset_largest_heap_allocation
/// (or the start), for tests that bound what a damaged input makes a reader allocate.
std::size_t largest_heap_allocation();
void reset_largest_heap_allocation();

}  // namespace variate::testing
