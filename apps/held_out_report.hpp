#pragma once
// `variate sample` for a classifier: the held-out accuracy of its posterior draws.
#include <cstdint>
#include <ostream>

#include "sample_context.hpp"

namespace variate::cli {

/// Prints the accuracy of Bayesian model averaging and of single draws over every chain's first
/// `per_chain` written draws (with --thin, every thin-th draw). Requires a classifier
/// (job.model.predict).
void print_held_out_accuracy(std::ostream& out, const SampleContext& job, const inference::SampleResult& result,
                             std::int64_t per_chain);

}  // namespace variate::cli
