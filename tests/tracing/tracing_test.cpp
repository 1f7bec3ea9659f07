// Tracing semantics: seeding, conditioning, intervening, scaling, blocking, nesting, and the
// program transformations built from them.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "variate/autodiff/transforms.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/tracing/program.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate {
namespace {

using tracing::Values;

double normal_lpdf(double x, double mu, double sigma) {
  const double z = (x - mu) / sigma;
  return -0.5 * z * z - std::log(sigma) - 0.5 * std::log(2 * std::numbers::pi);
}

// mu ~ N(0, 10); x ~ N(mu, 1) with 3 draws.
void model() {
  auto mu = Normal(0.0, 10.0, "mu");
  Normal(mu, 1.0, "x", {3});
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Tracing, SeedGivesEachSiteTheKeyFoldedWithItsName) {
  Tensor mu1, mu2, x1;
  {
    tracing::Seed seed(random::Key(3));
    mu1 = Normal(0.0, 10.0, "mu");
    x1 = Normal(0.0, 1.0, "x", {3});
  }
  {
    tracing::Seed seed(random::Key(3));
    mu2 = Normal(0.0, 10.0, "mu");
  }
  EXPECT_EQ(mu1.item(), mu2.item());
  EXPECT_EQ(mu1.item(), dist::Normal(0.0, 10.0).sample(random::fold_in(random::Key(3), "mu")).item());
  EXPECT_EQ(x1.shape(), (Shape{3}));
  tracing::Seed other(random::Key(4));
  EXPECT_NE(Normal(0.0, 10.0, "mu").value().item(), mu1.item());
}

TEST(Tracing, ErrorsNameTheSite) {
  EXPECT_NE(error_of([] { Normal(0.0, 1.0, "z"); }).find("site 'z' has no value and no random key"), std::string::npos);
  auto twice = [] {
    Normal(0.0, 1.0, "z");
    Normal(0.0, 1.0, "z");
  };
  EXPECT_NE(error_of([&] {
              tracing::Trace trace;
              tracing::Seed seed(random::Key(0));
              twice();
            }).find("'z' occurs twice"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              tracing::make_log_joint(twice)({{"z", 0.0}});
            }).find("'z' occurs twice"),
            std::string::npos);
  // Under Seed alone too (no Trace to notice).
  EXPECT_NE(error_of([&] {
              tracing::Seed seed{random::Key(0)};
              twice();
            }).find("'z' occurs twice"),
            std::string::npos);
}

// A name given to Condition, Substitute or Intervene that is no site of the program (a misspelling)
// would leave the real site latent: every program transformation rejects it, listing the sites.
TEST(Tracing, NamesThatMeetNoSiteAreErrors) {
  const Tensor y = Tensor::vec({0.5, 1.5, -0.2});
  auto misspelt = [&] {
    auto mu = Normal(0.0, 10.0, "mu");
    tracing::Condition data({{"yy", y}});
    Normal(mu, 1.0, "y", {3});
  };
  const std::string error = error_of([&] { tracing::ProgramJoint(misspelt).sample(random::Key(1)); });
  EXPECT_NE(error.find("Condition 'yy' names no site"), std::string::npos) << error;
  EXPECT_NE(error.find("its sites are: mu, y"), std::string::npos) << error;
  EXPECT_NE(error_of([&] {
              tracing::make_log_joint(misspelt)({{"mu", 0.0}, {"y", y}});
            }).find("Condition 'yy'"),
            std::string::npos);
  // Tracers around a transformation are checked by the run they wrap.
  EXPECT_NE(error_of([&] {
              tracing::Substitute values({{"muu", 1.0}});
              tracing::ProgramJoint(model).sample(random::Key(1));
            }).find("Substitute 'muu' names no site"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              tracing::Intervene values({{"x", Tensor::vec({1, 2, 3})}, {"sigma", 1.0}});
              tracing::ProgramJoint(model).sample(random::Key(1));
            }).find("Intervene 'sigma' names no site"),
            std::string::npos);
  // A name that does meet a site, inside or around the program, is fine.
  auto spelt = [&] {
    auto mu = Normal(0.0, 10.0, "mu");
    tracing::Condition data({{"y", y}});
    Normal(mu, 1.0, "y", {3});
  };
  EXPECT_NO_THROW(tracing::ProgramJoint(spelt).sample(random::Key(1)));
  tracing::Substitute around({{"mu", 0.25}});
  EXPECT_DOUBLE_EQ(tracing::ProgramJoint(spelt).sample(random::Key(1)).at("mu").item(), 0.25);
}

