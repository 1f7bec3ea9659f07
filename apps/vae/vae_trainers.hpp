#pragma once
// The VAE's Trainers for `variate train --model vae-*`: data parallel over --devices (replicas.hpp)
// or with its IAF posterior's flow layers over --flow-devices (vae_training.hpp). On one device both
// are the one-device run.
#include <memory>

#include "programs.hpp"
#include "train_job.hpp"
#include "trainer.hpp"

namespace variate::cli::vae {

/// The VAE for the gray-level training `images` (n, pixels), trained on `bound` from the run's `key`.
std::unique_ptr<Trainer> make_vae_trainer(const TrainJobOptions& options, const Bound& bound, const Tensor& images,
                                          random::Key key);

}  // namespace variate::cli::vae
