// Bayesian logistic regression with the fused GLM likelihood: N rows of D features X and labels y
// in {0, 1}, of which a fixed fifth is held out to score the posterior's predictions. A built-in
// model, and a model plugin as it stands (`variate build`).
#include <sstream>

#include "variate/autodiff/ops.hpp"
#include "variate/core/error.hpp"
#include "variate/data/stan_csv.hpp"
#include "variate/distribute/shard.hpp"
#include "variate/distribute/sharded.hpp"
#include "variate/distributions/bernoulli_logit_glm.hpp"
#include "variate/models/classifier.hpp"
#include "variate/models/model.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::models {

Definition logistic_regression(const ModelData& data) {
  const std::vector<std::int64_t> y = class_labels(data, "y");
  for (std::size_t i = 0; i < y.size(); ++i)
    if (y[i] != 0 && y[i] != 1)
      detail::fail(data.source(), ": label ", y[i], " in row ", i + 1, "; logistic regression expects labels 0 or 1");
  const auto n = std::int64_t(y.size());
  const TrainTestSplit rows = split_train_test(data, features(data, n), Tensor::from(y, Shape{n}));
  const std::int64_t d = rows.x_train.dim(1);
  const DType dtype = data.dtype();
  const Tensor zero = Tensor::scalar(0.0, dtype), one = Tensor::scalar(1.0, dtype);
  const Tensor alpha_scale = Tensor::scalar(2.5, dtype);

  Definition m;
  std::ostringstream description;
  description << "Bayesian logistic regression: alpha ~ Normal(0, 2.5), beta ~ Normal(0, 1) [" << d
              << "], y ~ BernoulliLogitGLM(X, beta, alpha)";
  m.description = description.str();
  m.data_summary = split_summary(rows);
  m.program = [x = distribute::ShardedData(rows.x_train, "data"),
               labels = distribute::ShardedData(cast(rows.y_train, dtype), "data"), zero, one, alpha_scale, d] {
    auto alpha = Normal(zero, alpha_scale, "alpha");
    auto beta = Normal(zero, one, "beta", {d});
    tracing::Condition observed({{"y", labels.local()}});
    // The fused GLM reads X once per gradient; it takes beta (C, D) and alpha (C) for C chains. The
    // rows are split over the devices of a mesh, if one runs.
    Sharded(std::make_shared<dist::BernoulliLogitGLM>(x.local(), beta, alpha), "data", "y");
  };
  m.main_parameters = {"alpha"};
  for (std::int64_t j = 0; j < std::min<std::int64_t>(d, 8); ++j) {
    const std::int64_t index[] = {j};
    m.main_parameters.push_back(data::stan_column_name("beta", index));
  }
  m.predict = [x = rows.x_test](const tracing::Values& v) {
    const Tensor& beta = v.at("beta");  // (B, D)
    const Tensor p = sigmoid(matmul(beta, x, false, true) + expand_dims(v.at("alpha"), -1));
    return stack({1.0 - p, p}, -1);
  };
  m.test_labels = rows.y_test;
  return m;
}

}  // namespace variate::models

VARIATE_MODEL(variate::models::logistic_regression)
