#pragma once
// The models `variate sample` knows by name: each is a program (an ordinary C++ function creating
// random variables) together with its data, the parameters worth printing and, for classifiers, a
// held-out evaluation.
//
//   cli::Model m = cli::make_model("eight-schools", {.data_path = "", .dtype = DType::f64});
//   inference::Unconstrained space(m.program);
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "variate/core/dtype.hpp"
#include "variate/tracing/program.hpp"

namespace variate::cli {

struct ModelOptions {
  std::string data_path;     // empty: the model's embedded data (or its default data folder)
  std::string model_file;    // a plugin built by `variate build`: used instead of the name
  DType dtype = DType::f64;  // of the data and the prior parameters, so the density computes in it
};

/// Class probabilities on held-out data for a batch of posterior draws: given the constrained
/// latent values with a leading batch dimension B, returns (B, N_test, K).
using Predictor = std::function<Tensor(const tracing::Values& draws)>;

/// A model's own reading of its posterior (matrix factorization's recommendations): it sees the
/// constrained values of every kept draw, for the unsharded model, and prints after the summary.
class PosteriorReport {
 public:
  virtual ~PosteriorReport() = default;
  virtual void add_draw(const tracing::Values& draw) = 0;
  virtual void print(std::ostream& out) const = 0;
};

struct Model {
  std::string name;
  std::string description;  // one line: the model
  std::string data;         // one line: where the data came from and its size
  tracing::Program program;
  /// Stan column names printed after sampling besides lp__ (the full table goes to summary.csv).
  std::vector<std::string> main_parameters;
  /// Classifiers only: the held-out class probabilities and the true labels (i64, 0-based).
  Predictor predict;
  Tensor test_labels;
  /// The latent sites written to the CSV files and summarized; empty: all of them. `unsaved`
  /// says why the others are not (printed).
  std::vector<std::string> saved_sites;
  std::string unsaved;
  std::shared_ptr<PosteriorReport> report;
};

/// The names make_model accepts, in the order `--help` lists them, each with a short description.
struct ModelInfo {
  std::string name, summary;
};
const std::vector<ModelInfo>& model_catalog();

/// Builds a model by name, or from `options.model_file`, reading `options.data_path` if given. Throws variate::Error
/// for an unknown name (listing the known ones) and for data that the model cannot use, naming the file, the variable
/// and what was expected.
Model make_model(const std::string& name, const ModelOptions& options);

/// Held-out accuracy of a classifier over posterior draws.
struct HeldOutAccuracy {
  double model_averaging = 0;  // argmax of the class probabilities averaged over all draws
  double mean_single = 0;      // the accuracy of each draw's own predictions, averaged over draws
  std::int64_t draws = 0;
  std::int64_t examples = 0;
};

/// Evaluates `model.predict` on `draws` (constrained values with a leading draw dimension), in
/// batches so memory stays bounded. Requires a classifier.
HeldOutAccuracy held_out_accuracy(const Model& model,
                                  const std::function<tracing::Values(std::int64_t begin, std::int64_t end)>& draws,
                                  std::int64_t draw_count);

}  // namespace variate::cli
