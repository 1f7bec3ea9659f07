#include "variate/inference/adaptation.hpp"

#include <algorithm>
#include <cmath>

#include "variate/core/error.hpp"

namespace variate::inference {

void DualAveraging::restart(double initial_step_size) {
  mu_ = std::log(10.0 * initial_step_size);
  s_bar_ = x_bar_ = 0;
  count_ = 0;
}

double DualAveraging::update(double accept_stat) {
  ++count_;
  const double n = double(count_);
  const double a = std::isnan(accept_stat) ? 0.0 : std::min(1.0, accept_stat);
  const double eta = 1.0 / (n + options_.t0);
  s_bar_ = (1.0 - eta) * s_bar_ + eta * (options_.target_accept - a);
  const double x = mu_ - s_bar_ * std::sqrt(n) / options_.gamma;
  const double weight = std::pow(n, -options_.kappa);
  x_bar_ = (1.0 - weight) * x_bar_ + weight * x;
  return std::exp(x);
}

double DualAveraging::final_step_size() const { return std::exp(x_bar_); }

void DualAveraging::restore(const DualAveragingState& state) {
  VARIATE_CHECK(state.count >= 0, "DualAveraging::restore", "expected a non-negative update count, got ", state.count);
  mu_ = state.mu;
  s_bar_ = state.s_bar;
  x_bar_ = state.x_bar;
  count_ = state.count;
}

WarmupSchedule::WarmupSchedule(std::int64_t num_warmup, WarmupOptions o) : num_warmup_(num_warmup), windows_(o) {
  // A window needs two draws for a variance.
  VARIATE_CHECK(num_warmup >= 0 && o.init_buffer >= 0 && o.term_buffer >= 0 && o.base_window >= 2, "WarmupSchedule",
                "expected non-negative warm-up lengths and a base window >= 2, got num_warmup=", num_warmup,
                ", init_buffer=", o.init_buffer, ", term_buffer=", o.term_buffer, ", base_window=", o.base_window);
  if (num_warmup < 20) {
    adapt_metric_ = false;
    return;
  }
  // The intended 15/75/10 split; Stan's own code skips its restart here and never adapts the
  // metric (stan-dev/stan#3380).
  if (o.init_buffer + o.base_window + o.term_buffer > num_warmup) {
    windows_.init_buffer = std::int64_t(0.15 * double(num_warmup));
    windows_.term_buffer = std::int64_t(0.1 * double(num_warmup));
    windows_.base_window = num_warmup - (windows_.init_buffer + windows_.term_buffer);
  }
  // Windows double; the last one stretches to the final buffer when the next would not fit twice.
  const std::int64_t last = num_warmup - windows_.term_buffer - 1;
  std::int64_t size = windows_.base_window;
  std::int64_t end = windows_.init_buffer + size - 1;
  while (true) {
    window_ends_.push_back(end);
    if (end >= last) break;
    size *= 2;
    std::int64_t next = end + size;
    if (next != last && next + 2 * size >= num_warmup - windows_.term_buffer) next = last;
    end = next;
  }
}

bool WarmupSchedule::in_slow_window(std::int64_t i) const {
  return adapt_metric_ && i >= windows_.init_buffer && i < num_warmup_ - windows_.term_buffer;
}

bool WarmupSchedule::ends_slow_window(std::int64_t i) const {
  return adapt_metric_ && std::find(window_ends_.begin(), window_ends_.end(), i) != window_ends_.end();
}

}  // namespace variate::inference
