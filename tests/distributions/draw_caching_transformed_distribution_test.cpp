// DrawCachingTransformedDistribution: log_prob at its own draw (from the remembered pre-image)
// against the exact, inverse-based log_prob of TransformedDistribution, and proof that the draw's
// density takes no inverse while any other value's does.
#include "variate/distributions/draw_caching_transformed_distribution.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "support/ad_check.hpp"
#include "variate/distributions/chain.hpp"
#include "variate/distributions/independent.hpp"
#include "variate/distributions/inverse_autoregressive_flow.hpp"
#include "variate/distributions/normal.hpp"

namespace variate {
namespace {

using testing::random_tensor;

// A bijector as another, counting the calls of its inverse.
class CountingInverses final : public Bijector {
 public:
  explicit CountingInverses(BijectorPtr inner) : inner_(std::move(inner)) {}
  const char* name() const override { return "CountingInverses"; }
  Tensor forward(const Tensor& x) const override { return inner_->forward(x); }
  Tensor inverse(const Tensor& y) const override {
    ++inverses;
    return inner_->inverse(y);
  }
  Tensor forward_log_det_jacobian(const Tensor& x) const override { return inner_->forward_log_det_jacobian(x); }
  int forward_event_ndims() const override { return inner_->forward_event_ndims(); }
  Constraint forward_image(const Constraint& domain) const override { return inner_->forward_image(domain); }
  mutable int inverses = 0;

 private:
  BijectorPtr inner_;
};

TEST(DrawCachingTransformedDistribution, DensityOfItsDrawMatchesTheExactInverseOnAnIafGuide) {
  // A batch of 3 Gaussians in 6 dims through IAF(order 1..6) then IAF(reversed), one Chain, as a VAE guide.
  const auto base = std::make_shared<dist::Independent>(
      std::make_shared<dist::Normal>(random_tensor(Shape{3, 6}, 1), exp(0.3 * random_tensor(Shape{3, 6}, 2))), 1);
  dist::AutoregressiveFlowOptions options{.hidden = {12, 12}, .activation = nn::ActivationKind::tanh};
  const auto first = std::make_shared<dist::InverseAutoregressiveFlow>(6, random::Key(3), options);
  options.order = nn::made_reversed_degrees(6);
  const auto second = std::make_shared<dist::InverseAutoregressiveFlow>(6, random::Key(4), options);
  const auto flows =
      std::make_shared<CountingInverses>(std::make_shared<dist::Chain>(std::vector<BijectorPtr>{second, first}));
  const dist::DrawCachingTransformedDistribution q(base, flows);
  const dist::TransformedDistribution exact(base, flows);
  EXPECT_EQ(q.batch_shape(), Shape{3});
  EXPECT_EQ(q.event_shape(), Shape{6});
  for (std::uint64_t draw = 0; draw < 5; ++draw) {
    const Tensor y = q.sample(random::Key(10 + draw));
    const Tensor cached = q.log_prob(y);
    EXPECT_EQ(flows->inverses, 0) << "the density of the draw took the inverse";
    const Tensor by_inverse = exact.log_prob(y);
    ASSERT_EQ(cached.shape(), Shape{3});
    for (std::int64_t i = 0; i < 3; ++i)
      EXPECT_NEAR(cached.at(i), by_inverse.at(i), 1e-10 * std::abs(by_inverse.at(i)));
    // Another tensor of the same values is not the draw: its density goes through the inverse.
    const Tensor copy_density = q.log_prob(y.clone());
    for (std::int64_t i = 0; i < 3; ++i) EXPECT_EQ(copy_density.at(i), by_inverse.at(i));
    flows->inverses = 0;
  }
}

// y = 2x + 1 elementwise, with an inverse that must not be called.
class ForwardOnly final : public Bijector {
 public:
  const char* name() const override { return "ForwardOnly"; }
  Tensor forward(const Tensor& x) const override { return 2.0 * x + 1.0; }
  Tensor inverse(const Tensor&) const override { throw std::logic_error("ForwardOnly: inverse called"); }
  Tensor forward_log_det_jacobian(const Tensor& x) const override { return 0.0 * x + std::log(2.0); }
};

TEST(DrawCachingTransformedDistribution, DensityOfItsLastDrawTakesNoInverseAndOthersDo) {
  const auto base = std::make_shared<dist::Normal>(Tensor::zeros(Shape{4}), Tensor::scalar(1.0));
  const dist::DrawCachingTransformedDistribution q(base, std::make_shared<ForwardOnly>());
  const Tensor y = q.sample(random::Key(7));
  const Tensor lp = q.log_prob(y);
  for (std::int64_t i = 0; i < 4; ++i) {
    const double x = (y.at(i) - 1) / 2;
    EXPECT_NEAR(lp.at(i), -x * x / 2 - 0.5 * std::log(2 * M_PI) - std::log(2.0), 1e-14);
  }
  EXPECT_THROW(q.log_prob(y.clone()), std::logic_error);
  const Tensor newer = q.sample(random::Key(8));
  EXPECT_NO_THROW(q.log_prob(newer));
  EXPECT_THROW(q.log_prob(y), std::logic_error);  // only the last draw is remembered
}

}  // namespace
}  // namespace variate
