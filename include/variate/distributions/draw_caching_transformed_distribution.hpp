#pragma once
#include <memory>
#include <mutex>

#include "variate/distributions/transformed_distribution.hpp"

namespace variate::dist {

/// A TransformedDistribution that remembers its last draw, as TFP's bijectors cache the pairs
/// (x, y = f(x)) they computed: log_prob at that very tensor (the same storage, not written since)
/// is log p_X(x) - log|det df/dx|(x), from the remembered x, without the inverse. For an inverse
/// autoregressive flow this turns the guide's log q of its own draw from D sequential network
/// passes into one. At any other value log_prob is TransformedDistribution's, through the exact
/// inverse. Both are the same function of the parameters, so their gradients agree too.
///
///   auto q = std::make_shared<dist::DrawCachingTransformedDistribution>(base, iaf);
///   auto guide = [&] { RandomVariable(q, "z"); };   // elbo's log q(z) then needs no inverse
class DrawCachingTransformedDistribution final : public Distribution {
 public:
  DrawCachingTransformedDistribution(DistributionPtr distribution, BijectorPtr bijector);
  const char* name() const override { return "DrawCachingTransformedDistribution"; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return exact_->support(); }

 private:
  explicit DrawCachingTransformedDistribution(std::shared_ptr<const TransformedDistribution> exact);
  // The last draw y = f(x), and the write count of y's storage when it was drawn.
  struct Draw {
    Tensor x, y;
    std::uint64_t writes = 0;
  };
  bool is_last_draw(const Tensor& value, Draw& draw) const;

  std::shared_ptr<const TransformedDistribution> exact_;
  mutable std::mutex mutex_;
  mutable Draw last_;
};

}  // namespace variate::dist
