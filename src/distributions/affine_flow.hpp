#pragma once
// What the affine flows share (private to src/distributions): every one maps v = u exp(s) + m with
// a shift m and a log-scale s computed by a network, so log|det| = sum s over the event axis.
#include <cstdint>
#include <string>

#include "variate/autodiff/ops.hpp"
#include "variate/distributions/autoregressive_flow_options.hpp"
#include "variate/nn/made.hpp"

namespace variate::dist::detail {

/// bound * tanh(raw / bound), or raw when bound is infinite (see AutoregressiveFlowOptions).
Tensor bounded_log_scale(const Tensor& raw, double bound);

/// Throws naming `flow` (its description) and `method` unless v has a last axis of `dims`.
void check_flow_event(const std::string& flow, const char* method, const Tensor& v, std::int64_t dims);

struct ShiftAndLogScale {
  Tensor shift, log_scale;
};
/// The MADE of a MAF or IAF (`flow`, for errors): two outputs per coordinate, in options.order,
/// with a context of `context` inputs (0 for none; see nn::Made).
nn::Made autoregressive_made(const char* flow, std::int64_t dims, random::Key key,
                             const AutoregressiveFlowOptions& options, std::int64_t context = 0);

/// The MADE's two outputs per coordinate of c (..., D): shift first, then the bounded log-scale;
/// coordinate d of each depends only on the coordinates of c earlier in the MADE's order.
ShiftAndLogScale made_shift_and_log_scale(const nn::Made& made, const Tensor& c, double bound);

/// The sum over the event (last) axis: one log determinant per event.
Tensor sum_event(const Tensor& log_scale);

/// "[32, 32]".
std::string widths_str(const std::vector<std::int64_t>& widths);

}  // namespace variate::dist::detail
