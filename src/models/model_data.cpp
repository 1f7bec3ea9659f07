#include "variate/models/model_data.hpp"

#include <cmath>
#include <utility>

#include "variate/autodiff/ops.hpp"
#include "variate/core/error.hpp"

namespace variate::models {
namespace {

Tensor to_tensor(const data::DataArray& a, DType dtype) {
  return cast(Tensor::from(a.values, Shape(std::span<const std::int64_t>(a.shape))), dtype);
}

}  // namespace

ModelData::ModelData(data::DataFile variables, std::string source, DType dtype)
    : variables_(std::move(variables)), source_(std::move(source)), dtype_(dtype) {
  VARIATE_CHECK(dtype == DType::f64 || dtype == DType::f32, "ModelData", "precision must be f64 or f32, got ",
                name(dtype));
}

bool ModelData::has(const std::string& name) const { return variables_.contains(name); }

const data::DataArray& ModelData::find(const std::string& name, const std::string& expected) const {
  const auto it = variables_.find(name);
  if (it != variables_.end()) return it->second;
  std::string present;
  for (const auto& [n, _] : variables_) present += (present.empty() ? "" : ", ") + n;
  detail::fail(source_, ": variable '", name, "' is missing; expected ", expected,
               " (there are: ", present.empty() ? "no variables" : present, ")");
}

void ModelData::check_shape(const std::string& name, const data::DataArray& a,
                            const std::vector<std::int64_t>& shape) const {
  if (a.shape != shape)
    detail::fail(source_, ": variable '", name, "' has ", data::describe_shape(a.shape), "; expected ",
                 data::describe_shape(shape));
}

std::int64_t ModelData::integer(const std::string& name) const {
  const data::DataArray& a = find(name, "an integer");
  if (!a.shape.empty() || !a.integer)
    detail::fail(source_, ": variable '", name, "' must be an integer scalar, got ",
                 a.integer ? data::describe_shape(a.shape) : "a real value");
  return std::int64_t(a.values[0]);
}

Tensor ModelData::values(const std::string& name, const std::vector<std::int64_t>& shape) const {
  const data::DataArray& a = find(name, "real values of " + data::describe_shape(shape));
  check_shape(name, a, shape);
  return to_tensor(a, dtype_);
}

Tensor ModelData::vector(const std::string& name) const {
  const data::DataArray& a = find(name, "a vector");
  if (a.shape.size() != 1)
    detail::fail(source_, ": variable '", name, "' has ", data::describe_shape(a.shape), "; expected a vector");
  return to_tensor(a, dtype_);
}

Tensor ModelData::matrix(const std::string& name) const {
  const data::DataArray& a = find(name, "a matrix");
  if (a.shape.size() != 2)
    detail::fail(source_, ": variable '", name, "' has ", data::describe_shape(a.shape), "; expected a matrix");
  return to_tensor(a, dtype_);
}

const std::vector<std::string>& ModelData::entry_names(const std::string& name) const {
  return find(name, "named entries").entry_names;
}

Tensor ModelData::positive_values(const std::string& name, const std::vector<std::int64_t>& shape) const {
  const data::DataArray& a = find(name, "positive values of " + data::describe_shape(shape));
  check_shape(name, a, shape);
  for (std::size_t i = 0; i < a.values.size(); ++i)
    if (!(a.values[i] > 0))
      detail::fail(source_, ": variable '", name, "' has ", a.values[i], " at position ", i + 1,
                   "; expected positive values");
  return to_tensor(a, dtype_);
}

Tensor ModelData::integers(const std::string& name, const std::vector<std::int64_t>& shape, std::int64_t lower,
                           std::int64_t upper) const {
  const data::DataArray& a = find(name, "integers of " + data::describe_shape(shape));
  check_shape(name, a, shape);
  if (!a.integer) detail::fail(source_, ": variable '", name, "' has real values; expected integers");
  for (std::size_t i = 0; i < a.values.size(); ++i)
    if (!(a.values[i] >= double(lower) && a.values[i] <= double(upper)))
      detail::fail(source_, ": variable '", name, "' has ", a.values[i], " at position ", i + 1,
                   "; expected values in [", lower, ", ", upper, "]");
  return to_tensor(a, DType::i64);
}

void ModelData::check_size(const std::string& name, std::int64_t size, const std::string& what) const {
  if (!has(name)) return;
  const std::int64_t given = integer(name);
  if (given != size) detail::fail(source_, ": variable '", name, "' is ", given, " but ", what, " is ", size);
}

}  // namespace variate::models
