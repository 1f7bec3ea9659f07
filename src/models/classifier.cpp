#include "variate/models/classifier.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "variate/autodiff/ops.hpp"
#include "variate/core/error.hpp"
#include "variate/random/samplers.hpp"

namespace variate::models {

TrainTestSplit split_train_test(const ModelData& data, const Tensor& x, const Tensor& labels) {
  const std::int64_t n = x.dim(0);
  if (n < kMinimumRows)
    detail::fail(data.source(), ": found ", n, " rows of data; expected at least ", kMinimumRows,
                 " (20% are held out for testing)");
  const Tensor order = argsort(random::uniform(random::Key(kSplitSeed), Shape{n}));
  const std::int64_t n_train = n - std::max<std::int64_t>(1, n / 5);
  const Tensor train = slice(order, 0, 0, n_train), test = slice(order, 0, n_train, n);
  return {
      .x_train = take(x, train), .y_train = take(labels, train), .x_test = take(x, test), .y_test = take(labels, test)};
}

std::vector<std::int64_t> class_labels(const ModelData& data, const std::string& name) {
  // 2^53 bounds the integers a double holds exactly; checked before the values become integers.
  const Tensor values = cast(data.vector(name), DType::f64);
  for (const double v : values.to_vector<double>())
    if (std::abs(v) > 9007199254740992.0)
      detail::fail(data.source(), ": label ", v, " in variable '", name, "' is out of range; expected a class number");
  return data.integers(name, {values.dim(0)}).to_vector<std::int64_t>();
}

Tensor features(const ModelData& data, std::int64_t rows) {
  const std::string name = data.has("X") || !data.has("x") ? "X" : "x";
  const Tensor x = data.matrix(name);
  if (x.dim(0) != rows)
    detail::fail(data.source(), ": variable 'y' has ", rows, " labels but '", name, "' has ", x.dim(0), " rows");
  if (x.dim(1) < 1)
    detail::fail(data.source(), ": variable '", name, "' has no columns; expected at least one feature");
  data.check_size("N", rows, "the number of rows of " + name);
  data.check_size("D", x.dim(1), "the number of columns of " + name);
  return x;
}

std::string split_summary(const TrainTestSplit& split) {
  std::ostringstream out;
  out << split.x_train.dim(0) << " train / " << split.x_test.dim(0) << " test rows, " << split.x_train.dim(1)
      << " features";
  return out.str();
}

HeldOutAccuracy held_out_accuracy(const Definition& model,
                                  const std::function<tracing::Values(std::int64_t, std::int64_t)>& draws,
                                  std::int64_t draw_count) {
  VARIATE_CHECK(model.predict && model.test_labels.defined(), "held_out_accuracy",
                "the model is not a classifier (it has no held-out predictions)");
  HeldOutAccuracy r;
  r.draws = draw_count;
  r.examples = model.test_labels.numel();
  if (draw_count == 0 || r.examples == 0) return r;
  const Tensor labels = model.test_labels;
  Tensor probability_sum;
  double accuracy_sum = 0;
  constexpr std::int64_t kBatch = 64;  // draws per prediction: (64, N, K) probabilities at a time
  for (std::int64_t begin = 0; begin < draw_count; begin += kBatch) {
    const std::int64_t end = std::min(draw_count, begin + kBatch);
    const Tensor p = cast(model.predict(draws(begin, end)), DType::f64);  // (B, N, K)
    const Tensor correct = cast(eq(argmax(p, -1), labels), DType::f64);   // (B, N)
    const int draw_axis[] = {0}, example_axis[] = {1};
    accuracy_sum += sum(mean(correct, example_axis)).item();
    const Tensor s = sum(p, draw_axis);
    probability_sum = probability_sum.defined() ? probability_sum + s : s;
  }
  r.mean_single = accuracy_sum / double(draw_count);
  r.model_averaging = mean(cast(eq(argmax(probability_sum, -1), labels), DType::f64)).item();
  return r;
}

}  // namespace variate::models
