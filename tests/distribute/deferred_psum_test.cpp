// One collective per gradient (distribute/deferred_psum.hpp): the target of a sharded program,
// which sums its device's share of the log density and of the replicated coordinates' gradient in
// one psum, gives bitwise the log density and gradient of the pbroadcast path (a psum forward and
// one per replicated site backward), for one position and for a batch of chains.
#include "variate/distribute/deferred_psum.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <utility>
#include <vector>

#include "support/expect_error.hpp"
#include "support/sharded_cases.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/distribute/mesh.hpp"
#include "variate/distribute/shard.hpp"
#include "variate/distribute/sharded.hpp"
#include "variate/distributions/half_normal.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/inference/target.hpp"
#include "variate/inference/unconstrained.hpp"
#include "variate/random/samplers.hpp"
#include "variate/tensor/prim.hpp"
#include "variate/tracing/program.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::distribute {
namespace {

using namespace variate::testing::sharded;

// Two replicated latents (two pbroadcasts on the old path) and a sharded one.
std::function<void()> program() {
  return [y = random::normal(random::Key(21), Shape{9})] {
    auto mu = Normal(0.0, 1.0, "mu");
    auto tau = HalfNormal(2.0, "tau");
    const std::int64_t rows = shard_range(9, "data").size();
    // [rows], or [chains, rows] for a batch of chains
    const auto by_row = [rows](const Tensor& t) { return prim::expand_dims(t, t.rank()) * Tensor::ones(Shape{rows}); };
    auto theta = Sharded(std::make_shared<dist::Normal>(by_row(mu), by_row(tau)), "data", "theta");
    tracing::Condition observed({{"y", shard(y, "data")}});
    Sharded(normal(theta, 1.0), "data", "y");
  };
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

class DeferredPsum : public ::testing::TestWithParam<std::tuple<int, int>> {};
INSTANTIATE_TEST_SUITE_P(DevicesAndChains, DeferredPsum,
                         ::testing::Combine(::testing::Values(2, 3), ::testing::Values(1, 3)));

TEST_P(DeferredPsum, TheTargetGivesBitwiseThePbroadcastPathsDensityAndGradient) {
  const auto [n, chains] = GetParam();
  Mesh mesh(n, "data");
  const auto results = mesh.run([&, chains = chains] {
    const inference::Unconstrained space(program());
    const std::int64_t d = space.dimension();
    const Tensor positions = random::normal(random::Key(22), chains == 1 ? Shape{d} : Shape{chains, d}) * 0.5;
    // The pbroadcast path: the log density as an unsharded program sees it, differentiated.
    const Tensor seed = Tensor::ones(chains == 1 ? Shape{} : Shape{chains});
    const auto old = vjp([&](const Tensor& x) { return space.log_density(x); }, seed, positions);
    std::vector<double> want = old.value.to_vector<double>(), want_grad = old.grads[0].to_vector<double>();
    std::vector<double> lp(static_cast<std::size_t>(chains)), grad(static_cast<std::size_t>(chains * d));
    inference::make_target(space).evaluate(positions.to_vector<double>(), chains, lp, grad);
    return std::pair(same_bits(lp, want), same_bits(grad, want_grad));
  });
  for (int device = 0; device < n; ++device) {
    EXPECT_TRUE(results[std::size_t(device)].first) << "log density, device " << device;
    EXPECT_TRUE(results[std::size_t(device)].second) << "gradient, device " << device;
  }
}

TEST(DeferredPsum, TheScopeLeavesTheLogJointUnsummed) {
  Mesh mesh(2, "data");
  const auto shares = mesh.run([] {
    const inference::Unconstrained space(program());
    const Tensor x = Tensor::zeros(Shape{space.dimension()});
    const double whole = space.log_density(x).item();
    const DeferredPsumScope deferred;
    return std::pair(whole, space.log_density(x).item());
  });
  EXPECT_NE(shares[0].second, shares[1].second);  // each device's own rows
  EXPECT_DOUBLE_EQ(shares[0].second + shares[1].second, shares[0].first);
  EXPECT_FALSE(psum_deferred());
}

TEST(DeferredPsum, MismatchedShapesAreAnError) {
  Mesh mesh(2, "data");
  EXPECT_ERROR(
      mesh.run_each([](int) { psum_value_and_gradient(Tensor::zeros(Shape{2}), Tensor::zeros(Shape{3}), 1, "data"); }),
      "expected a value of shape [] or [batch]");
  EXPECT_ERROR(
      mesh.run_each([](int) { psum_value_and_gradient(Tensor::scalar(0.0), Tensor::zeros(Shape{3}), 4, "data"); }),
      "expected 0 <= replicated <= 3, got 4");
}

}  // namespace
}  // namespace variate::distribute
