#include "variate/models/builtin.hpp"

#include "variate/core/error.hpp"

namespace variate::models {
namespace {

data::DataArray vector_of(std::vector<double> values, bool integer) {
  const auto n = std::int64_t(values.size());
  return {.shape = {n}, .values = std::move(values), .integer = integer};
}

}  // namespace

const std::vector<BuiltinModel>& builtin_models() {
  static const std::vector<BuiltinModel> models = {
      {.name = "eight-schools",
       .summary = "eight schools, non-centered; --data JSON or CSV with y and sigma",
       .function = &eight_schools,
       .embedded_data = {{"y", vector_of({28, 8, -3, 7, -1, 1, 18, 12}, true)},
                         {"sigma", vector_of({15, 10, 16, 11, 9, 11, 10, 18}, true)}},
       .embedded_source = "embedded (Rubin 1981): 8 schools"},
      {.name = "beta-bernoulli",
       .summary = "CmdStan's bernoulli example; --data JSON {N, y} or CSV column y",
       .function = &beta_bernoulli,
       .embedded_data = {{"y", vector_of({0, 1, 0, 0, 0, 0, 0, 0, 0, 1}, true)}},
       .embedded_source = "embedded (CmdStan's bernoulli example): N = 10"},
  };
  return models;
}

const BuiltinModel* find_builtin_model(const std::string& name) {
  for (const BuiltinModel& m : builtin_models())
    if (m.name == name) return &m;
  return nullptr;
}

Definition builtin_definition(const std::string& name, DType dtype) {
  const BuiltinModel* model = find_builtin_model(name);
  if (model == nullptr) {
    std::string names;
    for (const BuiltinModel& m : builtin_models()) names += (names.empty() ? "" : ", ") + m.name;
    detail::fail("builtin_definition: no built-in model '", name, "'; the built-in models are ", names);
  }
  return define(model->function, ModelData(model->embedded_data, model->embedded_source, dtype));
}

}  // namespace variate::models
