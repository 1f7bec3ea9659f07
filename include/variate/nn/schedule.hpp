#pragma once
// Learning-rate schedules: the rate for each step as a function of the number of steps taken
// before it (0 for the first). A schedule keeps no state of its own, so an optimizer restored from
// a checkpoint (which holds the step count) continues with the same rates. Schedules compose:
//
//   nn::Schedule lr = nn::linear_warmup(100, nn::cosine_decay(1e-3, 10'000));
//   nn::Adam adam(params, lr);
#include <cstdint>
#include <functional>

namespace variate::nn {

/// A learning rate as a function of the number of steps taken.
class Schedule {
 public:
  /// A constant rate, so that a number can be passed where a schedule is expected.
  Schedule(double rate);  // NOLINT(google-explicit-constructor): Adam(params, 1e-3) reads as intended
  explicit Schedule(std::function<double(std::int64_t step)> rate);
  /// The rate for the step after `step` steps; throws if it is negative or not finite.
  double operator()(std::int64_t step) const;

 private:
  std::function<double(std::int64_t)> rate_;
};

/// initial * factor^floor(step / every), as PyTorch's StepLR.
Schedule step_decay(double initial, std::int64_t every, double factor);
/// initial * gamma^step, as PyTorch's ExponentialLR.
Schedule exponential_decay(double initial, double gamma);
/// From `initial` down to `final` along half a cosine over `steps` steps, then `final`
/// (Loshchilov & Hutter 2017, SGDR, without restarts).
Schedule cosine_decay(double initial, std::int64_t steps, double final = 0);
/// after(0) * (step + 1) / steps for the first `steps` steps, then after(step - steps): the
/// schedule `after` starts once the warm-up ends.
Schedule linear_warmup(std::int64_t steps, Schedule after);

}  // namespace variate::nn
