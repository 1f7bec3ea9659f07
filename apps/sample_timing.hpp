#pragma once
// The closing lines of `variate sample`: where the time went and what was written.
#include <chrono>
#include <filesystem>
#include <ostream>

#include "sample_context.hpp"

namespace variate::cli {

/// `wall_start`: when the job started; `per_device`: whether devices wrote files of their own.
void print_timing(std::ostream& out, const SampleContext& job, const inference::SampleResult& result,
                  std::chrono::steady_clock::time_point wall_start, bool per_device, const std::filesystem::path& dir);

}  // namespace variate::cli
