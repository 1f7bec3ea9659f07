// posteriordb's linear regressions: kidiq and kidiq_with_mom_work (Gelman & Hill ch. 3-4), earnings
// and mesquite (ch. 4), nes (ch. 4, eight election years), kilpisjarvi (a summer temperature
// trend), sblr (simulated Bayesian linear regression) and diamonds (brms's prices on 24
// predictors, strongly correlated). Most put flat priors on the coefficients: those are
// ImproperUniform, as in the Stan programs.
#include <cmath>

#include "suite.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/core/error.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/distributions/restricted.hpp"
#include "variate/distributions/student_t.hpp"
#include "variate/tracing/handlers.hpp"
#include "variate/tracing/random_variables.hpp"

namespace posteriordb {

using namespace variate;
using models::Definition;
using models::ModelData;

namespace {

enum class SigmaPrior { flat, cauchy };  // Stan: real<lower=0> sigma; with or without sigma ~ cauchy(0, 2.5)

/// The rows of X times beta, for beta of shape (K) or (chains, K).
Tensor linear_predictor(const Tensor& beta, const Tensor& x) { return einsum("...k,nk->...n", beta, x); }

/// y ~ normal(X beta, sigma) with flat beta, where X's first column is the intercept's ones and
/// the others are `predictors`, in Stan's order beta[1], beta[2], ...
Definition flat_regression(std::string description, const Tensor& y, const std::vector<Tensor>& predictors,
                           SigmaPrior sigma_prior) {
  std::vector<Tensor> columns{Tensor::ones(y.shape(), y.dtype())};
  columns.insert(columns.end(), predictors.begin(), predictors.end());
  const Tensor x = stack(std::span<const Tensor>(columns), -1);
  const auto K = std::int64_t(columns.size());
  const DType dtype = y.dtype();
  return {.description = std::move(description),
          .program =
              [=] {
                auto beta = ImproperUniform(Constraint::real(), "beta", {K}, dtype);
                auto sigma = sigma_prior == SigmaPrior::cauchy
                                 ? HalfCauchy(Tensor::scalar(0.0, dtype), Tensor::scalar(2.5, dtype), "sigma")
                                 : ImproperUniform(Constraint::positive(), "sigma", {}, dtype);
                tracing::Condition observed({{"y", y}});
                Normal(linear_predictor(beta, x), expand_dims(sigma, -1), "y");
              },
          .main_parameters = {"beta.1", "beta.2", "sigma"}};
}

Tensor centered(const Tensor& x) { return x - mean(x); }
/// The sample standard deviation (Stan's sd: divisor n - 1).
Tensor sample_sd(const Tensor& x) { return sqrt(sum(square(centered(x))) / double(x.shape()[0] - 1)); }
/// 1 where an integer code equals `value`, else 0 (Stan's `work2[i] = mom_work[i] == 2;`).
Tensor indicator(const Tensor& codes, std::int64_t value, DType dtype) { return cast(eq(codes, double(value)), dtype); }

Tensor observations(const ModelData& data, const std::string& name) {
  const Tensor y = data.vector(name);
  data.check_size("N", y.shape()[0], "the length of " + name);
  return y;
}

struct Kidiq {
  Tensor kid_score, mom_hs, mom_iq;
};
Kidiq kidiq_data(const ModelData& data) {
  const Tensor kid_score = observations(data, "kid_score");
  const std::int64_t n = kid_score.shape()[0];
  return {kid_score, data.values("mom_hs", {n}), data.values("mom_iq", {n})};
}

struct Earnings {
  Tensor earn, height, male;
};
Earnings earnings_data(const ModelData& data) {
  const Tensor earn = data.positive_values("earn", {data.integer("N")});
  const std::int64_t n = earn.shape()[0];
  return {earn, data.positive_values("height", {n}), data.has("male") ? data.values("male", {n}) : Tensor()};
}

struct Mesquite {
  Tensor weight, diam1, diam2, canopy_height, total_height, density, group;
};
Mesquite mesquite_data(const ModelData& data) {
  const std::int64_t n = data.integer("N");
  return {data.positive_values("weight", {n}),
          data.positive_values("diam1", {n}),
          data.positive_values("diam2", {n}),
          data.positive_values("canopy_height", {n}),
          data.positive_values("total_height", {n}),
          data.positive_values("density", {n}),
          data.values("group", {n})};
}

}  // namespace

Definition kidscore_momhs(const ModelData& data) {
  const Kidiq d = kidiq_data(data);
  return flat_regression("kid_score ~ normal(b1 + b2 mom_hs, sigma), sigma ~ cauchy(0, 2.5)", d.kid_score, {d.mom_hs},
                         SigmaPrior::cauchy);
}

Definition kidscore_momiq(const ModelData& data) {
  const Kidiq d = kidiq_data(data);
  return flat_regression("kid_score ~ normal(b1 + b2 mom_iq, sigma), sigma ~ cauchy(0, 2.5)", d.kid_score, {d.mom_iq},
                         SigmaPrior::cauchy);
}

Definition kidscore_momhsiq(const ModelData& data) {
  const Kidiq d = kidiq_data(data);
  return flat_regression("kid_score ~ normal(b1 + b2 mom_hs + b3 mom_iq, sigma), sigma ~ cauchy(0, 2.5)", d.kid_score,
                         {d.mom_hs, d.mom_iq}, SigmaPrior::cauchy);
}

Definition kidscore_interaction(const ModelData& data) {
  const Kidiq d = kidiq_data(data);
  return flat_regression("kid_score on mom_hs, mom_iq and their product, sigma ~ cauchy(0, 2.5)", d.kid_score,
                         {d.mom_hs, d.mom_iq, d.mom_hs * d.mom_iq}, SigmaPrior::cauchy);
}

Definition kidscore_interaction_c(const ModelData& data) {
  const Kidiq d = kidiq_data(data);
  const Tensor hs = centered(d.mom_hs), iq = centered(d.mom_iq);
  return flat_regression("kid_score on centered mom_hs, mom_iq and their product, flat priors", d.kid_score,
                         {hs, iq, hs * iq}, SigmaPrior::flat);
}

Definition kidscore_interaction_c2(const ModelData& data) {
  const Kidiq d = kidiq_data(data);
  const Tensor hs = d.mom_hs - 0.5, iq = d.mom_iq - 100.0;
  return flat_regression("kid_score on mom_hs - 0.5, mom_iq - 100 and their product, flat priors", d.kid_score,
                         {hs, iq, hs * iq}, SigmaPrior::flat);
}

Definition kidscore_interaction_z(const ModelData& data) {
  const Kidiq d = kidiq_data(data);
  const Tensor hs = centered(d.mom_hs) / (2.0 * sample_sd(d.mom_hs));
  const Tensor iq = centered(d.mom_iq) / (2.0 * sample_sd(d.mom_iq));
  return flat_regression("kid_score on mom_hs, mom_iq standardized by 2 sd and their product, flat priors", d.kid_score,
                         {hs, iq, hs * iq}, SigmaPrior::flat);
}

Definition kidscore_mom_work(const ModelData& data) {
  const Tensor kid_score = observations(data, "kid_score");
  const Tensor work = data.integers("mom_work", {kid_score.shape()[0]}, 1, 4);
  const DType dtype = kid_score.dtype();
  return flat_regression("kid_score on indicators of mom_work = 2, 3, 4, flat priors", kid_score,
                         {indicator(work, 2, dtype), indicator(work, 3, dtype), indicator(work, 4, dtype)},
                         SigmaPrior::flat);
}

Definition earn_height(const ModelData& data) {
  const Earnings d = earnings_data(data);
  return flat_regression("earn ~ normal(b1 + b2 height, sigma), flat priors", d.earn, {d.height}, SigmaPrior::flat);
}

Definition log10earn_height(const ModelData& data) {
  const Earnings d = earnings_data(data);
  return flat_regression("log10(earn) ~ normal(b1 + b2 height, sigma), flat priors", log(d.earn) / std::log(10.0),
                         {d.height}, SigmaPrior::flat);
}

Definition logearn_height(const ModelData& data) {
  const Earnings d = earnings_data(data);
  return flat_regression("log(earn) ~ normal(b1 + b2 height, sigma), flat priors", log(d.earn), {d.height},
                         SigmaPrior::flat);
}

Definition logearn_height_male(const ModelData& data) {
  const Earnings d = earnings_data(data);
  return flat_regression("log(earn) ~ normal(b1 + b2 height + b3 male, sigma), flat priors", log(d.earn),
                         {d.height, d.male}, SigmaPrior::flat);
}

Definition logearn_interaction(const ModelData& data) {
  const Earnings d = earnings_data(data);
  return flat_regression("log(earn) on height, male and their product, flat priors", log(d.earn),
                         {d.height, d.male, d.height * d.male}, SigmaPrior::flat);
}

Definition logearn_interaction_z(const ModelData& data) {
  const Earnings d = earnings_data(data);
  const Tensor z_height = centered(d.height) / sample_sd(d.height);
  return flat_regression("log(earn) on standardized height, male and their product, flat priors", log(d.earn),
                         {z_height, d.male, z_height * d.male}, SigmaPrior::flat);
}

Definition logearn_logheight_male(const ModelData& data) {
  const Earnings d = earnings_data(data);
  return flat_regression("log(earn) ~ normal(b1 + b2 log(height) + b3 male, sigma), flat priors", log(d.earn),
                         {log(d.height), d.male}, SigmaPrior::flat);
}

Definition mesquite(const ModelData& data) {
  const Mesquite d = mesquite_data(data);
  return flat_regression("weight on diam1, diam2, canopy_height, total_height, density, group, flat priors", d.weight,
                         {d.diam1, d.diam2, d.canopy_height, d.total_height, d.density, d.group}, SigmaPrior::flat);
}

Definition logmesquite(const ModelData& data) {
  const Mesquite d = mesquite_data(data);
  return flat_regression(
      "log(weight) on the logs of diam1, diam2, canopy_height, total_height, density, and group, flat priors",
      log(d.weight), {log(d.diam1), log(d.diam2), log(d.canopy_height), log(d.total_height), log(d.density), d.group},
      SigmaPrior::flat);
}

Definition logmesquite_logvolume(const ModelData& data) {
  const Mesquite d = mesquite_data(data);
  return flat_regression("log(weight) on log canopy volume, flat priors", log(d.weight),
                         {log(d.diam1 * d.diam2 * d.canopy_height)}, SigmaPrior::flat);
}

Definition logmesquite_logva(const ModelData& data) {
  const Mesquite d = mesquite_data(data);
  return flat_regression("log(weight) on log canopy volume and area, and group, flat priors", log(d.weight),
                         {log(d.diam1 * d.diam2 * d.canopy_height), log(d.diam1 * d.diam2), d.group}, SigmaPrior::flat);
}

Definition logmesquite_logvas(const ModelData& data) {
  const Mesquite d = mesquite_data(data);
  return flat_regression(
      "log(weight) on log canopy volume, area, shape, total height and density, and group, flat priors", log(d.weight),
      {log(d.diam1 * d.diam2 * d.canopy_height), log(d.diam1 * d.diam2), log(d.diam1 / d.diam2), log(d.total_height),
       log(d.density), d.group},
      SigmaPrior::flat);
}

Definition logmesquite_logvash(const ModelData& data) {
  const Mesquite d = mesquite_data(data);
  return flat_regression("log(weight) on log canopy volume, area, shape and total height, and group, flat priors",
                         log(d.weight),
                         {log(d.diam1 * d.diam2 * d.canopy_height), log(d.diam1 * d.diam2), log(d.diam1 / d.diam2),
                          log(d.total_height), d.group},
                         SigmaPrior::flat);
}

Definition nes(const ModelData& data) {
  const Tensor party = observations(data, "partyid7");
  const std::int64_t n = party.shape()[0];
  const DType dtype = party.dtype();
  const Tensor age = data.integers("age_discrete", {n}, 1, 4);
  return flat_regression(
      "partyid7 on ideology, race, age group, education, gender and income, flat priors", party,
      {data.values("real_ideo", {n}), data.values("race_adj", {n}), indicator(age, 2, dtype), indicator(age, 3, dtype),
       indicator(age, 4, dtype), data.values("educ1", {n}), data.values("gender", {n}), data.values("income", {n})},
      SigmaPrior::flat);
}

Definition kilpisjarvi(const ModelData& data) {
  const Tensor y = observations(data, "y");
  const Tensor x = data.values("x", {y.shape()[0]});
  const Tensor mu_alpha = data.values("pmualpha", {}), sd_alpha = data.positive_values("psalpha", {});
  const Tensor mu_beta = data.values("pmubeta", {}), sd_beta = data.positive_values("psbeta", {});
  const DType dtype = y.dtype();
  return {.description = "y ~ normal(alpha + beta x, sigma), normal priors from the data, flat sigma",
          .program =
              [=] {
                auto alpha = Normal(mu_alpha, sd_alpha, "alpha");
                auto beta = Normal(mu_beta, sd_beta, "beta");
                auto sigma = ImproperUniform(Constraint::positive(), "sigma", {}, dtype);
                tracing::Condition observed({{"y", y}});
                Normal(expand_dims(alpha, -1) + expand_dims(beta, -1) * x, expand_dims(sigma, -1), "y");
              },
          .main_parameters = {"alpha", "beta", "sigma"}};
}

Definition blr(const ModelData& data) {
  const Tensor y = observations(data, "y");
  const std::int64_t N = y.shape()[0], D = data.integer("D");
  const Tensor x = data.values("X", {N, D});
  const DType dtype = y.dtype();
  const Tensor zero = Tensor::scalar(0.0, dtype), ten = Tensor::scalar(10.0, dtype);
  return {.description = "beta ~ normal(0, 10), sigma ~ normal(0, 10) on sigma > 0, y ~ normal(X beta, sigma)",
          .program =
              [=] {
                auto beta = Normal(zero, ten, "beta", {D});
                auto sigma = HalfNormal(ten, "sigma");
                tracing::Condition observed({{"y", y}});
                Normal(linear_predictor(beta, x), expand_dims(sigma, -1), "y");
              },
          .main_parameters = {"beta.1", "sigma"}};
}

Definition diamonds(const ModelData& data) {
  const Tensor y = data.vector("Y");
  const std::int64_t N = y.shape()[0], K = data.integer("K");
  data.check_size("N", N, "the length of Y");
  VARIATE_CHECK(K >= 2, "diamonds", data.source(), ": K = ", K, "; expected an intercept column and a predictor");
  VARIATE_CHECK(!data.has("prior_only") || data.integer("prior_only") == 0, "diamonds", data.source(),
                ": prior_only is set; the suite samples the posterior");
  // brms's centring: the predictors without the intercept's column, each minus its mean.
  const Tensor predictors = slice(data.values("X", {N, K}), -1, 1, K);
  const Tensor xc = predictors - mean(predictors, std::vector<int>{0}, true);
  const DType dtype = y.dtype();
  const auto s = [dtype](double v) { return Tensor::scalar(v, dtype); };
  // Stan's `real<lower=0> sigma; target += student_t_lpdf(sigma | 3, 0, 10) - student_t_lccdf(0 | ...)`:
  // the half Student-t, whose normalization is a constant.
  const auto half_t =
      std::make_shared<dist::Restricted>(std::make_shared<dist::StudentT>(s(3), s(0), s(10)), Constraint::positive());
  return {.description =
              "brms: b ~ normal(0, 1), Intercept ~ student_t(3, 8, 10), sigma ~ student_t+(3, 0, 10), "
              "Y ~ normal(Intercept + Xc b, sigma) on the centred predictors",
          .program =
              [=] {
                auto b = Normal(s(0), s(1), "b", {K - 1});
                auto intercept = StudentT(s(3), s(8), s(10), "Intercept");
                auto sigma = RandomVariable(half_t, "sigma");
                tracing::Condition observed({{"Y", y}});
                NormalIdGLM(xc, b, intercept, sigma, "Y");  // Stan's normal_id_glm
              },
          .main_parameters = {"Intercept", "sigma", "b.1"}};
}

}  // namespace posteriordb
