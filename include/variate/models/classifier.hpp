#pragma once
// What the built-in classifiers (logistic and softmax regression) share: reading labels and
// features, the fixed split into training and held-out rows, and scoring a classifier's held-out
// predictions over posterior draws.
//
//   const std::vector<std::int64_t> y = models::class_labels(data, "y");
//   const Tensor x = models::features(data, std::int64_t(y.size()));
//   const models::TrainTestSplit rows = models::split_train_test(data, x, labels);
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "variate/models/model.hpp"
#include "variate/models/model_data.hpp"

namespace variate::models {

/// Every classifier's train/test split comes from this key, whatever the sampler's seed, so that
/// runs with different seeds are scored on the same held-out rows.
inline constexpr std::uint64_t kSplitSeed = 1;
/// The fewest rows split_train_test takes: it holds out a fifth of them, at least one.
inline constexpr std::int64_t kMinimumRows = 5;

struct TrainTestSplit {
  Tensor x_train, y_train, x_test, y_test;
};

/// A fixed, seeded split of the rows of x (N x D) and labels (N): 80% to train on, the rest (at
/// least one row) held out. Throws, naming `data`'s source, for fewer than kMinimumRows rows.
TrainTestSplit split_train_test(const ModelData& data, const Tensor& x, const Tensor& labels);

/// The integer labels `name` (a vector), exactly as given. Throws naming the variable for real
/// values and for labels beyond 2^53 in size (not a class number a double holds exactly).
std::vector<std::int64_t> class_labels(const ModelData& data, const std::string& name);

/// The features X (N x D, in the data's precision; x is taken when there is no X) for N labels,
/// checked to have N rows and at least one column, and against the sizes N and D when given.
Tensor features(const ModelData& data, std::int64_t rows);

/// "N train / M test rows, D features", for Definition::data_summary.
std::string split_summary(const TrainTestSplit& split);

/// Held-out accuracy of a classifier over posterior draws.
struct HeldOutAccuracy {
  double model_averaging = 0;  // argmax of the class probabilities averaged over all draws
  double mean_single = 0;      // the accuracy of each draw's own predictions, averaged over draws
  std::int64_t draws = 0;
  std::int64_t examples = 0;
};

/// Evaluates `model.predict` on `draws` (constrained values with a leading draw dimension), in
/// batches so memory stays bounded. Requires a classifier (predict and test_labels set).
HeldOutAccuracy held_out_accuracy(const Definition& model,
                                  const std::function<tracing::Values(std::int64_t begin, std::int64_t end)>& draws,
                                  std::int64_t draw_count);

}  // namespace variate::models
