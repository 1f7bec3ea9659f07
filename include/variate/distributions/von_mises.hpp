#pragma once
#include "variate/distributions/distribution.hpp"

namespace variate::dist {

/// VonMises(loc, concentration), the circular normal on [-pi, pi]:
///   log p(x) = concentration cos(x - loc) - log(2 pi) - log I0(concentration),
/// I0 the modified Bessel function of the first kind of order 0. Reference: Stan Functions
/// Reference, "Von Mises distribution"; TFP tfd.VonMises. As in TFP, mean() is the circular mean
/// loc and variance() the circular variance 1 - I1(concentration) / I0(concentration). Draws come
/// from Best & Fisher's rejection sampler (random::von_mises) shifted by loc and wrapped into
/// [-pi, pi): they carry loc's gradient but none in concentration (differentiating one is an error).
class VonMises final : public Distribution {
 public:
  VonMises(Tensor loc, Tensor concentration);
  const char* name() const override { return "VonMises"; }
  const Tensor& loc() const { return loc_; }
  const Tensor& concentration() const { return concentration_; }

  Tensor sample(random::Key key, const Shape& sample_shape = {}) const override;
  Tensor log_prob(const Tensor& value) const override;
  Constraint support() const override;
  Tensor mean() const override;
  Tensor variance() const override;

 private:
  Tensor loc_, concentration_;
};

}  // namespace variate::dist
