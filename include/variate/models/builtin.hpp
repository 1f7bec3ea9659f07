#pragma once
// The models compiled into the library, each written as a model plugin is (models/model.hpp) and
// listed here with the data it uses when none is given and how it reads a data path.
#include <string>
#include <vector>

#include "variate/data/data_file.hpp"
#include "variate/models/model.hpp"

namespace variate::models {

Definition eight_schools(const ModelData& data);
Definition beta_bernoulli(const ModelData& data);
/// X (N x D) and y (N) in {0, 1}; a fixed fifth of the rows held out.
Definition logistic_regression(const ModelData& data);
/// X (N x D) and y (N) in 1..K; held out: X_test and y_test if given, else a fixed fifth of the rows.
Definition softmax_regression(const ModelData& data);
/// watched (users x movies) of 0 and 1.
Definition matrix_factorization(const ModelData& data);

struct BuiltinModel {
  std::string name;     // as `--model` takes it
  std::string summary;  // one line for --help
  ModelFunction function;
  /// The data used when none is given: embedded, generated, or read from a default folder (the
  /// call may take a while and throw).
  data::DataFile (*default_data)();
  std::string default_source;       // where the default data come from
  std::string default_folder = {};  // the folder default_data reads; empty for embedded or generated data
  /// Reads a data path (`--data`) into the model's variables; nullptr for a model that only runs on
  /// the data it generates.
  data::DataFile (*read_data)(const std::string& path) = &data::read_data_file;
};

const std::vector<BuiltinModel>& builtin_models();
/// The built-in model of that name, or nullptr.
const BuiltinModel* find_builtin_model(const std::string& name);
/// The built-in model on the data at `path` read as the model reads them, or on its default data
/// when `path` is empty, in `dtype`. Throws naming the model when it reads no data path.
Definition builtin_definition(const BuiltinModel& model, const std::string& path, DType dtype);
/// The built-in model `name` on its default data (what `variate sample --model name` samples when
/// no --data is given), in `dtype`. Throws naming the model and the built-in ones if there is none.
Definition builtin_definition(const std::string& name, DType dtype = DType::f64);

}  // namespace variate::models
