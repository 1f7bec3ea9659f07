#include "builtin_data.hpp"

#include <algorithm>
#include <cctype>

#include "variate/autodiff/ops.hpp"
#include "variate/core/error.hpp"
#include "variate/data/digits.hpp"
#include "variate/data/idx.hpp"
#include "variate/data/movielens.hpp"

namespace variate::models {
namespace {

data::DataArray vector_of(std::vector<double> values, bool integer) {
  const auto n = std::int64_t(values.size());
  return {.shape = {n}, .values = std::move(values), .integer = integer};
}

// Features: a real array of the tensor's shape.
data::DataArray array_of(const Tensor& t) {
  return {.shape = std::vector<std::int64_t>(t.shape().begin(), t.shape().end()),
          .values = cast(t, DType::f64).to_vector<double>()};
}

// Labels (i64) plus `shift`, as integers.
data::DataArray labels_of(const Tensor& labels, std::int64_t shift = 0) {
  std::vector<double> values;
  for (const std::int64_t v : labels.to_vector<std::int64_t>()) values.push_back(double(v + shift));
  return vector_of(std::move(values), true);
}

// The embedded digits as X (pixels scaled to [0, 1]) and y (their labels plus `shift`).
data::DataFile digits_variables(const data::Dataset& d, const Tensor& labels, std::int64_t shift) {
  return {{"X", array_of(d.features / 16.0)}, {"y", labels_of(labels, shift)}};
}

bool has_suffix(const std::string& path, const std::string& suffix) {
  std::string lower = path;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return lower.ends_with(suffix);
}

// A CSV file of numbers with the label in the last column, its labels counting from 0.
data::Dataset read_numbers_csv(const std::string& path) {
  if (!has_suffix(path, ".csv") && !has_suffix(path, ".csv.gz"))
    detail::fail(path,
                 ": unknown data file type; expected a CSV file of numbers with the label in the last column "
                 "(.csv, .csv.gz) or a CmdStan JSON data file (.json)");
  return data::load_csv_dataset(path, -1);
}

bool is_json(const std::string& path) { return has_suffix(path, ".json"); }

data::DataFile watches(const data::WatchData& w) {
  data::DataArray watched = array_of(w.watch_matrix());
  watched.integer = true;  // 0 and 1
  watched.entry_names = w.titles;
  return {{"watched", std::move(watched)}};
}

}  // namespace

data::DataFile eight_schools_data() {
  return {{"y", vector_of({28, 8, -3, 7, -1, 1, 18, 12}, true)},
          {"sigma", vector_of({15, 10, 16, 11, 9, 11, 10, 18}, true)}};
}

data::DataFile bernoulli_data() { return {{"y", vector_of({0, 1, 0, 0, 0, 0, 0, 0, 0, 1}, true)}}; }

data::DataFile digits_classes() {
  const data::Dataset d = data::digits();
  return digits_variables(d, d.labels, 1);
}

data::DataFile digits_odd_even() {
  const data::Dataset d = data::digits();
  std::vector<std::int64_t> odd = d.labels.to_vector<std::int64_t>();
  for (auto& v : odd) v %= 2;
  return digits_variables(d, Tensor::from(odd, Shape{std::int64_t(odd.size())}), 0);
}

data::DataFile read_logistic_file(const std::string& path) {
  if (is_json(path)) return data::read_cmdstan_json(path);
  const data::Dataset d = read_numbers_csv(path);
  return {{"X", array_of(d.features)}, {"y", labels_of(d.labels)}};
}

data::DataFile read_softmax_file(const std::string& path) {
  if (is_json(path)) return data::read_cmdstan_json(path);
  const data::Dataset d = read_numbers_csv(path);
  const std::vector<std::int64_t> y = d.labels.to_vector<std::int64_t>();
  if (!y.empty()) {
    const auto [lo, hi] = std::minmax_element(y.begin(), y.end());
    if (*lo < 0) detail::fail(path, ": labels must be 0, 1, ..., K-1, found ", *lo);
    // Checked here as softmax_regression checks 1..K, so that the message quotes the file's labels.
    if (*hi >= std::int64_t(y.size()))
      detail::fail(path, ": the largest label, ", *hi, ", makes K = ", *hi + 1, " classes, more than the ", y.size(),
                   " rows of data; expected labels 0..K-1 with K at most the number of rows");
  }
  return {{"X", array_of(d.features)}, {"y", labels_of(d.labels, 1)}};
}

data::DataFile read_mnist(const std::string& folder) {
  const data::MnistSplit train = data::load_mnist(folder, "train"), test = data::load_mnist(folder, "t10k");
  // Without training images the posterior is the prior: a run would look fine and mean nothing.
  if (train.images.dim(0) == 0 || test.images.dim(0) == 0)
    detail::fail(folder, ": holds ", train.images.dim(0), " training and ", test.images.dim(0),
                 " test images; expected at least one of each");
  return {{"X", array_of(train.images)},
          {"y", labels_of(train.labels, 1)},
          {"X_test", array_of(test.images)},
          {"y_test", labels_of(test.labels, 1)}};
}

data::DataFile read_movielens(const std::string& folder) { return watches(data::load_movielens_100k(folder)); }

data::DataFile synthetic_watches() { return watches(data::synthetic_watch_matrix(random::Key(1))); }

}  // namespace variate::models
