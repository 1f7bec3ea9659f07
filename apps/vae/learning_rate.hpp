#pragma once
// The learning-rate schedule of `variate train` (--learning-rate, --lr-schedule).
#include <cstdint>
#include <string>

#include "train_job.hpp"
#include "variate/nn/schedule.hpp"

namespace variate::cli::vae {

/// The schedule `options` name for a run over `examples` training images: constant; cosine, from
/// --learning-rate down to 0 over --epochs; or iwae, the IWAE paper's (Burda, Grosse &
/// Salakhutdinov 2016, section 5): for i = 0..7, 3^i epochs at --learning-rate * 10^(-i/7), then the
/// last rate. The rate depends only on the step, so a resumed run continues the schedule.
nn::Schedule learning_rate_schedule(const TrainJobOptions& options, std::int64_t examples);

/// How the run's description names the schedule after the rate: "" when constant.
std::string describe_schedule(const TrainJobOptions& options);

}  // namespace variate::cli::vae
