#pragma once
// What the tape saves for the backward pass, split by the kind of op that saved it: the measured
// memory of reverse mode (and of randomized autodiff, autodiff/rad.hpp), for tests and benchmarks.
// The totals are saved_bytes() and last_sweep_saved_bytes() of autodiff/tape.hpp.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace variate::autodiff {

/// The bytes one kind of op saved: `op` is the function that records the rule ("linear", "relu",
/// "operator*"), read from the rule's C++ type.
struct OpSavedBytes {
  std::string op;
  std::size_t bytes;
};

/// The bytes saved so far on the active tape (empty outside a transform), and in the most recent
/// completed sweep on this thread, by op kind in order of each kind's first node.
std::vector<OpSavedBytes> saved_bytes_by_op();
std::vector<OpSavedBytes> last_sweep_saved_bytes_by_op();
/// The entry for `op` of last_sweep_saved_bytes_by_op(), 0 when that op saved nothing.
std::size_t last_sweep_saved_bytes(std::string_view op);

}  // namespace variate::autodiff
