#include "variate/nn/schedule.hpp"

#include <cmath>
#include <numbers>
#include <utility>

#include "variate/core/error.hpp"

namespace variate::nn {

Schedule::Schedule(double rate) : Schedule(std::function<double(std::int64_t)>([rate](std::int64_t) { return rate; })) {
  VARIATE_CHECK(std::isfinite(rate) && rate >= 0, "nn::Schedule", "the learning rate must be finite and >= 0, got ",
                rate);
}

Schedule::Schedule(std::function<double(std::int64_t step)> rate) : rate_(std::move(rate)) {
  VARIATE_CHECK(bool(rate_), "nn::Schedule", "the rate function is empty");
}

double Schedule::operator()(std::int64_t step) const {
  VARIATE_CHECK(step >= 0, "nn::Schedule", "the step must be >= 0, got ", step);
  const double rate = rate_(step);
  VARIATE_CHECK(std::isfinite(rate) && rate >= 0, "nn::Schedule", "the learning rate must be finite and >= 0, got ",
                rate, " at step ", step);
  return rate;
}

Schedule step_decay(double initial, std::int64_t every, double factor) {
  VARIATE_CHECK(every > 0, "nn::step_decay", "`every` must be > 0, got ", every);
  VARIATE_CHECK(factor >= 0, "nn::step_decay", "the factor must be >= 0, got ", factor);
  return Schedule([=](std::int64_t step) { return initial * std::pow(factor, double(step / every)); });
}

Schedule exponential_decay(double initial, double gamma) {
  VARIATE_CHECK(gamma >= 0, "nn::exponential_decay", "gamma must be >= 0, got ", gamma);
  return Schedule([=](std::int64_t step) { return initial * std::pow(gamma, double(step)); });
}

Schedule cosine_decay(double initial, std::int64_t steps, double final) {
  VARIATE_CHECK(steps > 0, "nn::cosine_decay", "the number of steps must be > 0, got ", steps);
  return Schedule([=](std::int64_t step) {
    if (step >= steps) return final;
    return final + (initial - final) * 0.5 * (1 + std::cos(std::numbers::pi * double(step) / double(steps)));
  });
}

Schedule linear_warmup(std::int64_t steps, Schedule after) {
  VARIATE_CHECK(steps > 0, "nn::linear_warmup", "the number of warm-up steps must be > 0, got ", steps);
  return Schedule([=](std::int64_t step) {
    if (step < steps) return after(0) * double(step + 1) / double(steps);
    return after(step - steps);
  });
}

}  // namespace variate::nn
