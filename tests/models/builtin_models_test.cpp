// The built-in classifiers and matrix factorization (models/builtin.hpp): what they read, what they
// refuse, their held-out predictions and report, and held-out accuracy over draws.
#include <gtest/gtest.h>

#include <sstream>

#include "support/expect_error.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/models/builtin.hpp"
#include "variate/models/classifier.hpp"
#include "variate/tracing/program.hpp"

namespace {

using variate::DType;
using variate::Shape;
using variate::Tensor;
using variate::data::DataArray;
using variate::models::ModelData;

DataArray integers(std::vector<double> values) {
  const auto n = std::int64_t(values.size());
  return {.shape = {n}, .values = std::move(values), .integer = true};
}

DataArray column(std::vector<double> values) {
  const auto n = std::int64_t(values.size());
  return {.shape = {n, 1}, .values = std::move(values)};
}

TEST(SoftmaxRegression, ScoresOnTheGivenTestRowsWithKFromTheLargestLabel) {
  const ModelData data({{"X", column({0.1, 0.2, 0.3, 0.4, 0.5, 0.6})},
                        {"y", integers({1, 2, 3, 1, 2, 3})},
                        {"X_test", column({0.7, 0.8})},
                        {"y_test", integers({3, 1})}},
                       "given");
  const variate::models::Definition d = variate::models::softmax_regression(data);
  EXPECT_NE(d.description.find("3 classes"), std::string::npos) << d.description;
  EXPECT_EQ(d.data_summary, "6 train / 2 test rows, 1 features");
  EXPECT_EQ(d.test_labels.to_vector<std::int64_t>(), (std::vector<std::int64_t>{2, 0}));
  const Tensor p = d.predict({{"W", Tensor::zeros(Shape{4, 1, 3})}, {"b", Tensor::zeros(Shape{4, 3})}});
  EXPECT_EQ(p.shape(), (Shape{4, 2, 3}));
  EXPECT_NEAR(p.to_vector<double>()[0], 1.0 / 3, 1e-15);

  EXPECT_ERROR(
      variate::models::softmax_regression(ModelData(
          {{"X", column({0.1, 0.2})}, {"y", integers({1, 2})}, {"X_test", column({0.7})}, {"y_test", integers({3})}},
          "bad.json")),
      "bad.json: variable 'y_test' has 3 at position 1; expected values in [1, 2]");
  EXPECT_ERROR(variate::models::softmax_regression(
                   ModelData({{"X", column({0.1, 0.2, 0.3})}, {"y", integers({0, 1, 2})}}, "zero.json")),
               "zero.json: labels must be 1, 2, ..., K (as Stan's categorical), found 0");
}

TEST(SoftmaxRegression, HoldsOutAFifthOfTheRowsWithoutTestRows) {
  const ModelData data(
      {{"X", column({1, 2, 3, 4, 5, 6, 7, 8, 9, 10})}, {"y", integers({1, 2, 1, 2, 1, 2, 1, 2, 1, 2})}}, "given");
  const variate::models::Definition d = variate::models::softmax_regression(data);
  EXPECT_EQ(d.data_summary, "8 train / 2 test rows, 1 features");
  EXPECT_ERROR(variate::models::softmax_regression(
                   ModelData({{"X", column({1, 2, 3, 4})}, {"y", integers({1, 2, 1, 2})}}, "four.json")),
               "four.json: found 4 rows of data; expected at least 5 (20% are held out for testing)");
}

TEST(LogisticRegression, RefusesLabelsOtherThanZeroAndOne) {
  EXPECT_ERROR(variate::models::logistic_regression(
                   ModelData({{"X", column({1, 2, 3, 4, 5})}, {"y", integers({0, 2, 1, 0, 1})}}, "labels.json")),
               "labels.json: label 2 in row 2; logistic regression expects labels 0 or 1");
  EXPECT_ERROR(variate::models::logistic_regression(
                   ModelData({{"X", column({1, 2, 3, 4})}, {"y", integers({0, 1, 1, 0, 1})}}, "rows.json")),
               "rows.json: variable 'y' has 5 labels but 'X' has 4 rows");
}

TEST(MatrixFactorization, RecommendsEachUsersBestUnwatchedMovieByTitle) {
  DataArray watched{.shape = {2, 3}, .values = {1, 0, 0, 1, 1, 0}, .integer = true};
  watched.entry_names = {"Alpha", "Beta", "Gamma"};
  const variate::models::Definition d = variate::models::matrix_factorization(ModelData({{"watched", watched}}, "w"));
  EXPECT_EQ(d.data_summary, "2 users x 3 movies, 3 watched");
  EXPECT_EQ(d.saved_sites, (std::vector<std::string>{"b_movie", "b_user"}));
  ASSERT_TRUE(d.report);
  // Movie 2 (Beta) scores highest, then Gamma; the most active user has watched Alpha and Beta.
  d.report->add_draw({{"u", Tensor::zeros(Shape{2, 20})},
                      {"v", Tensor::zeros(Shape{3, 20})},
                      {"b_movie", Tensor::from(std::vector<double>{0, 5, 1}, Shape{3})}});
  std::ostringstream out;
  d.report->print(out);
  EXPECT_NE(out.str().find("the most active user (user 2, 2 movies watched):\n    100.0%  Gamma"), std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("the least active user (user 1, 1 movies watched):\n    100.0%  Beta"), std::string::npos)
      << out.str();

  watched.values[2] = 2;
  EXPECT_ERROR(variate::models::matrix_factorization(ModelData({{"watched", watched}}, "w.json")),
               "w.json: variable 'watched' has 2 at position 3; expected 0 (not watched) or 1 (watched)");
  watched.values[2] = 0;
  watched.entry_names.pop_back();
  EXPECT_ERROR(variate::models::matrix_factorization(ModelData({{"watched", watched}}, "w.json")),
               "w.json: variable 'watched' names 2 movies but has 3 columns");
}

TEST(BuiltinModels, AModelThatGeneratesItsDataRefusesADataPath) {
  EXPECT_ERROR(variate::models::builtin_definition(*variate::models::find_builtin_model("movielens-synthetic"),
                                                   "watches.json", DType::f64),
               "model 'movielens-synthetic' generates its data; a data path is not used");
}

// Two draws in turn, each right on two of the three test rows; their average is right on all three.
TEST(HeldOutAccuracy, AveragesOverDrawsInBatches) {
  variate::models::Definition classifier;
  const Tensor table = Tensor::from(std::vector<double>{0.9, 0.1, 0.2, 0.8, 0.6, 0.4,     // draw a: 0, 1, 0
                                                        0.4, 0.6, 0.45, 0.55, 0.1, 0.9},  // draw b: 1, 1, 1
                                    Shape{2, 3, 2});
  classifier.predict = [table](const variate::tracing::Values& v) { return take(table, v.at("which")); };
  classifier.test_labels = Tensor::from(std::vector<std::int64_t>{0, 1, 1}, Shape{3});
  const std::int64_t draws = 101;  // two batches of 64 and a lone a at the end
  const auto which = [](std::int64_t begin, std::int64_t end) {
    std::vector<std::int64_t> index;
    for (std::int64_t g = begin; g < end; ++g) index.push_back(g % 2);
    return variate::tracing::Values{{"which", Tensor::from(index, Shape{end - begin})}};
  };
  const variate::models::HeldOutAccuracy acc = variate::models::held_out_accuracy(classifier, which, draws);
  EXPECT_EQ(acc.draws, draws);
  EXPECT_EQ(acc.examples, 3);
  EXPECT_NEAR(acc.mean_single, 2.0 / 3, 1e-15);
  EXPECT_EQ(acc.model_averaging, 1.0);
  EXPECT_ERROR(variate::models::held_out_accuracy(variate::models::Definition{}, which, draws),
               "the model is not a classifier");
}

}  // namespace
