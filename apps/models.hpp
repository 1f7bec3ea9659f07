#pragma once
// The models `variate sample` knows by name (the built-in models, models/builtin.hpp) or runs from a
// plugin built by `variate build`, on the data --data names.
//
//   cli::Model m = cli::make_model("eight-schools", {.data_path = "", .dtype = DType::f64});
//   inference::Unconstrained space(m.program);
#include <string>

#include "variate/core/dtype.hpp"
#include "variate/models/model.hpp"

namespace variate::cli {

struct ModelOptions {
  std::string data_path;     // empty: the model's default data (embedded, generated or a default folder)
  std::string model_file;    // a plugin built by `variate build`: used instead of the name
  DType dtype = DType::f64;  // of the data and the prior parameters, so the density computes in it
};

/// A model's definition with the name its output files take and where its data came from.
struct Model : models::Definition {
  std::string name;
  std::string data;       // one line: where the data came from, and the model's summary of them
  std::string data_file;  // for output headers: the path the data were read from, or "(embedded)"
};

/// Builds a built-in model by name (models::builtin_models), or from `options.model_file`, reading `options.data_path`
/// if given. Throws variate::Error for an unknown name (listing the known ones) and for data that the model cannot use,
/// naming the file, the variable and what was expected.
Model make_model(const std::string& name, const ModelOptions& options);

}  // namespace variate::cli
