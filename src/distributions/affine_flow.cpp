#include "distributions/affine_flow.hpp"

#include <algorithm>
#include <cmath>

namespace variate::dist::detail {

Tensor bounded_log_scale(const Tensor& raw, double bound) {
  if (std::isinf(bound)) return raw;
  return tanh(raw * (1.0 / bound)) * bound;
}

void check_flow_event(const std::string& flow, const char* method, const Tensor& v, std::int64_t dims) {
  VARIATE_CHECK(v.defined() && v.rank() >= 1 && v.dim(-1) == dims, flow + "." + method, "expects events of size ", dims,
                " along the last axis, got shape ", v.defined() ? v.shape().str() : std::string("undefined"));
}

nn::Made autoregressive_made(const char* flow, std::int64_t dims, random::Key key,
                             const AutoregressiveFlowOptions& options, std::int64_t context) {
  VARIATE_CHECK(dims >= 1, flow, "the event size must be >= 1, got ", dims);
  VARIATE_CHECK(options.order.empty() || std::int64_t(options.order.size()) == dims, flow,
                "the order must have one degree per coordinate (", dims, "), got ", options.order.size());
  if (!options.order.empty()) {
    nn::Degrees sorted = options.order;
    std::sort(sorted.begin(), sorted.end());
    VARIATE_CHECK(sorted == nn::made_input_degrees(dims), flow, "the order must be a permutation of 1..", dims);
  }
  VARIATE_CHECK(options.log_scale_bound > 0, flow, "log_scale_bound must be > 0, got ", options.log_scale_bound);
  return nn::Made(
      options.order.empty() ? nn::made_input_degrees(dims) : options.order, options.hidden, key,
      {.outputs_per_input = 2, .activation = options.activation, .dtype = options.dtype, .context = context});
}

ShiftAndLogScale made_shift_and_log_scale(const nn::Made& made, const Tensor& c, double bound) {
  const Tensor out = made(c);  // (..., 2 D): unit p * D + d is parameter p of coordinate d
  const std::int64_t d = c.dim(-1);
  return {slice(out, -1, 0, d), bounded_log_scale(slice(out, -1, d, 2 * d), bound)};
}

Tensor sum_event(const Tensor& log_scale) {
  const int last[] = {-1};
  return sum(log_scale, last);
}

std::string widths_str(const std::vector<std::int64_t>& widths) {
  std::string out = "[";
  for (std::size_t i = 0; i < widths.size(); ++i) out += (i ? ", " : "") + std::to_string(widths[i]);
  return out + "]";
}

}  // namespace variate::dist::detail
