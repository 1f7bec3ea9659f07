#include "variate/distributions/autoregressive_bernoulli.hpp"

#include <vector>

#include "variate/autodiff/no_recording.hpp"
#include "variate/distributions/bernoulli.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {

AutoregressiveBernoulli::AutoregressiveBernoulli(const nn::AutoregressiveTransformer& network)
    : Distribution({}, Shape{network.length()}, network.dtype()), network_(network) {}

Tensor AutoregressiveBernoulli::sample(random::Key key, const Shape& sample_shape) const {
  const autodiff::NoRecording values_only;
  const std::int64_t n = sample_shape.numel(), t = network_.length();
  const Tensor uniforms = random::uniform(key, Shape{t, n}, dtype());
  nn::AutoregressiveTransformer::Decoder decoder(network_, n);
  std::vector<Tensor> positions;
  Tensor previous;
  for (std::int64_t i = 0; i < t; ++i) {
    previous = cast(lt(index(uniforms, {i}), sigmoid(decoder.next(previous))), dtype());
    positions.push_back(previous);
  }
  return reshape(stack(positions, 1), sample_full_shape(sample_shape));
}

Tensor AutoregressiveBernoulli::position_log_probs(const Tensor& value) const {
  const std::int64_t t = network_.length();
  VARIATE_CHECK(value.defined() && value.rank() >= 1 && value.dim(-1) == t && value.dtype() == dtype(), name(),
                "values must be (..., ", t, ") of dtype ", dtype(), ", got ",
                value.defined() ? value.shape().str() : std::string("an undefined tensor"));
  const Tensor x = reshape(value, {value.numel() / t, t});
  return reshape(Bernoulli::from_logits(network_.logits(x)).log_prob(x), value.shape());
}

Tensor AutoregressiveBernoulli::log_prob(const Tensor& value) const {
  constexpr int last[] = {-1};
  return sum(position_log_probs(value), last);
}

}  // namespace variate::dist
