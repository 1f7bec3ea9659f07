#pragma once
// A model as the tool, the examples, the benchmarks, the tests and plugins all see it: a function
// from data to a program (an ordinary C++ function creating random variables). A model plugin is
// one C++ file with such a function and the line VARIATE_MODEL(function); `variate build FILE`
// compiles it into a shared library that `variate sample --model-file` runs:
//
//   #include "variate/variate.hpp"
//   using namespace variate;
//   models::Definition eight_schools(const models::ModelData& data) {
//     const std::int64_t J = data.integer("J");
//     const Tensor y = data.values("y", {J}), sigma = data.positive_values("sigma", {J});
//     return {.description = "eight schools, non-centered",
//             .program = [=] { ... Normal(theta, sigma, "y"); },
//             .main_parameters = {"mu", "tau"}};
//   }
//   VARIATE_MODEL(eight_schools)
//
// The built-in models (models/builtin.hpp) are files of this form, listed in a catalog with their
// embedded data instead of exporting a symbol.
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "variate/models/model_data.hpp"
#include "variate/tracing/program.hpp"

namespace variate::models {

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

/// A model: its program and what the tool prints and writes about it. Only description and
/// program are required; the rest is for models that have more to say (each defaults to empty, so
/// a designated initializer may leave it out).
struct Definition {
  std::string description;  // one line: the model
  tracing::Program program;
  /// Stan column names printed after sampling besides lp__ (every parameter is summarized in
  /// summary.csv); empty: lp__ alone, then the worst R-hat and ESS of the rest.
  std::vector<std::string> main_parameters;
  /// The data as the model uses them (sizes, the held-out rows), printed after where they came
  /// from; empty: nothing to add.
  std::string data_summary = {};
  /// Classifiers only: the held-out class probabilities and the true labels (i64, 0-based), which
  /// models/classifier.hpp scores.
  Predictor predict = {};
  Tensor test_labels = {};
  /// The latent sites written to the draw files and summarized; empty: all of them. `unsaved` says
  /// why the others are not (printed).
  std::vector<std::string> saved_sites = {};
  std::string unsaved = {};
  std::shared_ptr<PosteriorReport> report = {};
};

using ModelFunction = Definition (*)(const ModelData&);

/// The model `function` defines on `data`, with the data kept alive as long as its program: a
/// program that refers to `data` (a lambda capturing it by reference) still reads it when inference
/// runs the program, long after this call. The tool, the C interface and the built-in catalog call
/// model functions through here.
Definition define(ModelFunction function, ModelData data);

/// What a plugin exports. The tool checks kPluginAbiVersion (a plain C integer symbol) before it
/// touches anything else, so a plugin built against other headers is refused, not run.
inline constexpr int kPluginAbiVersion = 2;  // raised whenever PluginEntry or Definition changes
struct PluginEntry {
  const char* name;  // the model function's name
  ModelFunction function;
};

}  // namespace variate::models

// Exports `function` from a plugin built by `variate build` (which defines VARIATE_BUILDING_PLUGIN),
// with BridgeStan's C interface to it (models/bridgestan.hpp); in a built-in model's file, compiled
// into the library, it only checks the function's signature.
#ifdef VARIATE_BUILDING_PLUGIN
#define VARIATE_MODEL(function)                                                                                 \
  extern "C" __attribute__((visibility("default"))) const int variate_plugin_abi_version =                      \
      variate::models::kPluginAbiVersion;                                                                       \
  extern "C" __attribute__((visibility("default"))) const variate::models::PluginEntry* variate_model_entry() { \
    static const variate::models::PluginEntry entry{#function, &function};                                      \
    return &entry;                                                                                              \
  }                                                                                                             \
  VARIATE_BRIDGESTAN_EXPORTS(variate_model_entry)
#else
#define VARIATE_MODEL(function)                                                      \
  static_assert(std::is_same_v<decltype(&function), variate::models::ModelFunction>, \
                #function " must be variate::models::Definition " #function "(const variate::models::ModelData&)");
#endif

#ifdef VARIATE_BUILDING_PLUGIN
#include "variate/models/bridgestan.hpp"  // after PluginEntry, which it uses
#endif
