#pragma once
// A model loaded into Python: a built-in model or a plugin (`variate build`) on data given as a dict
// of numpy arrays or on its default data, its log density and gradient on the unconstrained
// space (what BridgeStan's clients call), and sampling.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <optional>
#include <string>
#include <vector>

#include "variate/inference/target.hpp"
#include "variate/inference/unconstrained.hpp"
#include "variate/models/model.hpp"

namespace variate::python {

class PythonModel {
 public:
  /// Exactly one of `name` (a built-in model) and `file` (a plugin); `data` None: a built-in
  /// model's default data (a plugin then gets no variables). Throws variate::Error (ValueError in
  /// Python) for an unknown model, a plugin that cannot be loaded, and data the model cannot use.
  PythonModel(const std::optional<std::string>& name, const std::optional<std::string>& file,
              const std::optional<pybind11::dict>& data, const std::string& precision);

  double log_density(const pybind11::array_t<double, pybind11::array::c_style | pybind11::array::forcecast>& x,
                     bool jacobian) const;
  pybind11::tuple log_density_gradient(
      const pybind11::array_t<double, pybind11::array::c_style | pybind11::array::forcecast>& x, bool jacobian) const;

  const std::string& name() const { return name_; }
  const models::Definition& definition() const { return definition_; }
  DType precision() const { return precision_; }
  std::int64_t dimension() const { return space_.dimension(); }
  /// The latent sites in program order, then the generated quantities, each with its shape.
  std::vector<std::pair<std::string, Shape>> sites() const;

 private:
  /// The point, checked to be a vector of dimension() values.
  const double* point(const pybind11::array_t<double, pybind11::array::c_style | pybind11::array::forcecast>& x,
                      const char* op) const;

  std::string name_;
  DType precision_;
  models::Definition definition_;
  inference::Unconstrained space_;
  inference::Target with_jacobian_, without_jacobian_;
};

}  // namespace variate::python
