// posteriordb posteriors timed by bench/suite_gradient but not sampled by the suite: programs
// without a reference posterior in posteriordb.
#include "suite.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/distributions/restricted.hpp"
#include "variate/tracing/handlers.hpp"
#include "variate/tracing/random_variables.hpp"

namespace posteriordb {

using namespace variate;
using models::Definition;
using models::ModelData;

const std::vector<SuiteModel>& gradient_only_models() {
  static const std::vector<SuiteModel> models = {
      {"radon_mn-radon_variable_intercept_noncentered", "radon_mn", &radon_variable_intercept_noncentered,
       "hierarchical regression, 85 groups", ""},
  };
  return models;
}

// alpha_raw ~ N(0, 1), alpha = mu_alpha + sigma_alpha alpha_raw (one intercept per county),
// beta, mu_alpha ~ N(0, 10), sigma_alpha, sigma_y ~ N(0, 1) on > 0,
// log_radon_n ~ N(alpha[county_n] + beta floor_n, sigma_y).
Definition radon_variable_intercept_noncentered(const ModelData& data) {
  const Tensor log_radon = data.vector("log_radon");
  const std::int64_t N = log_radon.shape()[0], J = data.integer("J");
  data.check_size("N", N, "the length of log_radon");
  const DType dtype = log_radon.dtype();
  // Stan's 1-based county indices, as 0-based ones.
  const Tensor county = cast(cast(data.integers("county_idx", {N}, 1, J), dtype) - 1.0, DType::i64);
  const Tensor floor_measure = data.values("floor_measure", {N});
  const auto s = [dtype](double v) { return Tensor::scalar(v, dtype); };
  return {.description = "radon: county intercepts, non-centered, and a floor effect",
          .program =
              [=] {
                auto alpha_raw = Normal(s(0), s(1), "alpha_raw", {J});
                auto beta = Normal(s(0), s(10), "beta");
                auto mu_alpha = Normal(s(0), s(10), "mu_alpha");
                auto sigma_alpha = HalfNormal(s(1), "sigma_alpha");
                auto sigma_y = HalfNormal(s(1), "sigma_y");
                const Tensor alpha =
                    Deterministic(expand_dims(mu_alpha, -1) + expand_dims(sigma_alpha, -1) * alpha_raw, "alpha");
                tracing::Condition observed({{"log_radon", log_radon}});
                Normal(take(alpha, county, -1) + expand_dims(beta, -1) * floor_measure, expand_dims(sigma_y, -1),
                       "log_radon");
              },
          .main_parameters = {"beta", "mu_alpha", "sigma_alpha", "sigma_y"}};
}

}  // namespace posteriordb
