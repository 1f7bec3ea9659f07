#pragma once
// The invariants of a DataFile that read_cmdstan_json and read_csv_table document, for their
// harnesses.
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>

#include "fuzz_support.hpp"
#include "variate/data/data_file.hpp"

namespace variate::fuzz {

inline void check_data_file(const data::DataFile& file) {
  for (const auto& entry : file) {
    const data::DataArray& array = entry.second;
    std::int64_t count = 1;
    for (const std::int64_t size : array.shape) {
      expect(size >= 0, "a negative dimension");
      count *= size;
    }
    expect(count == static_cast<std::int64_t>(array.values.size()), "shape and number of values differ");
    for (const double x : array.values) {
      expect(std::isfinite(x), "a value that is not finite");
      expect(!array.integer || x == std::trunc(x), "an integer array holds a fraction");
    }
  }
}

}  // namespace variate::fuzz
