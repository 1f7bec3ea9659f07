// The posteriordb suite (bench/posteriordb): every model builds from its data and has the
// reference's parameters; log densities against computations written here from the Stan programs,
// as differences between two points (the programs' densities are defined up to a constant); a
// short run of the runner and its report. Skipped where ../shared/data/posteriordb is absent.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numbers>
#include <set>
#include <sstream>

#include "posteriordb/references.hpp"
#include "posteriordb/report.hpp"
#include "posteriordb/run.hpp"
#include "posteriordb/suite.hpp"
#include "support/expect_error.hpp"
#include "variate/data/data_file.hpp"
#include "variate/inference/draw_columns.hpp"
#include "variate/inference/unconstrained.hpp"

namespace posteriordb {
namespace {

using namespace variate;

#define SKIP_WITHOUT_DATA()                                              \
  if (!std::filesystem::exists(default_data_folder() + "/arK.json.zip")) \
  GTEST_SKIP() << "posteriordb data not found under " << default_data_folder()

const double kLogPi = std::log(std::numbers::pi);

std::vector<std::string> columns_of(const inference::Unconstrained& space, bool with_generated) {
  std::vector<inference::ColumnSite> sites;
  for (const inference::LatentSite& s : space.sites()) sites.push_back({s.name, s.shape});
  if (with_generated)
    for (const inference::GeneratedSite& s : space.generated_sites()) sites.push_back({s.name, s.shape});
  return inference::site_columns(sites).names;
}

TEST(PosteriordbSuite, EverySuiteModelHasAReferenceAndEveryReferenceAModel) {
  const ReferenceTable table = read_references(default_reference_file());
  std::set<std::string> posteriors, used;
  for (const SuiteModel& m : suite_models()) {
    posteriors.insert(m.posterior);
    used.insert(m.reference);
    EXPECT_TRUE(table.contains(m.reference)) << m.posterior << ": no reference " << m.reference;
  }
  EXPECT_EQ(posteriors.size(), suite_models().size()) << "a posterior is listed twice";
  EXPECT_GE(used.size(), 25u);
  for (const auto& [posterior, rows] : table) {
    EXPECT_TRUE(used.contains(posterior)) << posterior << " has a reference but no model";
    for (const Reference& r : rows) {
      EXPECT_GT(r.sd, 0) << posterior << " " << r.parameter;
      EXPECT_GT(r.mcse_mean, 0) << posterior << " " << r.parameter;
      EXPECT_EQ(r.draws, 10000) << posterior << " " << r.parameter;
    }
  }
}

// Every parameter of the reference is a column of the model's draws; a model with no generated
// quantities has exactly the reference's parameters (those with them sample Stan's non-centered
// parameters, theta_trans and f_tilde, which posteriordb's reference leaves out).
TEST(PosteriordbSuite, EveryModelBuildsWithTheReferencesParameters) {
  SKIP_WITHOUT_DATA();
  const ReferenceTable table = read_references(default_reference_file());
  for (const SuiteModel& m : suite_models()) {
    const models::Definition d = m.function(read_suite_data(m, default_data_folder()));
    const inference::Unconstrained space(d.program);
    const std::vector<std::string> all = columns_of(space, true);
    std::set<std::string> reference;
    for (const Reference& r : table.at(m.reference)) reference.insert(r.parameter);
    for (const std::string& p : reference)
      EXPECT_NE(std::find(all.begin(), all.end(), p), all.end()) << m.posterior << ": no column " << p;
    if (space.generated_sites().empty()) {
      const std::vector<std::string> latent = columns_of(space, false);
      EXPECT_EQ(std::set<std::string>(latent.begin(), latent.end()), reference) << m.posterior;
    }
    for (const std::string& p : d.main_parameters)
      EXPECT_NE(std::find(all.begin(), all.end(), p), all.end()) << m.posterior << ": main parameter " << p;
  }
}

TEST(PosteriordbSuite, AMissingModelOrDataFileIsAnErrorNamingIt) {
  EXPECT_ERROR(find_suite_model("radon"), "no model 'radon'");
  EXPECT_ERROR(read_suite_data(find_suite_model("arK-arK"), "/nonexistent"), "/nonexistent/arK.json.zip not found");
}

TEST(PosteriordbSuite, AMalformedReferenceRowIsAnErrorNamingItsLine) {
  const std::string file = ::testing::TempDir() + "/bad_references.csv";
  std::ofstream(file) << "# comment\nposterior,parameter,mean,sd,mcse_mean,draws\na-b,mu,1.5,x,0.1,100\n";
  EXPECT_ERROR(read_references(file), "bad_references.csv:3: 'x' is not a number");
}

// The model's log density at a constrained point, without the Jacobian (Stan's model block).
double log_density_at(const models::Definition& d, const tracing::Values& point) {
  const inference::Unconstrained space(d.program);
  return space.log_density(space.unconstrain(point), inference::Jacobian::excluded).item();
}

struct Posterior {
  const SuiteModel& model;
  data::DataFile file;
  models::Definition definition;
};
Posterior load(const std::string& name) {
  const SuiteModel& m = find_suite_model(name);
  const std::string path = default_data_folder() + "/" + m.data + ".json.zip";
  return {m, data::read_data_file(path), m.function(read_suite_data(m, default_data_folder()))};
}

double normal_lpdf(double x, double mu, double sigma) {
  const double z = (x - mu) / sigma;
  return -0.5 * z * z - std::log(sigma) - 0.5 * std::log(2 * std::numbers::pi);
}
double cauchy_lpdf(double x, double scale) { return -kLogPi - std::log(scale) - std::log1p(x * x / (scale * scale)); }
double student_t_lpdf(double x, double nu, double mu, double sigma) {
  const double z = (x - mu) / sigma;
  return std::lgamma((nu + 1) / 2) - std::lgamma(nu / 2) - 0.5 * std::log(nu) - 0.5 * kLogPi - std::log(sigma) -
         (nu + 1) / 2 * std::log1p(z * z / nu);
}

// log p(a) - log p(b) of the model against `reference`'s, which may leave out constants.
template <typename Reference>
void expect_same_differences(const models::Definition& d, const tracing::Values& a, const tracing::Values& b,
                             Reference reference, const std::string& what) {
  const double ours = log_density_at(d, a) - log_density_at(d, b);
  const double theirs = reference(a) - reference(b);
  EXPECT_NEAR(ours, theirs, 1e-9 * (1 + std::abs(theirs))) << what;
}

double at(const tracing::Values& v, const std::string& name, std::int64_t i = -1) {
  const Tensor& t = v.at(name);
  return i < 0 ? t.item() : t.data<double>()[i];
}

TEST(PosteriordbSuite, KidscoreMomiqIsStansProgram) {
  SKIP_WITHOUT_DATA();
  const Posterior p = load("kidiq-kidscore_momiq");
  const std::vector<double>&y = p.file.at("kid_score").values, &iq = p.file.at("mom_iq").values;
  const auto stan = [&](const tracing::Values& v) {  // flat beta; sigma ~ cauchy(0, 2.5)
    double lp = cauchy_lpdf(at(v, "sigma"), 2.5);
    for (std::size_t n = 0; n < y.size(); ++n)
      lp += normal_lpdf(y[n], at(v, "beta", 0) + at(v, "beta", 1) * iq[n], at(v, "sigma"));
    return lp;
  };
  expect_same_differences(p.definition, {{"beta", Tensor::vec({26, 0.6})}, {"sigma", Tensor::scalar(18)}},
                          {{"beta", Tensor::vec({20, 0.7})}, {"sigma", Tensor::scalar(25)}}, stan, p.model.posterior);
}

// Both eight schools programs; the centered one's schools are one event of N(mu, tau), the
// non-centered one's theta = mu + tau theta_trans.
TEST(PosteriordbSuite, EightSchoolsAreStansPrograms) {
  SKIP_WITHOUT_DATA();
  const Posterior centered = load("eight_schools-eight_schools_centered");
  const Posterior noncentered = load("eight_schools-eight_schools_noncentered");
  const std::vector<double>&y = centered.file.at("y").values, &sigma = centered.file.at("sigma").values;
  const auto hyper = [](const tracing::Values& v) {  // mu ~ normal(0, 5), tau ~ cauchy(0, 5) on tau > 0
    return normal_lpdf(at(v, "mu"), 0, 5) + cauchy_lpdf(at(v, "tau"), 5);
  };
  const auto stan_centered = [&](const tracing::Values& v) {
    double lp = hyper(v);
    for (std::size_t j = 0; j < y.size(); ++j) {
      const double theta = at(v, "theta", std::int64_t(j));
      lp += normal_lpdf(theta, at(v, "mu"), at(v, "tau")) + normal_lpdf(y[j], theta, sigma[j]);
    }
    return lp;
  };
  const auto stan_noncentered = [&](const tracing::Values& v) {
    double lp = hyper(v);
    for (std::size_t j = 0; j < y.size(); ++j) {
      const double trans = at(v, "theta_trans", std::int64_t(j));
      lp += normal_lpdf(trans, 0, 1) + normal_lpdf(y[j], at(v, "mu") + at(v, "tau") * trans, sigma[j]);
    }
    return lp;
  };
  const Tensor a = Tensor::vec({3, -1, 0.5, 2, -2, 1, 4, 0}), b = Tensor::vec({-0.5, 2, 1, -3, 0.25, 1.5, -1, 2});
  const auto point = [](const char* name, double mu, double tau, const Tensor& theta) {
    return tracing::Values{{"mu", Tensor::scalar(mu)}, {"tau", Tensor::scalar(tau)}, {name, theta}};
  };
  expect_same_differences(centered.definition, point("theta", 4, 3, a), point("theta", 1, 0.5, b), stan_centered,
                          centered.model.posterior);
  expect_same_differences(noncentered.definition, point("theta_trans", 4, 3, a), point("theta_trans", 1, 0.5, b),
                          stan_noncentered, noncentered.model.posterior);
}

TEST(PosteriordbSuite, Garch11IsStansProgram) {
  SKIP_WITHOUT_DATA();
  const Posterior p = load("garch-garch11");
  const std::vector<double>& y = p.file.at("y").values;
  const double sigma1 = p.file.at("sigma1").values[0];
  const auto stan = [&](const tracing::Values& v) {  // flat priors inside the bounds
    const double mu = at(v, "mu"), a0 = at(v, "alpha0"), a1 = at(v, "alpha1"), b1 = at(v, "beta1");
    double sigma = sigma1, lp = normal_lpdf(y[0], mu, sigma);
    for (std::size_t t = 1; t < y.size(); ++t) {
      sigma = std::sqrt(a0 + a1 * (y[t - 1] - mu) * (y[t - 1] - mu) + b1 * sigma * sigma);
      lp += normal_lpdf(y[t], mu, sigma);
    }
    return lp;
  };
  const auto point = [](double mu, double a0, double a1, double b1) {
    return tracing::Values{{"mu", Tensor::scalar(mu)},
                           {"alpha0", Tensor::scalar(a0)},
                           {"alpha1", Tensor::scalar(a1)},
                           {"beta1", Tensor::scalar(b1)}};
  };
  expect_same_differences(p.definition, point(5.0, 1.5, 0.55, 0.3), point(5.1, 1.2, 0.4, 0.5), stan, p.model.posterior);
}

TEST(PosteriordbSuite, Arma11IsStansProgram) {
  SKIP_WITHOUT_DATA();
  const Posterior p = load("arma-arma11");
  const std::vector<double>& y = p.file.at("y").values;
  const auto stan = [&](const tracing::Values& v) {
    const double mu = at(v, "mu"), phi = at(v, "phi"), theta = at(v, "theta"), sigma = at(v, "sigma");
    double lp = normal_lpdf(mu, 0, 10) + normal_lpdf(phi, 0, 2) + normal_lpdf(theta, 0, 2) + cauchy_lpdf(sigma, 2.5);
    double err = y[0] - (mu + phi * mu);
    lp += normal_lpdf(err, 0, sigma);
    for (std::size_t t = 1; t < y.size(); ++t) {
      err = y[t] - (mu + phi * y[t - 1] + theta * err);
      lp += normal_lpdf(err, 0, sigma);
    }
    return lp;
  };
  const auto point = [](double mu, double phi, double theta, double sigma) {
    return tracing::Values{{"mu", Tensor::scalar(mu)},
                           {"phi", Tensor::scalar(phi)},
                           {"theta", Tensor::scalar(theta)},
                           {"sigma", Tensor::scalar(sigma)}};
  };
  expect_same_differences(p.definition, point(0.5, 0.9, 0.2, 1.0), point(-0.3, 0.5, -0.4, 2.0), stan,
                          p.model.posterior);
}

TEST(PosteriordbSuite, HmmExampleIsStansForwardAlgorithm) {
  SKIP_WITHOUT_DATA();
  const Posterior p = load("hmm_example-hmm_example");
  const std::vector<double>& y = p.file.at("y").values;
  const auto stan = [&](const tracing::Values& v) {
    const double theta[2][2] = {{at(v, "theta1", 0), at(v, "theta1", 1)}, {at(v, "theta2", 0), at(v, "theta2", 1)}};
    const double mu[2] = {at(v, "mu", 0), at(v, "mu", 1)};
    double gamma[2] = {normal_lpdf(y[0], mu[0], 1), normal_lpdf(y[0], mu[1], 1)};
    for (std::size_t t = 1; t < y.size(); ++t) {
      double next[2];
      for (int k = 0; k < 2; ++k) {
        const double a = gamma[0] + std::log(theta[0][k]), b = gamma[1] + std::log(theta[1][k]);
        const double m = std::max(a, b);
        next[k] = m + std::log(std::exp(a - m) + std::exp(b - m)) + normal_lpdf(y[t], mu[k], 1);
      }
      gamma[0] = next[0], gamma[1] = next[1];
    }
    const double m = std::max(gamma[0], gamma[1]);
    return normal_lpdf(mu[0], 3, 1) + normal_lpdf(mu[1], 10, 1) + m +
           std::log(std::exp(gamma[0] - m) + std::exp(gamma[1] - m));
  };
  const auto point = [](double t1, double t2, double mu1, double mu2) {
    return tracing::Values{
        {"theta1", Tensor::vec({t1, 1 - t1})}, {"theta2", Tensor::vec({t2, 1 - t2})}, {"mu", Tensor::vec({mu1, mu2})}};
  };
  expect_same_differences(p.definition, point(0.7, 0.1, 3.0, 8.8), point(0.4, 0.3, 2.0, 9.5), stan, p.model.posterior);
}

TEST(PosteriordbSuite, LowDimGaussMixIsStansLogMix) {
  SKIP_WITHOUT_DATA();
  const Posterior p = load("low_dim_gauss_mix-low_dim_gauss_mix");
  const std::vector<double>& y = p.file.at("y").values;
  const auto stan = [&](const tracing::Values& v) {
    const double mu[2] = {at(v, "mu", 0), at(v, "mu", 1)}, sigma[2] = {at(v, "sigma", 0), at(v, "sigma", 1)};
    const double theta = at(v, "theta");
    double lp = (5 - 1) * std::log(theta) + (5 - 1) * std::log1p(-theta);  // beta(5, 5)
    for (int k = 0; k < 2; ++k) lp += normal_lpdf(mu[k], 0, 2) + normal_lpdf(sigma[k], 0, 2);
    for (double yn : y) {
      const double a = std::log(theta) + normal_lpdf(yn, mu[0], sigma[0]);
      const double b = std::log1p(-theta) + normal_lpdf(yn, mu[1], sigma[1]);
      const double m = std::max(a, b);
      lp += m + std::log(std::exp(a - m) + std::exp(b - m));
    }
    return lp;
  };
  const auto point = [](double mu1, double mu2, double s1, double s2, double theta) {
    return tracing::Values{
        {"mu", Tensor::vec({mu1, mu2})}, {"sigma", Tensor::vec({s1, s2})}, {"theta", Tensor::scalar(theta)}};
  };
  expect_same_differences(p.definition, point(-2.7, 2.9, 1.0, 1.1, 0.6), point(-1.0, 0.5, 2.0, 0.7, 0.3), stan,
                          p.model.posterior);
}

TEST(PosteriordbSuite, RadonVariableInterceptIsStansProgram) {
  SKIP_WITHOUT_DATA();
  ASSERT_EQ(gradient_only_models().size(), 1u);
  const SuiteModel& m = gradient_only_models()[0];
  ASSERT_EQ(m.posterior, "radon_mn-radon_variable_intercept_noncentered");
  const data::DataFile file = data::read_data_file(default_data_folder() + "/" + m.data + ".json.zip");
  const models::Definition d = m.function(read_suite_data(m, default_data_folder()));
  const std::vector<double>&y = file.at("log_radon").values, &x = file.at("floor_measure").values,
        &county = file.at("county_idx").values;
  const auto J = std::int64_t(file.at("J").values[0]);
  const auto stan = [&](const tracing::Values& v) {
    const double beta = at(v, "beta"), mu_alpha = at(v, "mu_alpha"), sigma_alpha = at(v, "sigma_alpha");
    const double sigma_y = at(v, "sigma_y");
    double lp = normal_lpdf(sigma_y, 0, 1) + normal_lpdf(sigma_alpha, 0, 1) + normal_lpdf(mu_alpha, 0, 10) +
                normal_lpdf(beta, 0, 10);
    for (std::int64_t j = 0; j < J; ++j) lp += normal_lpdf(at(v, "alpha_raw", j), 0, 1);
    for (std::size_t n = 0; n < y.size(); ++n) {
      const double alpha = mu_alpha + sigma_alpha * at(v, "alpha_raw", std::int64_t(county[n]) - 1);
      lp += normal_lpdf(y[n], alpha + x[n] * beta, sigma_y);
    }
    return lp;
  };
  const auto point = [J](double shift, double beta, double mu_alpha, double sigma_alpha, double sigma_y) {
    std::vector<double> raw(static_cast<std::size_t>(J));
    for (std::size_t j = 0; j < raw.size(); ++j) raw[j] = 0.1 * double(j % 7) - shift;
    return tracing::Values{{"alpha_raw", Tensor::from(raw)},
                           {"beta", Tensor::scalar(beta)},
                           {"mu_alpha", Tensor::scalar(mu_alpha)},
                           {"sigma_alpha", Tensor::scalar(sigma_alpha)},
                           {"sigma_y", Tensor::scalar(sigma_y)}};
  };
  expect_same_differences(d, point(0.3, -0.6, 1.5, 0.3, 0.8), point(0.1, -0.2, 1.2, 0.5, 0.7), stan, m.posterior);
}

TEST(PosteriordbSuite, DiamondsIsBrmsProgramOnCentredPredictors) {
  SKIP_WITHOUT_DATA();
  const Posterior p = load("diamonds-diamonds");
  const std::vector<double>&y = p.file.at("Y").values, &x = p.file.at("X").values;
  const std::size_t N = y.size(), K = std::size_t(p.file.at("K").values[0]);
  ASSERT_EQ(x.size(), N * K);
  std::vector<double> means(K, 0.0);  // column means of X, row-major (N, K)
  for (std::size_t n = 0; n < N; ++n)
    for (std::size_t k = 1; k < K; ++k) means[k] += x[n * K + k] / double(N);
  const auto stan = [&](const tracing::Values& v) {
    const double intercept = at(v, "Intercept"), sigma = at(v, "sigma");
    double lp = student_t_lpdf(intercept, 3, 8, 10) + student_t_lpdf(sigma, 3, 0, 10);
    for (std::size_t k = 1; k < K; ++k) lp += normal_lpdf(at(v, "b", std::int64_t(k - 1)), 0, 1);
    for (std::size_t n = 0; n < N; ++n) {
      double mean = intercept;
      for (std::size_t k = 1; k < K; ++k) mean += (x[n * K + k] - means[k]) * at(v, "b", std::int64_t(k - 1));
      lp += normal_lpdf(y[n], mean, sigma);
    }
    return lp;
  };
  const auto point = [K](double intercept, double sigma, double b) {
    std::vector<double> bs(K - 1);
    for (std::size_t k = 0; k < K - 1; ++k) bs[k] = b * (k % 3 == 0 ? 1.0 : -0.5) / double(k + 1);
    return tracing::Values{{"b", Tensor::from(bs, Shape{std::int64_t(K - 1)})},
                           {"Intercept", Tensor::scalar(intercept)},
                           {"sigma", Tensor::scalar(sigma)}};
  };
  expect_same_differences(p.definition, point(7.7, 0.14, 0.8), point(8.1, 0.3, -0.2), stan, p.model.posterior);
}

// The runner on a small model with few iterations: every figure is filled in and consistent, the
// means are checked against each reference parameter, and the report and its JSON carry the run.
TEST(PosteriordbSuite, TheRunnerReportsAShortRun) {
  SKIP_WITHOUT_DATA();
  const ReferenceTable table = read_references(default_reference_file());
  const SuiteModel& m = find_suite_model("kidiq-kidscore_momiq");
  RunOptions options;
  options.chains = 2;
  options.warmup = 150;
  options.draws = 100;
  options.threads = 2;
  const RunRecord r = run_posterior(m, read_suite_data(m, default_data_folder()), &table.at(m.posterior), options, 3);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.parameters, 3);
  EXPECT_GT(r.min_ess_bulk, 0);
  EXPECT_GE(r.min_ess_tail, 0);
  EXPECT_GT(r.max_rhat, 0.9);
  EXPECT_GT(r.sampling_gradients, 100 * 2 - 1);
  EXPECT_GT(r.gradients, r.sampling_gradients);
  EXPECT_GE(r.target_calls, r.gradients);  // threaded chains: one call per gradient, and the start's
  EXPECT_GT(r.seconds, 0);
  ASSERT_EQ(r.checks.size(), 3u);
  EXPECT_EQ(r.checks[0].parameter, "beta.1");
  for (const MeanCheck& c : r.checks)
    EXPECT_DOUBLE_EQ(c.z, std::abs(c.mean - c.reference_mean) / std::hypot(c.mcse, c.reference_mcse)) << c.parameter;

