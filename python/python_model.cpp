#include "python_model.hpp"

#include <algorithm>
#include <span>

#include "python_data.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/core/error.hpp"
#include "variate/core/quote_input.hpp"
#include "variate/models/builtin.hpp"
#include "variate/models/plugin.hpp"

namespace py = pybind11;

namespace variate::python {
namespace {

constexpr const char* kOp = "variate.Model";
constexpr const char* kSource = "the data given to variate.Model";

DType parse_precision(const std::string& precision) {
  VARIATE_CHECK(precision == "f64" || precision == "f32", kOp, "precision must be f64 or f32, got ",
                quote_input(precision));
  return precision == "f64" ? DType::f64 : DType::f32;
}

// The model's name, or the plugin's path; exactly one of them must be given.
std::string model_name(const std::optional<std::string>& name, const std::optional<std::string>& file) {
  VARIATE_CHECK(name.has_value() != file.has_value(), kOp,
                "give either a built-in model's name or file= a plugin built by `variate build`, ",
                name ? "not both" : "got neither");
  return name ? *name : *file;
}

models::Definition load(const std::optional<std::string>& name, const std::optional<std::string>& file,
                        const std::optional<py::dict>& data, DType dtype) {
  if (file) {
    const data::DataFile variables = data ? data_from_dict(*data) : data::DataFile{};
    return models::define(models::load_plugin(*file).function,
                          models::ModelData(variables, data ? kSource : "no data", dtype));
  }
  const models::BuiltinModel* builtin = models::find_builtin_model(*name);
  // builtin_definition names the built-in models when there is no such one.
  if (builtin == nullptr || !data) return models::builtin_definition(*name, dtype);
  return models::define(builtin->function, models::ModelData(data_from_dict(*data), kSource, dtype));
}

}  // namespace

PythonModel::PythonModel(const std::optional<std::string>& name, const std::optional<std::string>& file,
                         const std::optional<py::dict>& data, const std::string& precision)
    : name_(model_name(name, file)),
      precision_(parse_precision(precision)),
      definition_(load(name, file, data, precision_)),
      space_(definition_.program),
      with_jacobian_(inference::make_target(space_, precision_)),
      without_jacobian_(inference::make_target(space_, precision_, inference::Jacobian::excluded)) {}

const double* PythonModel::point(const py::array_t<double, py::array::c_style | py::array::forcecast>& x,
                                 const char* op) const {
  VARIATE_CHECK(
      x.ndim() == 1 && x.shape(0) == dimension(), op, "expected a vector of ", dimension(),
      " unconstrained values, got an array of shape (",
      [&] {
        std::string dims;
        for (py::ssize_t k = 0; k < x.ndim(); ++k) dims += (k ? ", " : "") + std::to_string(x.shape(k));
        return dims;
      }(),
      ")");
  return x.data();
}

double PythonModel::log_density(const py::array_t<double, py::array::c_style | py::array::forcecast>& x,
                                bool jacobian) const {
  const double* theta = point(x, "log_density");
  const Tensor flat = Tensor::from(std::span<const double>(theta, std::size_t(dimension())), Shape{dimension()});
  return space_
      .log_density(cast(flat, precision_), jacobian ? inference::Jacobian::included : inference::Jacobian::excluded)
      .item();
}

py::tuple PythonModel::log_density_gradient(const py::array_t<double, py::array::c_style | py::array::forcecast>& x,
                                            bool jacobian) const {
  const double* theta = point(x, "log_density_gradient");
  const auto d = std::size_t(dimension());
  py::array_t<double> gradient(std::vector<py::ssize_t>{py::ssize_t(d)});
  double lp = 0;
  (jacobian ? with_jacobian_ : without_jacobian_).evaluate({theta, d}, 1, {&lp, 1}, {gradient.mutable_data(), d});
  return py::make_tuple(lp, std::move(gradient));
}

std::vector<std::pair<std::string, Shape>> PythonModel::sites() const {
  std::vector<inference::LatentSite> latent = space_.sites();
  std::sort(latent.begin(), latent.end(),
            [](const auto& a, const auto& b) { return a.program_order < b.program_order; });
  std::vector<std::pair<std::string, Shape>> sites;
  for (const auto& s : latent) sites.emplace_back(s.name, s.shape);
  for (const auto& g : space_.generated_sites()) sites.emplace_back(g.name, g.shape);
  return sites;
}

}  // namespace variate::python
