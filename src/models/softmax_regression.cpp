// Softmax regression with the fused GLM likelihood: N rows of D features X and labels y in 1..K
// (Stan's categorical counts from 1). The posterior's predictions are scored on X_test and y_test
// when the data hold them (MNIST's own test set), else on a fixed fifth of the rows. A built-in
// model, and a model plugin as it stands (`variate build`).
#include <algorithm>
#include <sstream>

#include "variate/autodiff/ops.hpp"
#include "variate/core/error.hpp"
#include "variate/data/stan_csv.hpp"
#include "variate/distribute/shard.hpp"
#include "variate/distribute/sharded.hpp"
#include "variate/distributions/categorical_logit_glm.hpp"
#include "variate/models/classifier.hpp"
#include "variate/models/model.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::models {
namespace {

Tensor zero_based(const std::vector<std::int64_t>& labels) {
  std::vector<std::int64_t> index(labels.size());
  std::transform(labels.begin(), labels.end(), index.begin(), [](std::int64_t v) { return v - 1; });
  return Tensor::from(index, Shape{std::int64_t(index.size())});
}

// The labels y in 1..K as 0-based class indices, and K: the largest label.
Tensor zero_based_labels(const ModelData& data, std::int64_t& classes) {
  const std::vector<std::int64_t> y = class_labels(data, "y");
  const auto n = std::int64_t(y.size());
  if (n == 0) detail::fail(data.source(), ": variable 'y' is empty; expected at least one label");
  const auto [lo, hi] = std::minmax_element(y.begin(), y.end());
  if (*lo < 1) detail::fail(data.source(), ": labels must be 1, 2, ..., K (as Stan's categorical), found ", *lo);
  classes = *hi;
  if (classes < 2) detail::fail(data.source(), ": all labels are the same; expected at least two classes");
  // K sizes the weights (D x K) and every draw; more classes than rows means a mistyped label.
  if (classes > n)
    detail::fail(data.source(), ": the largest label, ", *hi, ", makes K = ", classes, " classes, more than the ", n,
                 " rows of data; expected labels 1..K with K at most the number of rows");
  data.check_size("K", classes, "the largest label");
  return zero_based(y);
}

// The rows to train on and the rows to score on: X_test and y_test when given, else a fifth of X.
TrainTestSplit train_and_test(const ModelData& data, std::int64_t& classes) {
  const Tensor labels = zero_based_labels(data, classes);
  const Tensor x = features(data, labels.dim(0));
  if (!data.has("X_test") && !data.has("y_test")) return split_train_test(data, x, labels);
  const std::int64_t n_test = data.vector("y_test").dim(0), d = x.dim(1);
  return {.x_train = x,
          .y_train = labels,
          .x_test = data.values("X_test", {n_test, d}),
          .y_test = zero_based(data.integers("y_test", {n_test}, 1, classes).to_vector<std::int64_t>())};
}

}  // namespace

Definition softmax_regression(const ModelData& data) {
  std::int64_t k = 0;
  const TrainTestSplit rows = train_and_test(data, k);
  const std::int64_t d = rows.x_train.dim(1);
  const Tensor zero = Tensor::scalar(0.0, data.dtype()), one = Tensor::scalar(1.0, data.dtype());
  Definition m;
  std::ostringstream description;
  description << "softmax regression, " << k << " classes: W ~ Normal(0, 1) [" << d << " x " << k
              << "], b ~ Normal(0, 1) [" << k
              << "], y ~ CategoricalLogitGLM(X, W, b) (Categorical(logits = X W + b), fused)";
  m.description = description.str();
  m.data_summary = split_summary(rows);
  // The training rows are split over the devices of a mesh ("data" axis) and the labels are a
  // Sharded site, so the same program runs on one device or many; W and b are replicated.
  m.program = [x = distribute::ShardedData(rows.x_train, "data"), y = distribute::ShardedData(rows.y_train, "data"),
               zero, one, d, k] {
    auto w = Normal(zero, one, "W", {d, k});
    auto b = Normal(zero, one, "b", {k});
    tracing::Condition observed({{"y", y.local()}});
    // The fused GLM reads X once per gradient; it takes W (C, D, K) and b (C, K) for C chains.
    Sharded(std::make_shared<dist::CategoricalLogitGLM>(x.local(), w, b), "data", "y");
  };
  for (std::int64_t j = 0; j < std::min<std::int64_t>(k, 10); ++j) {
    const std::int64_t index[] = {j};
    m.main_parameters.push_back(data::stan_column_name("b", index));
  }
  m.predict = [x = rows.x_test](const tracing::Values& v) {
    return softmax(matmul(x, v.at("W")) + expand_dims(v.at("b"), -2), -1);
  };
  m.test_labels = rows.y_test;
  return m;
}

}  // namespace variate::models

VARIATE_MODEL(variate::models::softmax_regression)
