#include "models.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "matrix_factorization.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/core/quote_input.hpp"
#include "variate/data/data_file.hpp"
#include "variate/data/digits.hpp"
#include "variate/data/idx.hpp"
#include "variate/data/stan_csv.hpp"
#include "variate/distribute/shard.hpp"
#include "variate/distribute/sharded.hpp"
#include "variate/distributions/bernoulli_logit_glm.hpp"
#include "variate/distributions/categorical_logit_glm.hpp"
#include "variate/models/builtin.hpp"
#include "variate/models/plugin.hpp"
#include "variate/random/samplers.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::cli {
namespace {

// Every model's train/test split comes from this key, whatever --seed is, so that runs with
// different seeds are scored on the same held-out rows.
constexpr std::uint64_t kSplitSeed = 1;

template <class... Parts>
[[noreturn]] void data_error(const std::string& path, const Parts&... parts) {
  detail::fail(path, ": ", parts...);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
bool is_json(const std::string& path) { return ends_with(lower(path), ".json"); }
bool is_csv(const std::string& path) {
  const std::string p = lower(path);
  return ends_with(p, ".csv") || ends_with(p, ".csv.gz");
}

// A variable of a data file, checked for presence and rank; `expected` describes it for messages.
const data::DataArray& variable(const data::DataFile& file, const std::string& path, const std::string& name,
                                std::size_t rank, const std::string& expected) {
  const auto it = file.find(name);
  if (it == file.end()) {
    std::string present;
    constexpr std::size_t kShown = 3;  // names are quoted and cut, so the message stays one short line
    std::size_t shown = 0;
    for (const auto& [n, _] : file)
      if (shown++ < kShown) present += (present.empty() ? "" : ", ") + quote_input(n);
    if (file.size() > kShown) present += ", ... (" + std::to_string(file.size()) + " in all)";
    data_error(path, "variable '", name, "' is missing; expected ", expected,
               " (the file has: ", present.empty() ? "no variables" : present, ")");
  }
  if (it->second.shape.size() != rank)
    data_error(path, "variable '", name, "' has ", data::describe_shape(it->second.shape), "; expected ", expected);
  return it->second;
}

// An optional size variable (N, J, D, K) that must agree with the arrays it describes.
void check_size(const data::DataFile& file, const std::string& path, const std::string& name, std::int64_t actual,
                const std::string& what) {
  const auto it = file.find(name);
  if (it == file.end()) return;
  const data::DataArray& a = it->second;
  if (!a.shape.empty() || !a.integer)
    data_error(path, "variable '", name, "' must be an integer scalar (", what, "), got ",
               data::describe_shape(a.shape));
  if (std::int64_t(a.values[0]) != actual)
    data_error(path, "variable '", name, "' is ", std::int64_t(a.values[0]), " but ", what, " is ", actual);
}

Tensor to_tensor(const data::DataArray& a, DType dtype) {
  return cast(Tensor::from(a.values, Shape(std::span<const std::int64_t>(a.shape))), dtype);
}

std::vector<std::string> columns_of(const std::string& site, std::int64_t n, std::int64_t limit) {
  std::vector<std::string> names;
  for (std::int64_t i = 0; i < std::min(n, limit); ++i) {
    const std::int64_t index[] = {i};
    names.push_back(data::stan_column_name(site, index));
  }
  return names;
}

// ---------------------------------------------------------------------------------------------
// Classification data: features and 0-based labels, split into train and test rows.

struct Classification {
  Tensor x_train, y_train, x_test, y_test;  // x in the model's dtype, y i64
  std::int64_t classes = 0;
  std::string data;
};

// A fixed, seeded 80/20 split of the rows.
Classification split(const Tensor& x, const Tensor& labels, std::int64_t classes, DType dtype, std::string data) {
  const std::int64_t n = x.dim(0);
  const Tensor order = argsort(random::uniform(random::Key(kSplitSeed), Shape{n}));
  const std::int64_t n_train = n - std::max<std::int64_t>(1, n / 5);
  const Tensor train = slice(order, 0, 0, n_train), test = slice(order, 0, n_train, n);
  Classification c;
  c.x_train = cast(take(x, train), dtype);
  c.y_train = take(labels, train);
  c.x_test = cast(take(x, test), dtype);
  c.y_test = take(labels, test);
  c.classes = classes;
  std::ostringstream out;
  out << data << ", " << n_train << " train / " << n - n_train << " test rows, " << x.dim(1) << " features";
  c.data = out.str();
  return c;
}

// Features and labels from a CSV file of numbers (label in the last column) or a CmdStan JSON file
// with X (N x D) and y (N). `json_label_base` is the smallest label a JSON file uses (Stan's
// categorical counts from 1, its bernoulli from 0); CSV labels are 0-based.
void read_classification(const std::string& path, std::int64_t json_label_base, Tensor& x, Tensor& labels) {
  if (is_json(path)) {
    const data::DataFile file = data::read_cmdstan_json(path);
    const std::string x_name = file.count("X") || !file.count("x") ? "X" : "x";
    const data::DataArray& xa = variable(file, path, x_name, 2, "a matrix of features (N x D)");
    const data::DataArray& ya = variable(file, path, "y", 1, "a vector of N integer labels");
    if (ya.shape[0] != xa.shape[0])
      data_error(path, "variable 'y' has ", ya.shape[0], " labels but '", x_name, "' has ", xa.shape[0], " rows");
    if (!ya.integer) data_error(path, "variable 'y' must hold integer labels");
    check_size(file, path, "N", xa.shape[0], "the number of rows of " + x_name);
    check_size(file, path, "D", xa.shape[1], "the number of columns of " + x_name);
    x = to_tensor(xa, DType::f64);
    std::vector<std::int64_t> y;
    for (double v : ya.values) {
      // Labels become i64 class indices; 2^53 bounds the integers a double holds exactly.
      if (std::abs(v) > 9007199254740992.0)
        data_error(path, "label ", v, " in variable 'y' is out of range; expected a class number");
      y.push_back(std::int64_t(v) - json_label_base);
    }
    labels = Tensor::from(y, Shape{std::int64_t(y.size())});
    return;
  }
  if (!is_csv(path))
    data_error(path,
               "unknown data file type; expected a CSV file of numbers with the label in the last column "
               "(.csv, .csv.gz) or a CmdStan JSON data file (.json)");
  const data::Dataset d = data::load_csv_dataset(path, -1);
  x = d.features;
  labels = d.labels;
}

void check_rows(const std::string& path, const Tensor& x, std::int64_t minimum) {
  if (x.dim(0) < minimum)
    data_error(path, "found ", x.dim(0), " rows of data; expected at least ", minimum,
               " (20% are held out for testing)");
  if (x.dim(1) < 1) data_error(path, "found no feature columns; expected at least one feature before the label");
}

// ---------------------------------------------------------------------------------------------

// Softmax regression on a classification split. The training rows are split over the devices of a
// mesh ("data" axis) and the labels are a Sharded site, so the same program runs on one device
// or many; W and b are replicated.
Model softmax_regression(const std::string& name, const Classification& c, DType dtype) {
  const std::int64_t d = c.x_train.dim(1), k = c.classes;
  const Tensor zero = Tensor::scalar(0.0, dtype), one = Tensor::scalar(1.0, dtype);
  Model m;
  m.name = name;
  std::ostringstream desc;
  desc << "softmax regression, " << k << " classes: W ~ Normal(0, 1) [" << d << " x " << k << "], b ~ Normal(0, 1) ["
       << k << "], y ~ CategoricalLogitGLM(X, W, b) (Categorical(logits = X W + b), fused)";
  m.description = desc.str();
  m.data = c.data;
  m.program = [x = distribute::ShardedData(c.x_train, "data"), y = distribute::ShardedData(c.y_train, "data"), zero,
               one, d, k] {
    auto w = Normal(zero, one, "W", {d, k});
    auto b = Normal(zero, one, "b", {k});
    tracing::Condition observed({{"y", y.local()}});
    // The fused GLM reads X once per gradient; it takes W (C, D, K) and b (C, K) for C chains.
    Sharded(std::make_shared<dist::CategoricalLogitGLM>(x.local(), w, b), "data", "y");
  };
  m.main_parameters = columns_of("b", k, 10);
  m.predict = [x = c.x_test](const tracing::Values& v) {
    return softmax(matmul(x, v.at("W")) + expand_dims(v.at("b"), -2), -1);
  };
  m.test_labels = c.y_test;
  return m;
}

Model digits_softmax(const ModelOptions& o) {
  Tensor x, labels;
  std::string source;
  std::int64_t classes = 10;
  if (o.data_path.empty()) {
    const data::Dataset d = data::digits();
    x = d.features / 16.0;
    labels = d.labels;
    source = "embedded digits (8x8 pixels scaled to [0, 1])";
  } else {
    read_classification(o.data_path, 1, x, labels);
    check_rows(o.data_path, x, 5);
    const std::vector<std::int64_t> y = labels.to_vector<std::int64_t>();
    const auto [lo, hi] = std::minmax_element(y.begin(), y.end());
    if (*lo < 0)
      data_error(o.data_path, "labels must be ",
                 is_json(o.data_path) ? "1, 2, ..., K (as Stan's categorical)" : "0, 1, ..., K-1", ", found ",
                 *lo + (is_json(o.data_path) ? 1 : 0));
    classes = *hi + 1;
    if (classes < 2) data_error(o.data_path, "all labels are the same; expected at least two classes");
    // K sizes the weights (D x K) and every draw; more classes than rows means a mistyped label.
    if (classes > x.dim(0))
      data_error(o.data_path, "the largest label, ", *hi + (is_json(o.data_path) ? 1 : 0), ", makes K = ", classes,
                 " classes, more than the ", x.dim(0), " rows of data (--data); expected labels ",
                 is_json(o.data_path) ? "1..K" : "0..K-1", " with K at most the number of rows");
    if (is_json(o.data_path)) {
      const data::DataFile file = data::read_cmdstan_json(o.data_path);
      check_size(file, o.data_path, "K", classes, "the largest label");
    }
    source = o.data_path;
  }
  return softmax_regression("digits-softmax", split(x, labels, classes, o.dtype, source), o.dtype);
}

// MNIST's own split: 60000 training and 10000 test images of 28 x 28 pixels.
Model mnist_softmax(const ModelOptions& o) {
  const std::string dir = o.data_path.empty() ? "../shared/data/mnist" : o.data_path;
  const data::MnistSplit train = data::load_mnist(dir, "train", o.dtype), test = data::load_mnist(dir, "t10k", o.dtype);
  // Without training images the posterior is the prior: a run would look fine and mean nothing.
  if (train.images.dim(0) == 0 || test.images.dim(0) == 0)
    data_error(dir, "holds ", train.images.dim(0), " training and ", test.images.dim(0),
               " test images; expected at least one of each");
  Classification c;
  c.x_train = train.images;
  c.y_train = train.labels;
  c.x_test = test.images;
  c.y_test = test.labels;
  c.classes = 10;
  std::ostringstream out;
  out << dir << " (IDX files, pixels scaled to [0, 1]), " << c.x_train.dim(0) << " train / " << c.x_test.dim(0)
      << " test images, " << c.x_train.dim(1) << " features";
  c.data = out.str();
  return softmax_regression("mnist-softmax", c, o.dtype);
}

Model logistic(const ModelOptions& o) {
  Tensor x, labels;
  std::string source;
  if (o.data_path.empty()) {
    const data::Dataset d = data::digits();
    x = d.features / 16.0;
    std::vector<std::int64_t> odd = d.labels.to_vector<std::int64_t>();
    for (auto& v : odd) v %= 2;
    labels = Tensor::from(odd, Shape{std::int64_t(odd.size())});
    source = "embedded digits, odd vs even (8x8 pixels scaled to [0, 1])";
  } else {
    read_classification(o.data_path, 0, x, labels);
    check_rows(o.data_path, x, 5);
    const std::vector<std::int64_t> y = labels.to_vector<std::int64_t>();
    for (std::size_t i = 0; i < y.size(); ++i)
      if (y[i] != 0 && y[i] != 1)
        data_error(o.data_path, "label ", y[i], " in row ", i + 1, "; logistic regression expects labels 0 or 1");
    source = o.data_path;
  }
  Classification c = split(x, labels, 2, o.dtype, source);
  const std::int64_t d = c.x_train.dim(1);
  const Tensor zero = Tensor::scalar(0.0, o.dtype), one = Tensor::scalar(1.0, o.dtype);
  const Tensor alpha_scale = Tensor::scalar(2.5, o.dtype);

  Model m;
  m.name = "logistic";
  std::ostringstream desc;
  desc << "Bayesian logistic regression: alpha ~ Normal(0, 2.5), beta ~ Normal(0, 1) [" << d
       << "], y ~ BernoulliLogitGLM(X, beta, alpha)";
  m.description = desc.str();
  m.data = c.data;
  m.program = [x = distribute::ShardedData(c.x_train, "data"),
               y = distribute::ShardedData(cast(c.y_train, o.dtype), "data"), zero, one, alpha_scale, d] {
    auto alpha = Normal(zero, alpha_scale, "alpha");
    auto beta = Normal(zero, one, "beta", {d});
    tracing::Condition observed({{"y", y.local()}});
    // The fused GLM reads X once per gradient; it takes beta (C, D) and alpha (C) for C chains. The
    // rows are split over the devices of a mesh, if one runs.
    Sharded(std::make_shared<dist::BernoulliLogitGLM>(x.local(), beta, alpha), "data", "y");
  };
  m.main_parameters = {"alpha"};
  for (const auto& name : columns_of("beta", d, 8)) m.main_parameters.push_back(name);
  m.predict = [x = c.x_test](const tracing::Values& v) {
    const Tensor& beta = v.at("beta");  // (B, D)
    const Tensor p = sigmoid(matmul(beta, x, false, true) + expand_dims(v.at("alpha"), -1));
    return stack({1.0 - p, p}, -1);
  };
  m.test_labels = c.y_test;
  return m;
}

// A model written as a plugin is (variate/models/model.hpp), with its data read by name.
Model from_definition(const std::string& name, models::Definition d, const std::string& data_source) {
  Model m;
  m.name = name;
  m.description = std::move(d.description);
  m.data = data_source;
  m.program = std::move(d.program);
  m.main_parameters = std::move(d.main_parameters);
  return m;
}

Model builtin(const models::BuiltinModel& b, const ModelOptions& o) {
  if (o.data_path.empty())
    return from_definition(b.name,
                           models::define(b.function, models::ModelData(b.embedded_data, b.embedded_source, o.dtype)),
                           b.embedded_source);
  return from_definition(
      b.name, models::define(b.function, models::ModelData(data::read_data_file(o.data_path), o.data_path, o.dtype)),
      o.data_path);
}

Model plugin(const ModelOptions& o) {
  const models::Plugin p = models::load_plugin(o.model_file);
  const std::string name = std::filesystem::path(o.model_file).stem().string();
  models::ModelData data = o.data_path.empty()
                               ? models::ModelData({}, "the model file's data (none given: pass --data FILE)", o.dtype)
                               : models::ModelData(data::read_data_file(o.data_path), o.data_path, o.dtype);
  return from_definition(name, models::define(p.function, std::move(data)), o.data_path.empty() ? "none" : o.data_path);
}

}  // namespace

const std::vector<ModelInfo>& model_catalog() {
  static const std::vector<ModelInfo> catalog = {
      {"digits-softmax", "softmax regression on the embedded digits (10 classes), or --data CSV/JSON"},
      {"logistic", "logistic regression, odd vs even digits, or --data CSV (label 0/1 last) or JSON {N, D, X, y}"},
      {"mnist-softmax", "softmax regression on MNIST; --data DIR with the IDX files (default ../shared/data/mnist)"},
      {"movielens",
       "matrix factorization of MovieLens-100K's watch matrix; --data DIR (default "
       "../shared/data/movielens-100k)"},
      {"movielens-synthetic",
       "matrix factorization of a synthetic watch matrix of MovieLens-1M's size "
       "(6040 x 3706, ~1M ones)"},
  };
  static const std::vector<ModelInfo> with_builtins = [] {
    std::vector<ModelInfo> all = catalog;
    for (const models::BuiltinModel& m : models::builtin_models()) all.push_back({m.name, m.summary});
    return all;
  }();
  return with_builtins;
}

Model make_model(const std::string& name, const ModelOptions& options) {
  VARIATE_CHECK(options.dtype == DType::f64 || options.dtype == DType::f32, "make_model",
                "precision must be f64 or f32, got ", variate::name(options.dtype));
  if (!options.model_file.empty()) return plugin(options);
  if (name == "digits-softmax") return digits_softmax(options);
  if (name == "logistic") return logistic(options);
  if (const models::BuiltinModel* b = models::find_builtin_model(name)) return builtin(*b, options);
  if (name == "mnist-softmax") return mnist_softmax(options);
  if (name == "movielens") {
    const std::string dir = options.data_path.empty() ? "../shared/data/movielens-100k" : options.data_path;
    return matrix_factorization(name, data::load_movielens_100k(dir), options.dtype, dir + " (MovieLens-100K)");
  }
  if (name == "movielens-synthetic") {
    VARIATE_CHECK(options.data_path.empty(), "make_model",
                  "model 'movielens-synthetic' generates its data; --data is not used");
    return matrix_factorization(name, data::synthetic_watch_matrix(random::Key(kSplitSeed)), options.dtype,
                                "synthetic (low-rank logits, seed 1)");
  }
  std::string known;
  for (const ModelInfo& m : model_catalog()) known += (known.empty() ? "" : ", ") + m.name;
  detail::fail("unknown model ", quote_input(name), "; the models are: ", known);
}

HeldOutAccuracy held_out_accuracy(const Model& model,
                                  const std::function<tracing::Values(std::int64_t, std::int64_t)>& draws,
                                  std::int64_t draw_count) {
  VARIATE_CHECK(model.predict && model.test_labels.defined(), "held_out_accuracy", "model '", model.name,
                "' is not a classifier");
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

}  // namespace variate::cli
