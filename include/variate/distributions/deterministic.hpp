#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// Deterministic(loc) (TFP): all mass at `loc`; log p(x) = 0 where x == loc, -inf elsewhere (NaN
/// for a NaN value). batch_shape is loc's shape; draws are loc broadcast to the sample shape (and
/// carry loc's gradient). The log density has no derivative in loc or in the value (it jumps to
/// -inf off loc): a gradient with respect to either throws.
class Deterministic final : public Distribution {
 public:
  explicit Deterministic(Tensor loc);
  /// Without the check that loc is finite: a program's generated quantity may be anything, and is
  /// not checked at every evaluation (variate::Deterministic).
  struct Unchecked {};
  Deterministic(Tensor loc, Unchecked);
  const char* name() const override { return "Deterministic"; }
  const Tensor& loc() const { return loc_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override { return Constraint::real(); }
  Tensor mean() const override;
  Tensor variance() const override;

 private:
  Tensor loc_;
};

}  // namespace variate::dist
