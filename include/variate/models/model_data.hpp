#pragma once
// The data a model reads, by name, as Stan's `data` block declares it: from a CmdStan JSON (or CSV)
// file given with --data, or from a built-in model's embedded values.
//
//   const std::int64_t J = data.integer("J");
//   const Tensor y = data.values("y", {J});              // in the run's precision
//   const Tensor sigma = data.positive_values("sigma", {J});
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "variate/core/dtype.hpp"
#include "variate/data/data_file.hpp"
#include "variate/tensor/tensor.hpp"

namespace variate::models {

class ModelData {
 public:
  /// `source` names where the variables came from (a file's path) in error messages; `dtype` is
  /// the precision real values are returned in (f64 or f32).
  ModelData(data::DataFile variables, std::string source, DType dtype = DType::f64);

  /// A scalar integer variable (Stan's `int N;`).
  std::int64_t integer(const std::string& name) const;
  /// A real array of exactly `shape` ({} for a scalar), in dtype().
  Tensor values(const std::string& name, const std::vector<std::int64_t>& shape) const;
  /// A real vector of any length (its length then sizes the model).
  Tensor vector(const std::string& name) const;
  /// A real matrix of any size (its shape then sizes the model).
  Tensor matrix(const std::string& name) const;
  /// The names of the entries along the last axis of `name` (data::DataArray::entry_names), or
  /// none.
  const std::vector<std::string>& entry_names(const std::string& name) const;
  /// As values(), each value > 0 (Stan's `<lower=0>`, strictly).
  Tensor positive_values(const std::string& name, const std::vector<std::int64_t>& shape) const;
  /// An integer array of exactly `shape` with values in [lower, upper], as i64 (counts, labels,
  /// group indices; Stan's `array[N] int<lower=0, upper=1> y;`).
  Tensor integers(const std::string& name, const std::vector<std::int64_t>& shape,
                  std::int64_t lower = std::numeric_limits<std::int64_t>::min(),
                  std::int64_t upper = std::numeric_limits<std::int64_t>::max()) const;
  /// A size variable that may be left out (J, when y's length gives it): when present it must be
  /// an integer equal to `size`, which `what` describes ("the length of y").
  void check_size(const std::string& name, std::int64_t size, const std::string& what) const;
  bool has(const std::string& name) const;

  DType dtype() const { return dtype_; }
  const std::string& source() const { return source_; }

 private:
  /// The variable, or an error that names it, this data's source and the variables there are.
  const data::DataArray& find(const std::string& name, const std::string& expected) const;
  void check_shape(const std::string& name, const data::DataArray& a, const std::vector<std::int64_t>& shape) const;

  data::DataFile variables_;
  std::string source_;
  DType dtype_;
};

}  // namespace variate::models
