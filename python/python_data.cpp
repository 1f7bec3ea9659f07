#include "python_data.hpp"

#include <pybind11/numpy.h>

#include <cmath>
#include <string>

#include "variate/core/error.hpp"

namespace py = pybind11;

namespace variate::python {
namespace {

constexpr const char* kOp = "variate.Model";

// "y[1, 2]": the 0-based position of row-major element `flat` in `shape`, as the JSON reader names it.
std::string position(const std::string& name, const std::vector<std::int64_t>& shape, std::int64_t flat) {
  std::vector<std::int64_t> index(shape.size());
  for (std::size_t k = shape.size(); k-- > 0;) {
    index[k] = flat % shape[k];
    flat /= shape[k];
  }
  std::string text = name + "[";
  for (std::size_t k = 0; k < index.size(); ++k) text += (k ? ", " : "") + std::to_string(index[k]);
  return text + "]";
}

// numpy.asarray(value), or an error naming the variable (ragged lists, say).
py::array as_array(const std::string& name, const py::handle& value) {
  try {
    return py::module_::import("numpy").attr("asarray")(value);
  } catch (py::error_already_set& e) {
    detail::fail(kOp, ": data variable '", name, "' is not a rectangular array of numbers: ", e.what());
  }
}

data::DataArray array_from(const std::string& name, const py::handle& value) {
  const py::array given = as_array(name, value);
  const char kind = given.dtype().kind();
  VARIATE_CHECK(kind == 'i' || kind == 'u' || kind == 'f', kOp, "data variable '", name, "' has numpy dtype ",
                std::string(py::str(given.dtype())),
                "; expected integers or reals (a number, a numeric numpy array or nested lists of numbers)");
  data::DataArray array;
  array.shape.assign(given.shape(), given.shape() + given.ndim());
  array.integer = kind != 'f';
  const auto values = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(given);
  array.values.assign(values.data(), values.data() + values.size());
  for (std::size_t k = 0; k < array.values.size(); ++k)
    VARIATE_CHECK(std::isfinite(array.values[k]), kOp, "data variable '", name, "' has the non-finite value ",
                  array.values[k], " at ", position(name, array.shape, std::int64_t(k)), "; the data must be finite");
  return array;
}

}  // namespace

data::DataFile data_from_dict(const py::dict& data) {
  data::DataFile file;
  for (const auto& [key, value] : data) {
    VARIATE_CHECK(py::isinstance<py::str>(key), kOp, "data names must be strings, got ", std::string(py::repr(key)));
    const std::string name = key.cast<std::string>();
    file.emplace(name, array_from(name, value));
  }
  return file;
}

}  // namespace variate::python