TEST(Tracing, ErrorsInsideADistributionNameTheSite) {
  auto two = [] { Normal(Tensor::vec({0.0, 1.0}), 1.0, "y"); };
  const std::string in_log_prob = error_of([&] { tracing::make_log_joint(two)({{"y", Tensor::vec({1, 2, 3})}}); });
  EXPECT_NE(in_log_prob.find("site 'y': "), std::string::npos) << in_log_prob;
  const std::string in_parameters = error_of([&] {
    tracing::Seed seed{random::Key(0)};
    Normal(0.0, -1.0, "z");
  });
  EXPECT_NE(in_parameters.find("site 'z': Normal"), std::string::npos) << in_parameters;
}

// factor adds its term as it is; a Deterministic site records a value and adds nothing.
TEST(Tracing, FactorAndDeterministicSites) {
  auto program = [] {
    auto mu = Normal(0.0, 1.0, "mu");
    factor("penalty", -2.0 * square(mu));
    Deterministic(mu * 3.0, "three_mu");
  };
  const double mu = 0.7;
  EXPECT_NEAR(tracing::make_log_joint(program)({{"mu", mu}}).item(), normal_lpdf(mu, 0, 1) - 2 * mu * mu, 1e-14);
  const Tensor g = grad(
      [&](const Tensor& m) {
        return tracing::make_log_joint(program)({{"mu", m}});
      },
      Tensor::scalar(mu));
  EXPECT_NEAR(g.item(), -mu - 4 * mu, 1e-12);
  tracing::Trace trace;
  {
    tracing::Substitute values({{"mu", mu}});
    tracing::run_program(program);
  }
  EXPECT_TRUE(trace.site("penalty").observed);
  EXPECT_TRUE(trace.site("three_mu").deterministic);
  EXPECT_NEAR(trace.site("three_mu").value.item(), 3 * mu, 1e-15);
  // A factor has no draws of its own to give, and a program with one still samples.
  EXPECT_NO_THROW(tracing::ProgramJoint(program).sample(random::Key(2)));
}

TEST(Tracing, AnImproperPriorHasNoDraws) {
  auto flat = [] { ImproperUniform(Constraint::positive(), "sigma", {2}); };
  EXPECT_NEAR(tracing::make_log_joint(flat)({{"sigma", Tensor::vec({0.5, 3.0})}}).item(), 0.0, 0.0);
  EXPECT_EQ(tracing::make_log_joint(flat)({{"sigma", Tensor::vec({-0.5, 3.0})}}).item(), -INFINITY);
  const std::string error = error_of([&] { tracing::ProgramJoint(flat).sample(random::Key(1)); });
  EXPECT_NE(error.find("site 'sigma': ImproperUniform: an improper prior"), std::string::npos) << error;
}

// A transformation run inside a model checks its own program's names, not the model's.
TEST(Tracing, ATransformationInsideAModelChecksOnlyItsOwnNames) {
  auto inner = [] { Normal(0.0, 1.0, "u"); };
  auto outer = [&] {
    tracing::Condition data({{"y", 0.5}});
    const Tensor lp = tracing::make_log_joint(inner)({{"u", 0.1}});
    Normal(lp, 1.0, "y");
  };
  EXPECT_NO_THROW(tracing::ProgramJoint(outer).sample(random::Key(1)));
}

TEST(Tracing, GeneratedQuantitiesNeedNotBeFinite) {
  auto program = [] {
    auto mu = Normal(0.0, 1.0, "mu");
    Deterministic(mu / 0.0, "ratio");
  };
  EXPECT_NO_THROW(tracing::make_log_joint(program)({{"mu", 1.0}}));
}

