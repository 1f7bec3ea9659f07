#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// Restricted(base, support): `base`'s density on a smaller support, the values outside it given
/// log density -inf (Stan's constrained declarations: `ordered[K] c; c ~ normal(0, 5);` is
/// Normal(0, 5) iid restricted to ordered vectors). The site then lives on `support` and inference
/// unconstrains it through that support's default bijector:
///
///   auto c = variate::Restricted(std::make_shared<dist::Sample>(std::make_shared<dist::Normal>(0.0, 5.0),
///                                                               Shape{4}),
///                                Constraint::ordered(), "c");
///
///   log p(x) = log p_base(x) if x lies in `support`, -inf otherwise.
///
/// As in Stan this is the base's density, not renormalized: it differs from the normalized
/// restriction by log P_base(support), a constant when the base's parameters are (for K iid
/// components restricted to ordered it is log K!, whatever the parameters). The density is that
/// of the base on the intersection of the two supports, so `support` should lie within the base's;
/// otherwise the sampler meets -inf where the base has no mass. A support with event axes (ordered,
/// positive_ordered, unit_vector, simplex, Cholesky factors) needs a base whose event spans them
/// (dist::Sample or dist::Independent); its value lies in the restricted support when every such
/// event does. A lower-dimensional support (unit_vector, simplex, Cholesky factors) takes the base's
/// density at its points with respect to its own surface measure, as Stan does: iid Normal(0, 1)
/// restricted to unit_vector is uniform on the sphere.
///
/// Draws are exact or refused: sample returns the base's draws when they always lie in `support`
/// (the same kind, which has no bounds), and the sorted draws of an iid base (dist::Sample of a
/// scalar family) for ordered, or positive_ordered when the family is positive: K iid draws,
/// sorted, have density K! prod p(y_k) on ordered vectors, the restricted density normalized.
/// Anything else throws naming Restricted (sorting draws that are not iid, say Normal(loc_k, 1) with
/// different loc_k, would give the wrong distribution; rejection could take forever). Inference
/// does not need draws: it starts a site without them at a point of its own, as for
/// ImproperUniform (see has_sampler()).
class Restricted final : public Distribution {
 public:
  /// Throws naming Restricted for a discrete `support` or base, or a base whose event has fewer
  /// axes than `support` spans.
  Restricted(DistributionPtr base, Constraint support);
  const char* name() const override { return "Restricted"; }
  const DistributionPtr& distribution() const { return base_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return support_; }
  /// Whether sample draws exactly (see the class comment) rather than throwing.
  bool has_sampler() const { return draws_ != Draws::none; }

 private:
  enum class Draws { none, base, sorted };
  DistributionPtr base_;
  Constraint support_;
  Draws draws_ = Draws::none;
};

}  // namespace variate::dist
