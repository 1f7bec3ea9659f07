#pragma once
// What every family does with its parameters: check them with a message naming the family and the
// parameter's role (Stan's check_positive etc.), promote them to one floating dtype, and broadcast
// shapes. Also the support mask for log_prob.
#include <initializer_list>
#include <string>

#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/distributions/constraint.hpp"
#include "variate/tensor/replay.hpp"

namespace variate::dist {

void check_defined(const char* family, const char* role, const Tensor& x);

/// Throws "<family>: <role> must be <expected>, got <value> at index <i> of shape <s>" for the first
/// element of x for which ok(value) is false. Made with host_check, so a kernel replay checks its
/// own values too (keeping copies of the names, which may not outlive the call).
template <class Ok>
void check_each(const char* family, const char* role, const Tensor& x, const char* expected, Ok ok) {
  check_defined(family, role, x);
  const auto check = [ok](const char* family, const char* role, const Tensor& x, const char* expected) {
    const auto check_values = [&](const auto* v) {
      const std::int64_t n = x.numel();
      // A pass without an exit first, which vectorizes (a parameter tensor can hold millions of
      // elements, checked at every gradient); the first failure is looked for only when there is one.
      int failures = 0;
      for (std::int64_t i = 0; i < n; ++i) failures |= int(!ok(double(v[i])));
      if (failures == 0) return;
      for (std::int64_t i = 0; i < n; ++i)
        if (!ok(double(v[i])))
          variate::detail::fail(family, ": ", role, " must be ", expected, ", got ", double(v[i]), " at index ", i,
                                " of shape ", x.shape());
    };
    // Floating values are read where they are: a replay runs this at every gradient, and a cast's
    // tensor handle cost a small model's gradient more than the scan.
    if (x.dtype() == DType::f64) return check_values(x.data<double>());
    if (x.dtype() == DType::f32) return check_values(x.data<float>());
    const autodiff::NoRecording reads_values;
    const Tensor values = cast(x, DType::f64);
    check_values(values.data<double>());
  };
  if (!recording_kernels()) return check(family, role, x, expected);
  host_check({x}, [check, family = std::string(family), role = std::string(role), x, expected = std::string(expected)] {
    check(family.c_str(), role.c_str(), x, expected.c_str());
  });
}

/// Throws "<family>: <role> must be finite..., got <value> at index <i> (shape <s>)" unless all
/// elements satisfy the check. Works on tracked tensors (reads values only).
void check_finite(const char* family, const char* role, const Tensor& x);
void check_positive(const char* family, const char* role, const Tensor& x);     // > 0, finite
void check_nonnegative(const char* family, const char* role, const Tensor& x);  // >= 0, finite
void check_probability(const char* family, const char* role, const Tensor& x);  // in [0, 1]
void check_not_nan(const char* family, const char* role, const Tensor& x);
/// A fused GLM's log-likelihood `log_lik` is NaN with finite parameters only if its design matrix
/// `x` holds a NaN: checks x (large) only then, naming it.
void check_x_if_nan(const char* family, const Tensor& log_lik, const Tensor& x);
/// `low` < `high` element-wise.
void check_ordered(const char* family, const char* low_role, const Tensor& low, const char* high_role,
                   const Tensor& high);

/// Whether `x` is a scalar constant of the computation equal to `value`: not differentiated, not
/// computed from a kernel replay's input. A family may then leave out arithmetic with it (x - 0,
/// x / 1), as its partials are not needed and its value cannot change.
bool is_constant_scalar(const Tensor& x, double value);

/// The floating dtype shared by the parameters (f64 unless all are f32).
DType common_float_type(std::initializer_list<Tensor> params);
/// Broadcast of the parameters' shapes, naming the family on mismatch.
Shape broadcast_batch(const char* family, std::initializer_list<Tensor> params);
/// Converts `x` to the family's dtype (differentiably).
Tensor as_dtype(const Tensor& x, DType dtype);

/// Boolean mask: which elements of `value` lie in `support` (per element for scalar supports;
/// reduced over the event axes for simplex, ordered, unit_vector, Cholesky and multinomial supports).
Tensor in_support(const Constraint& support, const Tensor& value);
/// log_prob with -inf where the value is outside the support (and the value's NaN stays NaN).
Tensor mask_outside_support(const Constraint& support, const Tensor& value, const Tensor& log_prob);

}  // namespace variate::dist