TEST(Tracing, GivenValuesMustFitTheSiteShape) {
  auto model3 = [] {
    tracing::Condition data({{"y", Tensor::vec({1.0, 2.0})}});
    Normal(0.0, 1.0, "y", {3});
  };
  const std::string error = error_of([&] { tracing::ProgramJoint(model3).sample(random::Key(1)); });
  EXPECT_NE(error.find("the value for site 'y' has shape [2], which does not broadcast with the site's shape [3]"),
            std::string::npos)
      << error;
}

TEST(Tracing, ALongLivedTraceSeesLaterRunsAsOneRun) {
  // Generated names restart with every program transformation, so runs stay reproducible.
  auto anonymous = [] { Normal(0.0, 1.0, ""); };
  tracing::ProgramJoint joint(anonymous);
  EXPECT_EQ(joint.sites()[0].name, "Normal");
  EXPECT_EQ(joint.sites()[0].name, "Normal");
  EXPECT_NEAR(tracing::make_log_joint(anonymous)({{"Normal", 0.0}}).item(), -0.5 * std::log(2 * std::numbers::pi),
              1e-15);
}

TEST(Tracing, GeneratedNamesAreDeterministic) {
  for (int run = 0; run < 2; ++run) {
    tracing::Trace trace;
    tracing::Seed seed(random::Key(0));
    Normal(0.0, 1.0, "");
    Normal(0.0, 1.0, "");
    ASSERT_EQ(trace.sites().size(), 2u);
    EXPECT_EQ(trace.sites()[0].name, "Normal");
    EXPECT_EQ(trace.sites()[1].name, "Normal_1");
  }
}

TEST(Tracing, TraceRecordsSitesInOrderWithTheirRoles) {
  tracing::Trace trace;
  {
    tracing::Seed seed(random::Key(1));
    tracing::Condition data({{"x", Tensor::vec({1.0, 2.0, 3.0})}});
    model();
  }
  ASSERT_EQ(trace.sites().size(), 2u);
  EXPECT_EQ(trace.sites()[0].name, "mu");
  EXPECT_FALSE(trace.sites()[0].observed);
  EXPECT_TRUE(trace.site("x").observed);
  EXPECT_EQ(trace.site("x").value.at(2), 3.0);
  EXPECT_NE(error_of([&] { trace.site("y"); }).find("mu, x"), std::string::npos);
}

TEST(Tracing, ConditionRejectsNonFiniteData) {
  const std::string message = error_of([] { tracing::Condition c({{"x", Tensor::vec({1.0, NAN})}}); });
  EXPECT_NE(message.find("site 'x'"), std::string::npos) << message;
  EXPECT_NE(message.find("index 1"), std::string::npos) << message;
}

TEST(Tracing, MakeLogJointMatchesTheClosedForm) {
  auto log_joint = tracing::make_log_joint(model);
  const Tensor x = Tensor::vec({0.5, -1.0, 2.0});
  const double lp = log_joint({{"mu", 0.3}, {"x", x}}).item();
  double expected = normal_lpdf(0.3, 0, 10);
  for (double xi : {0.5, -1.0, 2.0}) expected += normal_lpdf(xi, 0.3, 1);
  EXPECT_NEAR(lp, expected, 1e-12);
}