  RunRecord failed;
  failed.posterior = "arK-arK";
  failed.seed = 3;
  failed.error = "boom";
  const SuiteSummary s = summarize_runs({r, failed}, options);
  EXPECT_EQ(s.models, 2);
  EXPECT_EQ(s.runs, 2);
  EXPECT_DOUBLE_EQ(s.ess_per_gradient, r.min_ess_bulk / double(r.gradients));
  EXPECT_DOUBLE_EQ(s.ess_per_sampling_gradient, r.min_ess_bulk / double(r.sampling_gradients));
  ASSERT_FALSE(s.failures.empty());
  EXPECT_EQ(s.failures.back(), "arK-arK seed 3: error: boom");

  std::ostringstream text;
  print_row(text, r);
  print_summary(text, s);
  EXPECT_NE(text.str().find("kidiq-kidscore_momiq"), std::string::npos) << text.str();
  const std::string file = ::testing::TempDir() + "/posteriordb_suite_run.json";
  write_json(file, options, {r, failed}, s);
  const nlohmann::json j = nlohmann::json::parse(std::ifstream(file));
  EXPECT_EQ(j["runs"][0]["posterior"], "kidiq-kidscore_momiq");
  EXPECT_EQ(j["runs"][0]["gradients"], r.gradients);
  EXPECT_EQ(j["runs"][0]["means"].size(), 3u);
  EXPECT_EQ(j["runs"][1]["error"], "boom");
  EXPECT_EQ(j["summary"]["failures"].size(), s.failures.size());
}

}  // namespace
}  // namespace posteriordb
