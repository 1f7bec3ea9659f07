#pragma once
// The models compiled into the library, each written as a model plugin is (models/model.hpp) and
// listed here with the data it uses when none is given.
#include <string>
#include <vector>

#include "variate/models/model.hpp"

namespace variate::models {

Definition eight_schools(const ModelData& data);
Definition beta_bernoulli(const ModelData& data);

struct BuiltinModel {
  std::string name;     // as `--model` takes it
  std::string summary;  // one line for --help
  ModelFunction function;
  data::DataFile embedded_data;
  std::string embedded_source;  // where the embedded data come from and their size
};

const std::vector<BuiltinModel>& builtin_models();
/// The built-in model of that name, or nullptr.
const BuiltinModel* find_builtin_model(const std::string& name);
/// The built-in model `name` on its embedded data (what `variate sample --model name` samples when
/// no --data is given), in `dtype`. Throws naming the model and the built-in ones if there is none.
Definition builtin_definition(const std::string& name, DType dtype = DType::f64);

}  // namespace variate::models
