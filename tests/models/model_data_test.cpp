// models::ModelData: data read by name as Stan's data block declares them, with errors that name the
// source, the variable and what was expected.
#include "variate/models/model_data.hpp"

#include <gtest/gtest.h>

#include "support/expect_error.hpp"
#include "variate/models/builtin.hpp"
#include "variate/tracing/program.hpp"
#include "variate/tracing/random_variables.hpp"

namespace {

using variate::DType;
using variate::data::DataArray;
using variate::models::ModelData;

ModelData schools(DType dtype = DType::f64) {
  return ModelData({{"J", {.shape = {}, .values = {3}, .integer = true}},
                    {"y", {.shape = {3}, .values = {28, 8, -3}, .integer = true}},
                    {"sigma", {.shape = {3}, .values = {15, 10, 0}, .integer = true}},
                    {"x", {.shape = {2, 2}, .values = {1.5, 2, 3, 4}, .integer = false}}},
                   "schools.json", dtype);
}

TEST(ModelData, ReadsIntegersAndRealArraysInTheRunsPrecision) {
  const ModelData d = schools(DType::f32);
  EXPECT_EQ(d.integer("J"), 3);
  const variate::Tensor y = d.values("y", {3});
  EXPECT_EQ(y.dtype(), DType::f32);
  EXPECT_EQ(y.shape(), variate::Shape({3}));
  EXPECT_EQ(d.vector("y").shape(), variate::Shape({3}));
  EXPECT_EQ(d.integers("y", {3}).dtype(), DType::i64);
  EXPECT_TRUE(d.has("x"));
  EXPECT_FALSE(d.has("X"));
}

TEST(ModelData, AMissingVariableIsAnErrorListingThoseThereAre) {
  EXPECT_ERROR(schools().values("yy", {3}),
               "schools.json: variable 'yy' is missing; expected real values of shape (3)");
  EXPECT_ERROR(schools().values("yy", {3}), "(there are: J, sigma, x, y)");
}

TEST(ModelData, ShapesKindsAndBoundsAreChecked) {
  EXPECT_ERROR(schools().values("y", {4}), "variable 'y' has shape (3); expected shape (4)");
  EXPECT_ERROR(schools().vector("x"), "variable 'x' has shape (2, 2); expected a vector");
  EXPECT_ERROR(schools().integer("y"), "variable 'y' must be an integer scalar, got shape (3)");
  EXPECT_ERROR(schools().integers("x", {2, 2}), "variable 'x' has real values; expected integers");
  EXPECT_ERROR(schools().integers("y", {3}, 0, 10), "variable 'y' has 28 at position 1; expected values in [0, 10]");
  EXPECT_ERROR(schools().positive_values("sigma", {3}), "variable 'sigma' has 0 at position 3; expected positive");
  EXPECT_ERROR(schools().check_size("J", 4, "the length of y"), "variable 'J' is 3 but the length of y is 4");
  schools().check_size("N", 4, "absent sizes are not checked");
}

// The models whose default data are embedded (the others read a folder or generate a large matrix).
TEST(BuiltinModels, EachBuildsFromItsEmbeddedDataAndNamesWhatItReads) {
  for (const std::string name : {"eight-schools", "beta-bernoulli", "digits-softmax", "logistic"}) {
    const variate::models::BuiltinModel& m = *variate::models::find_builtin_model(name);
    const variate::models::Definition d = m.function(ModelData(m.default_data(), m.default_source));
    EXPECT_FALSE(d.description.empty()) << m.name;
    EXPECT_FALSE(variate::tracing::ProgramJoint(d.program).sites().empty()) << m.name;
    EXPECT_ERROR(m.function(ModelData({}, "empty.json")), "empty.json: variable 'y' is missing");
  }
  EXPECT_ERROR(variate::models::matrix_factorization(ModelData({}, "empty.json")),
               "empty.json: variable 'watched' is missing");
  const variate::models::BuiltinModel& schools = *variate::models::find_builtin_model("eight-schools");
  EXPECT_EQ(schools.name, "eight-schools");
  EXPECT_ERROR(schools.function(ModelData({{"y", {.shape = {0}, .values = {}, .integer = true}},
                                           {"sigma", {.shape = {0}, .values = {}, .integer = true}}},
                                          "none.json")),
               "none.json: variable 'y' is empty; expected at least one school");
  EXPECT_EQ(variate::models::find_builtin_model("no-such-model"), nullptr);
}

// A model function whose program refers to its data, as a plugin written with [&] does: define keeps
// the data alive, so the program still reads them once the caller's ModelData is gone.
variate::models::Definition refers_to_its_data(const ModelData& data) {
  return {.description = "reads y when it runs",
          .program =
              [&data] {
                variate::tracing::Condition observed({{"y", data.values("y", {3})}});
                variate::Normal(variate::Tensor::scalar(0.0, data.dtype()), variate::Tensor::scalar(10.0, data.dtype()),
                                "y", {3});
              },
          .main_parameters = {}};
}

TEST(Define, KeepsTheDataAliveAsLongAsTheProgram) {
  const variate::models::Definition d = variate::models::define(&refers_to_its_data, schools(DType::f32));
  const auto sites = variate::tracing::ProgramJoint(d.program).sites();
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_TRUE(sites[0].observed);
  EXPECT_EQ(sites[0].dtype, DType::f32);
}

}  // namespace
