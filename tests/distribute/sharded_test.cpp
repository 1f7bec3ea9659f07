// Sharded programs (STYLE.md, "Sharded equals unsharded"): the log joint and its gradient of a
// program with Sharded sites, on 1-4 thread devices, equal the unsharded program's; sharded draws
// differ across devices and replicated ones do not; data shards are ragged; the unconstrained
// space of a sharded program gives the unsharded density and gathers the unsharded values.
#include "variate/distribute/sharded.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "support/expect_error.hpp"
#include "support/sharded_cases.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/distribute/mesh.hpp"
#include "variate/distribute/shard.hpp"
#include "variate/distributions/bernoulli.hpp"
#include "variate/distributions/half_normal.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/inference/target.hpp"
#include "variate/inference/unconstrained.hpp"
#include "variate/random/samplers.hpp"
#include "variate/tracing/program.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::distribute {
namespace {

using tracing::Values;
using namespace variate::testing::sharded;

class ShardedPrograms : public ::testing::TestWithParam<int> {};
INSTANTIATE_TEST_SUITE_P(Devices, ShardedPrograms, ::testing::Values(1, 2, 3, 4));

TEST_P(ShardedPrograms, LogJointAndGradientEqualTheUnshardedProgram) {
  const int n = GetParam();
  Mesh mesh(n, "data");
  std::vector<Case> all = cases();
  for (Case& c : collective_cases()) all.push_back(std::move(c));  // programs that call collectives
  for (const Case& c : all) {
    SCOPED_TRACE(c.name);
    const Values values = all_values(c);
    const auto names = names_of(values);
    const LogJointAndGrad want = log_joint_and_grad(c, values, names);
    const auto got = mesh.run([&] {
      Values local = c.replicated;
      for (const auto& [name, v] : c.sharded) local.emplace(name, shard(v, "data"));
      return log_joint_and_grad(c, local, names);
    });
    for (int d = 0; d < n; ++d) {
      SCOPED_TRACE("device " + std::to_string(d));
      expect_close(got[std::size_t(d)].value, want.value, "log joint");
      for (std::size_t k = 0; k < names.size(); ++k) {
        const bool sharded = c.sharded.count(names[k]) > 0;
        const ShardRange r = shard_range(want.grads[k].rank() ? want.grads[k].dim(0) : 1, d, n);
        expect_close(got[std::size_t(d)].grads[k], sharded ? slice(want.grads[k], 0, r.begin, r.end) : want.grads[k],
                     "gradient of " + names[k]);
      }
    }
  }
}

TEST_P(ShardedPrograms, ABatchOfChainsGivesEachChainItsUnshardedLogJoint) {
  const int n = GetParam();
  const Tensor x = features(11, 3, 1);
  // Written to broadcast a leading chain dimension of w.
  const Case c{"batched",
               [x] {
                 auto w = Normal(Tensor::zeros(Shape{3}), 1.0, "w");
                 Sharded(bernoulli_logits(matmul(w, transpose(shard(x, "data")))), "data", "y");
               },
               {},
               {}};
  const Tensor w = Tensor::from(std::vector<double>{0.3, -0.7, 1.1, -0.5, 0.2, 0.9}, Shape{2, 3});
  Values batch{{"w", w}, {"y", labels(11, 2)}};
  const std::vector<std::string> names{"w"};
  Values unsharded = batch;
  const LogJointAndGrad want = log_joint_and_grad(c, unsharded, names, 1);
  Mesh mesh(n, "data");
  const auto got = mesh.run([&] {
    Values local = batch;
    local["y"] = shard(batch.at("y"), "data");
    return log_joint_and_grad(c, local, names, 1);
  });
  // Each chain's own log joint, not only their sum.
  const Tensor want_per_chain = tracing::make_log_joint(c.program, 1)(unsharded);
  const auto got_per_chain = mesh.run([&] {
    Values local = batch;
    local["y"] = shard(batch.at("y"), "data");
    return tracing::make_log_joint(c.program, 1)(local);
  });
  for (int d = 0; d < n; ++d) {
    expect_close(got_per_chain[std::size_t(d)], want_per_chain, "log joint per chain");
    expect_close(got[std::size_t(d)].value, want.value, "summed log joint");
    for (std::size_t k = 0; k < names.size(); ++k) expect_close(got[std::size_t(d)].grads[k], want.grads[k], names[k]);
  }
}

TEST_P(ShardedPrograms, ShardedDrawsDifferAcrossDevicesAndReplicatedOnesDoNot) {
  const int n = GetParam();
  Mesh mesh(n, "data");
  const auto program = [] {
    auto mu = Normal(0.0, 1.0, "mu");
    Sharded(normal(mu, 1.0), "data", "z", {4});
  };
  const auto run = [&] { return mesh.run([&] { return tracing::ProgramJoint(program).sample(random::Key(11)); }); };
  const auto first = run(), second = run();
  for (int d = 0; d < n; ++d) {
    EXPECT_EQ(first[std::size_t(d)].at("mu").item(), first[0].at("mu").item()) << "device " << d;
    for (std::int64_t i = 0; i < 4; ++i) {
      EXPECT_EQ(first[std::size_t(d)].at("z").data<double>()[i], second[std::size_t(d)].at("z").data<double>()[i]);
      for (int e = 0; e < d; ++e)
        EXPECT_NE(first[std::size_t(d)].at("z").data<double>()[i], first[std::size_t(e)].at("z").data<double>()[i])
            << "devices " << e << " and " << d;
    }
  }
}

// The devices' parts together are draws of the unsharded site: N(2, 3^2) from 4 devices x 2500
// rows, mean within 5 standard errors (sd / sqrt(n)) and variance within 5 of its standard errors
// (sd^2 sqrt(2 / (n - 1))); a correct sampler fails with probability below 1e-6.
TEST(ShardedDraws, PooledOverTheDevicesHaveTheSitesDistribution) {
  Mesh mesh(4, "data");
  const auto parts = mesh.run([] {
    return tracing::ProgramJoint([] { Sharded(normal(2.0, 3.0), "data", "z", {2500}); }).sample(random::Key(5)).at("z");
  });
  double sum = 0, sum_sq = 0;
  for (const Tensor& p : parts)
    for (std::int64_t i = 0; i < p.numel(); ++i)
      sum += p.data<double>()[i], sum_sq += p.data<double>()[i] * p.data<double>()[i];
  const double n = 10000, mean = sum / n, variance = (sum_sq - n * mean * mean) / (n - 1);
  EXPECT_NEAR(mean, 2.0, 5 * 3.0 / std::sqrt(n));
  EXPECT_NEAR(variance, 9.0, 5 * 9.0 * std::sqrt(2 / (n - 1)));
}

TEST(Shard, RaggedShardsCoverTheRowsInOrder) {
  for (int count = 1; count <= 5; ++count) {
    for (std::int64_t rows : {0, 1, 4, 7, 10}) {
      std::int64_t next = 0, smallest = rows, largest = 0;
      for (int i = 0; i < count; ++i) {
        const ShardRange r = shard_range(rows, i, count);
        EXPECT_EQ(r.begin, next);
        next = r.end;
        smallest = std::min(smallest, r.size());
        largest = std::max(largest, r.size());
      }
      EXPECT_EQ(next, rows);
      EXPECT_LE(largest - smallest, 1);
    }
  }
  EXPECT_EQ(variate::testing::error_of([] { shard_range(5, 2, 2); }).find("shard_range"), 0u);
}

TEST(Shard, OutsideAMeshTheWholeTensorIsTheShard) {
  const Tensor x = features(5, 2, 1);
  EXPECT_EQ(shard(x, "data").shape(), x.shape());
  Mesh mesh(2, "data");
  const auto shapes = mesh.run([&] { return shard(x, "data").shape(); });
  EXPECT_EQ(shapes[0], Shape({3, 2}));
  EXPECT_EQ(shapes[1], Shape({2, 2}));
  const std::string wrong = variate::testing::error_of([&] { mesh.run([&] { shard(x, "model"); }); });
  EXPECT_NE(wrong.find("unknown axis 'model'"), std::string::npos) << wrong;
}

TEST(Shard, ShardedDataCutsEachDevicesShardOnce) {
  const Tensor x = features(7, 2, 1);
  const ShardedData data(x, "data");
  EXPECT_EQ(data.local().raw(), x.raw()) << "outside a mesh: the whole tensor, not a copy";
  Mesh mesh(3, "data");
  const auto seen = mesh.run([&] {
    const Tensor first = data.local(), again = data.local();
    return std::tuple(first.shape(), first.raw() == again.raw(), first.data<double>()[0]);
  });
  const std::vector<Shape> shapes{Shape{3, 2}, Shape{2, 2}, Shape{2, 2}};
  const std::vector<std::int64_t> first_rows{0, 3, 5};
  for (std::size_t d = 0; d < 3; ++d) {
    EXPECT_EQ(std::get<0>(seen[d]), shapes[d]);
    EXPECT_TRUE(std::get<1>(seen[d])) << "device " << d << " cut its shard twice";
    EXPECT_EQ(std::get<2>(seen[d]), x.data<double>()[first_rows[d] * 2]);
  }
  EXPECT_NE(variate::testing::error_of([] { ShardedData(Tensor::scalar(1.0), "data"); }).find("ShardedData"),
            std::string::npos);
}

TEST(Sharded, ASiteShardedOverAnotherAxisIsAnError) {
  Mesh mesh(2, "data");
  const std::string error = variate::testing::error_of([&] {
    mesh.run(
        [] { tracing::ProgramJoint([] { Sharded(normal(0.0, 1.0), "model", "z", {2}); }).sample(random::Key(0)); });
  });
  EXPECT_NE(error.find("sharded over axis 'model'"), std::string::npos) << error;
}

TEST(Sharded, AnUnknownValueStillNamesTheSite) {
  const Case c = sharded_data();
  Mesh mesh(2, "data");
  const std::string error = variate::testing::error_of([&] {
    mesh.run([&] { tracing::make_log_joint(c.program)({{"w", c.replicated.at("w")}}); });
  });
  EXPECT_NE(error.find("no value for site 'alpha'"), std::string::npos) << error;
}

// The unconstrained space of a sharded program: replicated coordinates first, the unsharded
// density on every device, and constrain_gathered returns the unsharded values.
TEST_P(ShardedPrograms, UnconstrainedSpaceGivesTheUnshardedDensityAndGathersValues) {
  const int n = GetParam();
  const Case c = movielens_style();
  const auto program = [&] {
    tracing::Condition data({{"watched", shard(c.sharded.at("watched"), "data")}});
    c.program();
  };
  inference::Unconstrained whole(program);
  const Values truth{{"v", c.replicated.at("v")},
                     {"b_movie", c.replicated.at("b_movie")},
                     {"u", c.sharded.at("u")},
                     {"b_user", c.sharded.at("b_user")}};
  const Tensor flat = whole.unconstrain(truth);
  const double want = whole.log_density(flat).item();
  Mesh mesh(n, "data");
  const auto got = mesh.run([&] {
    inference::Unconstrained space(program);
    Values local = truth;
    for (const char* name : {"u", "b_user"}) local[name] = shard(truth.at(name), "data");
    const Tensor local_flat = space.unconstrain(local);
    const Values gathered = space.constrain_gathered(local_flat);
    return std::tuple(space.log_density(local_flat).item(), space.replicated_dimension(), space.shard_axis(), gathered);
  });
  for (int d = 0; d < n; ++d) {
    const auto& [lp, replicated, axis, gathered] = got[std::size_t(d)];
    EXPECT_NEAR(lp, want, 1e-12 * std::abs(want)) << "device " << d;
    EXPECT_EQ(replicated, 4 * 2 + 4);
    EXPECT_EQ(axis, "data");
    for (const auto& [name, v] : truth) expect_close(gathered.at(name), v, name);
  }
}

// Only the data sharded, with a constrained replicated latent: its Jacobian term is counted once over
// the devices, and so is its gradient (each device gets the whole of it, not 1/n).
TEST_P(ShardedPrograms, AReplicatedSitesJacobianGradientIsTheUnshardedOne) {
  const int n = GetParam();
  const Tensor y = random::normal(random::Key(14), Shape{7});
  const auto program = [y] {
    auto sigma = HalfNormal(2.0, "sigma");
    tracing::Condition observed({{"y", shard(y, "data")}});
    Sharded(normal(0.0, sigma), "data", "y");
  };
  const auto gradient = [&](const std::function<void()>& model) {
    const inference::Target target = inference::make_target(inference::Unconstrained(model));
    std::vector<double> q{0.3}, grad(1);
    double lp = 0;
    target.evaluate(q, 1, {&lp, 1}, grad);
    return std::pair(lp, grad[0]);
  };
  const auto [want_lp, want_grad] = gradient(program);
  Mesh mesh(n, "data");
  const auto got = mesh.run([&] { return gradient(program); });
  for (int d = 0; d < n; ++d) {
    EXPECT_NEAR(got[std::size_t(d)].first, want_lp, 1e-12 * std::abs(want_lp)) << "device " << d;
    EXPECT_NEAR(got[std::size_t(d)].second, want_grad, 1e-12 * (1 + std::abs(want_grad))) << "device " << d;
  }
}

// A sharded latent with a constrained support: its Jacobian terms are summed over the devices too,
// and the target's gradient is the unsharded one (replicated part everywhere, rows per device).
TEST_P(ShardedPrograms, ShardedJacobianTermsAndTargetGradientsEqualTheUnshardedOnes) {
  const int n = GetParam();
  const Tensor y = random::normal(random::Key(12), Shape{7});
  const auto program = [y] {
    auto tau = HalfNormal(2.0, "tau");
    auto sigma = Sharded(std::make_shared<dist::HalfNormal>(Tensor::ones(Shape{shard_range(7, "data").size()}) * tau),
                         "data", "sigma");
    tracing::Condition observed({{"y", shard(y, "data")}});
    Sharded(normal(0.0, sigma), "data", "y");
  };
  const Tensor sigma = random::uniform(random::Key(13), Shape{7}) + 0.5;
  const auto evaluate = [](const inference::Unconstrained& space, const Values& values) {
    const inference::Target target = inference::make_target(space);
    const Tensor flat = space.unconstrain(values);
    std::vector<double> q = flat.to_vector<double>(), grad(q.size());
    double lp = 0;
    target.evaluate(q, 1, {&lp, 1}, grad);
    return std::pair(lp, grad);
  };
  const inference::Unconstrained whole(program);
  const auto [want_lp, want_grad] = evaluate(whole, {{"tau", Tensor::scalar(1.7)}, {"sigma", sigma}});
  Mesh mesh(n, "data");
  const auto got = mesh.run([&] {
    const inference::Unconstrained space(program);
    return evaluate(space, {{"tau", Tensor::scalar(1.7)}, {"sigma", shard(sigma, "data")}});
  });
  for (int d = 0; d < n; ++d) {
    const auto& [lp, grad] = got[std::size_t(d)];
    EXPECT_NEAR(lp, want_lp, 1e-12 * std::abs(want_lp)) << "device " << d;
    const ShardRange r = shard_range(7, d, n);
    ASSERT_EQ(std::int64_t(grad.size()), 1 + r.size());
    EXPECT_NEAR(grad[0], want_grad[0], 1e-12 * (1 + std::abs(want_grad[0]))) << "tau, device " << d;
    for (std::int64_t i = 0; i < r.size(); ++i)
      EXPECT_NEAR(grad[std::size_t(1 + i)], want_grad[std::size_t(1 + r.begin + i)],
                  1e-12 * (1 + std::abs(want_grad[std::size_t(1 + r.begin + i)])))
          << "sigma[" << r.begin + i << "], device " << d;
  }
}

}  // namespace
}  // namespace variate::distribute