TEST(Tracing, MakeLogJointReportsMissingAndUnknownSites) {
  auto log_joint = tracing::make_log_joint(model);
  const std::string missing = error_of([&] { log_joint({{"mu", 0.3}}); });
  EXPECT_NE(missing.find("no value for site 'x'"), std::string::npos) << missing;
  EXPECT_NE(missing.find("given for: mu"), std::string::npos) << missing;
  const std::string unknown = error_of([&] {
    log_joint({{"mu", 0.3}, {"x", Tensor::vec({1, 2, 3})}, {"sigma", 1.0}});
  });
  EXPECT_NE(unknown.find("'sigma' is not a site"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("mu, x"), std::string::npos) << unknown;
}

TEST(Tracing, ATracerInsideTheModelStillWorksUnderMakeLogJoint) {
  // TFP issue 105: the model conditions x itself; the outer log joint must include x's term and
  // must not ask for x.
  auto conditioned_model = [] {
    tracing::Condition data({{"x", Tensor::vec({0.5, -1.0, 2.0})}});
    model();
  };
  const double lp = tracing::make_log_joint(conditioned_model)({{"mu", 0.3}}).item();
  const double full = tracing::make_log_joint(model)({{"mu", 0.3}, {"x", Tensor::vec({0.5, -1.0, 2.0})}}).item();
  EXPECT_NEAR(lp, full, 1e-12);
}

TEST(Tracing, InterveneCutsTheTermAndFeedsDownstream) {
  tracing::Trace trace;
  tracing::LogJoint log_joint;
  {
    tracing::Seed seed(random::Key(2));
    tracing::Intervene fix({{"mu", 5.0}});
    model();
  }
  EXPECT_TRUE(trace.site("mu").intervened);
  EXPECT_EQ(trace.site("mu").value.item(), 5.0);
  // x was drawn around the intervened mu; only x's density counts.
  const Tensor x = trace.site("x").value;
  double expected = 0;
  for (int i = 0; i < 3; ++i) expected += normal_lpdf(x.at(i), 5.0, 1.0);
  EXPECT_NEAR(log_joint.value().item(), expected, 1e-12);
}

TEST(Tracing, ScaleMultipliesTheLikelihood) {
  auto scaled = [] {
    auto mu = Normal(0.0, 10.0, "mu");
    tracing::Scale minibatch(100.0);
    Normal(mu, 1.0, "x", {3});
  };
  const Values values{{"mu", 0.3}, {"x", Tensor::vec({0.5, -1.0, 2.0})}};
  double x_term = 0;
  for (double xi : {0.5, -1.0, 2.0}) x_term += normal_lpdf(xi, 0.3, 1);
  EXPECT_NEAR(tracing::make_log_joint(scaled)(values).item(), normal_lpdf(0.3, 0, 10) + 100 * x_term, 1e-9);
  EXPECT_THROW(tracing::Scale(-1.0), Error);
}

TEST(Tracing, BlockHidesSitesFromOuterTracers) {
  // The Seed outside the block still seeds hidden sites (keys are plumbing); the Trace does not see them.
  auto run = [](tracing::Block::Mode mode, std::set<std::string, std::less<>> names) {
    tracing::Trace trace;
    tracing::Seed seed(random::Key(0));
    {
      tracing::Block block(mode, names);
      model();
    }
    std::vector<std::string> seen;
    for (const auto& s : trace.sites()) seen.push_back(s.name);
    return seen;
  };
  EXPECT_EQ(run(tracing::Block::Mode::all, {}), std::vector<std::string>{});
  EXPECT_EQ(run(tracing::Block::Mode::hide, {"mu"}), std::vector<std::string>{"x"});
  EXPECT_EQ(run(tracing::Block::Mode::expose, {"mu"}), std::vector<std::string>{"mu"});
  // A hidden site gets no value from an outer Substitute, and its density leaves the outer log joint.
  auto blocked_model = [] {
    tracing::Block block(tracing::Block::Mode::hide, {"mu"});
    tracing::Seed inner(random::Key(1));
    model();
  };
  EXPECT_NE(error_of([&] {
              tracing::make_log_joint(blocked_model)({{"mu", 0.0}, {"x", Tensor::vec({1, 2, 3})}});
            }).find("'mu' is not a site"),
            std::string::npos);
}

TEST(Tracing, LogJointIsDifferentiableAndKeepsALeadingChainDimension) {
  auto log_joint = tracing::make_log_joint(model);
  const Tensor x = Tensor::vec({0.5, -1.0, 2.0});
  auto [value, grads] = value_and_grad(
      [&](const Tensor& mu) {
        return log_joint({{"mu", mu}, {"x", x}});
      },
      Tensor::scalar(0.3));
  // d/dmu = -mu/100 + sum(x - mu)
  EXPECT_NEAR(grads[0].item(), -0.003 + (0.5 - 1.0 + 2.0 - 3 * 0.3), 1e-12);
  // Four chains at once: written with right-aligned broadcasting, the model takes mu of shape [4]
  // (x broadcasts as [4, 3] against mu[:, None]) and its log joint has one value per chain.
  const Tensor mus = Tensor::vec({0.0, 0.3, 1.0, -2.0});
  auto chain_model = [] {
    auto mu = Normal(0.0, 10.0, "mu");
    Normal(expand_dims(mu, -1), 1.0, "x");
  };
  const Tensor lp = tracing::make_log_joint(chain_model, 1)({{"mu", mus}, {"x", x}});
  ASSERT_EQ(lp.shape(), (Shape{4}));
  // Data that no state touches counts once for every chain, whatever its own shape.
  auto with_constant_site = [&] {
    chain_model();
    tracing::Condition data({{"noise", Tensor::vec({0.1, -0.2, 0.3})}});
    Normal(0.0, 1.0, "noise", {3});
  };
  const Tensor lp2 = tracing::make_log_joint(with_constant_site, 1)({{"mu", Tensor::vec({0.0, 0.3, 1.0})}, {"x", x}});
  double noise = 0;
  for (double v : {0.1, -0.2, 0.3}) noise += normal_lpdf(v, 0, 1);
  ASSERT_EQ(lp2.shape(), (Shape{3}));
  for (int c = 0; c < 3; ++c) {
    const double single = tracing::make_log_joint(chain_model)({{"mu", mus.at(c)}, {"x", x}}).item();
    EXPECT_NEAR(lp2.at(c), single + noise, 1e-12);
  }
  for (int c = 0; c < 4; ++c) {
    const double single = tracing::make_log_joint(chain_model)({{"mu", mus.at(c)}, {"x", x}}).item();
    EXPECT_NEAR(lp.at(c), single, 1e-12);
  }
}

TEST(Tracing, LogJointCanKeepTheLeadingDataDimOfEverySite) {
  // Three data points, each with its own latent (2) and observations (2): one term per point.
  const Tensor z = Tensor::from(std::vector<double>{0.1, -0.4, 0.7, 0.2, -1.0, 0.5}, Shape{3, 2});
  const Tensor x = Tensor::from(std::vector<double>{0.3, 0.0, 1.2, -0.1, -0.8, 0.9}, Shape{3, 2});
  tracing::LogJoint log_joint(tracing::LogJoint::LeadingDims{1});
  {
    tracing::Substitute latent({{"z", z}});
    tracing::Condition data({{"x", x}});
    auto zs = Normal(Tensor::zeros(Shape{3, 2}), 1.0, "z");
    Normal(zs, 0.5, "x");
  }
  const Tensor lp = log_joint.value();
  ASSERT_EQ(lp.shape(), (Shape{3}));
  for (std::int64_t b = 0; b < 3; ++b) {
    double expected = 0;
    for (std::int64_t j = 0; j < 2; ++j)
      expected += normal_lpdf(z.at(b * 2 + j), 0, 1) + normal_lpdf(x.at(b * 2 + j), z.at(b * 2 + j), 0.5);
    EXPECT_NEAR(lp.at(b), expected, 1e-12) << "data point " << b;
  }
  // A site without the data dim (one value for all points) has no term per point.
  tracing::LogJoint per_point(tracing::LogJoint::LeadingDims{1});
  const std::string message = error_of([] {
    tracing::Seed seed{random::Key(0)};
    Normal(0.0, 1.0, "shared");
  });
  EXPECT_NE(message.find("site 'shared' has shape []"), std::string::npos) << message;
}

TEST(Tracing, ProgramJointSamplesAndDescribesSites) {
  tracing::ProgramJoint joint(model);
  const Values a = joint.sample(random::Key(9)), b = joint.sample(random::Key(9));
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a.at("mu").item(), b.at("mu").item());
  EXPECT_EQ(a.at("x").shape(), (Shape{3}));
  const auto sites = joint.sites();
  ASSERT_EQ(sites.size(), 2u);
  EXPECT_EQ(sites[1].name, "x");
  EXPECT_EQ(sites[1].family, "Normal");
  EXPECT_EQ(sites[1].shape, (Shape{3}));
  EXPECT_EQ(sites[1].support.kind, Constraint::Kind::real);
  EXPECT_NEAR(joint.log_prob(a).item(), tracing::make_log_joint(model)(a).item(), 0);
}

}  // namespace
}  // namespace variate
