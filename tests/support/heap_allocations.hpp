#pragma once
// Counting C++ heap allocations, for tests that promise a steady state allocates nothing. Only the
// test programs linked with the `variate_heap_allocations` object library (tests/CMakeLists.txt)
// replace operator new; this count is defined there alone.
#include <cstdint>

namespace variate::testing {

/// Calls of operator new in this program so far.
std::int64_t heap_allocations();

}  // namespace variate::testing
