#pragma once
// Samplers as pure functions of a key (layer 3). Element i of a result is computed from its own
// counter-based stream (key, i), so the same key gives the same numbers for any thread count, and a
// prefix of a larger sample equals the smaller sample drawn with the same key.
//
// Parameters are tensors of any real dtype that broadcast to `shape` (event-shaped parameters:
// their batch dims, all but the last, broadcast to `shape`). Results have the floating dtype of the
// parameters (counts too, as in TFP), except categorical, which returns i64 indices. Invalid
// parameters throw variate::Error naming the sampler, the parameter and the offending value.
// Continuous draws are clamped into the open support at the dtype's resolution (a gamma draw below
// the smallest normal number becomes that number) so that log densities of samples stay finite.
#include "variate/random/key.hpp"
#include "variate/tensor/tensor.hpp"

namespace variate::random {

/// Uniform on [0, 1); `dtype` must be f32 or f64.
Tensor uniform(Key key, const Shape& shape, DType dtype = DType::f64);
/// Standard normal.
Tensor normal(Key key, const Shape& shape, DType dtype = DType::f64);
/// Standard exponential (rate 1).
Tensor exponential(Key key, const Shape& shape, DType dtype = DType::f64);

/// Gamma(concentration, rate 1), for any concentration > 0: Marsaglia & Tsang (2000), with their
/// G(a) = G(a + 1) U^(1/a) boost for concentration < 1, evaluated in logs.
Tensor gamma(Key key, const Tensor& concentration, const Shape& shape);
/// Beta(concentration1, concentration0) as X / (X + Y) of gamma draws, formed in logs so that small
/// concentrations do not underflow; equals dirichlet(key, [concentration1, concentration0])[..., 0]
/// up to rounding. With `log_gammas`, also stores there log X and log Y (f64, shape + [2]), which
/// the draw's implicit reparameterization gradient needs (distributions/draw_gradients.hpp).
Tensor beta(Key key, const Tensor& concentration1, const Tensor& concentration0, const Shape& shape,
            Tensor* log_gammas = nullptr);
/// Dirichlet(concentration) with concentration of shape (..., K); returns shape + [K]. Normalized
/// gamma draws, normalized in logs (stable for concentrations far below 1). With `log_gammas`, also
/// stores there the logs of the K gamma draws (f64, shape + [K]).
Tensor dirichlet(Key key, const Tensor& concentration, const Shape& shape, Tensor* log_gammas = nullptr);

/// Von Mises draws centred at 0, in [-pi, pi], for concentration > 0: Best & Fisher (1979)'s
/// rejection from a wrapped Cauchy envelope (uniform on the circle below concentration 1e-8).
Tensor von_mises(Key key, const Tensor& concentration, const Shape& shape);
/// Poisson(rate), rate >= 0: multiplication method below rate 10, PTRS (Hörmann 1993) above.
Tensor poisson(Key key, const Tensor& rate, const Shape& shape);
/// Binomial(total_count, probs), total_count a non-negative integer, probs in [0, 1]: inversion
/// when total_count * min(p, 1 - p) < 10, BTRS (Hörmann 1993) otherwise.
Tensor binomial(Key key, const Tensor& total_count, const Tensor& probs, const Shape& shape);
/// Bernoulli(probs): 1 with probability probs, else 0.
Tensor bernoulli(Key key, const Tensor& probs, const Shape& shape);
/// Categorical over the last axis of `logits` (..., K); returns i64 indices of `shape`. Logits may
/// be -inf (category never drawn) but not NaN or +inf.
Tensor categorical(Key key, const Tensor& logits, const Shape& shape);
/// Multinomial(total_count, probs) with probs of shape (..., K) summing to 1 along the last axis;
/// returns counts of shape + [K], drawn as K - 1 conditional binomials.
Tensor multinomial(Key key, const Tensor& total_count, const Tensor& probs, const Shape& shape);

}  // namespace variate::random
