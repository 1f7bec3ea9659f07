#include "learning_rate.hpp"

#include <algorithm>
#include <cmath>

#include "variate/core/error.hpp"

namespace variate::cli::vae {

namespace {

// The pass i of the IWAE schedule that epoch `epoch` falls in: pass i starts at epoch (3^i - 1)/2.
int iwae_pass(std::int64_t epoch) {
  constexpr int kLastPass = 7;
  int pass = 0;
  std::int64_t next_start = 1;  // (3^(pass + 1) - 1) / 2
  while (pass < kLastPass && epoch >= next_start) {
    ++pass;
    next_start = 3 * next_start + 1;
  }
  return pass;
}

}  // namespace

nn::Schedule learning_rate_schedule(const TrainJobOptions& o, std::int64_t examples) {
  const double rate = o.learning_rate;
  if (o.lr_schedule == "constant") return rate;
  const std::int64_t steps_per_epoch = (examples + o.batch - 1) / o.batch;
  if (o.lr_schedule == "cosine") return nn::cosine_decay(rate, std::max<std::int64_t>(1, o.epochs * steps_per_epoch));
  VARIATE_CHECK(o.lr_schedule == "iwae", "train", "unknown --lr-schedule '", o.lr_schedule,
                "'; expected constant, cosine or iwae");
  return nn::Schedule(
      [=](std::int64_t step) { return rate * std::pow(10.0, -double(iwae_pass(step / steps_per_epoch)) / 7.0); });
}

std::string describe_schedule(const TrainJobOptions& o) {
  if (o.lr_schedule == "cosine") return " decaying to 0 along a cosine over " + std::to_string(o.epochs) + " epochs";
  if (o.lr_schedule == "iwae") return " divided by 10^(1/7) after 1, 3, 9, ... epochs (the IWAE paper's schedule)";
  return "";
}

}  // namespace variate::cli::vae
