#include "variate/models/builtin.hpp"

#include "builtin_data.hpp"
#include "variate/core/error.hpp"

namespace variate::models {

const std::vector<BuiltinModel>& builtin_models() {
  static const std::vector<BuiltinModel> models = {
      {.name = "eight-schools",
       .summary = "eight schools, non-centered; --data JSON or CSV with y and sigma",
       .function = &eight_schools,
       .default_data = &eight_schools_data,
       .default_source = "embedded (Rubin 1981): 8 schools"},
      {.name = "beta-bernoulli",
       .summary = "CmdStan's bernoulli example; --data JSON {N, y} or CSV column y",
       .function = &beta_bernoulli,
       .default_data = &bernoulli_data,
       .default_source = "embedded (CmdStan's bernoulli example): N = 10"},
      {.name = "digits-softmax",
       .summary = "softmax regression on the embedded digits (10 classes), or --data CSV/JSON",
       .function = &softmax_regression,
       .default_data = &digits_classes,
       .default_source = "embedded digits (8x8 pixels scaled to [0, 1])",
       .read_data = &read_softmax_file},
      {.name = "logistic",
       .summary = "logistic regression, odd vs even digits, or --data CSV (label 0/1 last) or JSON {N, D, X, y}",
       .function = &logistic_regression,
       .default_data = &digits_odd_even,
       .default_source = "embedded digits, odd vs even (8x8 pixels scaled to [0, 1])",
       .read_data = &read_logistic_file},
      {.name = "mnist-softmax",
       .summary =
           "softmax regression on MNIST; --data DIR with the IDX files (default " + std::string(kMnistFolder) + ")",
       .function = &softmax_regression,
       .default_data = [] { return read_mnist(kMnistFolder); },
       .default_source = std::string(kMnistFolder) + " (IDX files, pixels scaled to [0, 1])",
       .default_folder = kMnistFolder,
       .read_data = &read_mnist},
      {.name = "movielens",
       .summary = "matrix factorization of MovieLens-100K's watch matrix; --data DIR or a ratings file such as "
                  "DIR/ua.base (default " +
                  std::string(kMovielensFolder) + ")",
       .function = &matrix_factorization,
       .default_data = [] { return read_movielens(kMovielensFolder); },
       .default_source = std::string(kMovielensFolder) + " (MovieLens-100K)",
       .default_folder = kMovielensFolder,
       .read_data = &read_movielens},
      {.name = "movielens-synthetic",
       .summary = "matrix factorization of a synthetic watch matrix of MovieLens-1M's size (6040 x 3706, ~1M ones)",
       .function = &matrix_factorization,
       .default_data = &synthetic_watches,
       .default_source = "synthetic (low-rank logits, seed 1)",
       .read_data = nullptr},
  };
  return models;
}

const BuiltinModel* find_builtin_model(const std::string& name) {
  for (const BuiltinModel& m : builtin_models())
    if (m.name == name) return &m;
  return nullptr;
}

Definition builtin_definition(const BuiltinModel& model, const std::string& path, DType dtype) {
  if (path.empty()) return define(model.function, ModelData(model.default_data(), model.default_source, dtype));
  VARIATE_CHECK(model.read_data != nullptr, "builtin_definition", "model '", model.name,
                "' generates its data; a data path is not used");
  return define(model.function, ModelData(model.read_data(path), path, dtype));
}

Definition builtin_definition(const std::string& name, DType dtype) {
  const BuiltinModel* model = find_builtin_model(name);
  if (model == nullptr) {
    std::string names;
    for (const BuiltinModel& m : builtin_models()) names += (names.empty() ? "" : ", ") + m.name;
    detail::fail("builtin_definition: no built-in model '", name, "'; the built-in models are ", names);
  }
  return builtin_definition(*model, "", dtype);
}

}  // namespace variate::models
