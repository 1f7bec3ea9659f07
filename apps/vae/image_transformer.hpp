#pragma once
// The Image Transformer of `variate train --model image-transformer` (Parmar et al. 2018, on
// dynamically binarized images; issue 24): a random variable per image whose log-prob is the sum
// of its pixels' Bernoulli conditionals in raster order, the logits from a decoder-only Transformer
// (nn::AutoregressiveTransformer, dist::AutoregressiveBernoulli). It is trained on the exact
// log-likelihood, data parallel over --devices like the VAE (replicas.hpp); every draw is keyed by
// the step and the whole minibatch, so a run on K devices is the one-device run to rounding.
#include <memory>

#include "train_job.hpp"
#include "trainer.hpp"
#include "variate/nn/autoregressive_transformer.hpp"
#include "variate/tracing/program.hpp"

namespace variate::cli::vae {

/// The model for the minibatch x (batch, pixels) of 0/1 pixels: x ~ AutoregressiveBernoulli(network),
/// one site "x" of shape (batch, pixels), observed.
tracing::Program image_model_program(const nn::AutoregressiveTransformer& network, const Tensor& x);

/// log p(x) of each image of x (batch, pixels): the program's log joint per image, (batch).
Tensor image_log_likelihoods(const nn::AutoregressiveTransformer& network, const Tensor& x);

/// The network of --layers, --embed-dim, --heads and --block-length (0: two image rows) for images
/// of `pixels` pixels in rows of `image_cols`.
nn::AutoregressiveTransformer::Options image_transformer_options(const TrainJobOptions& options, std::int64_t pixels,
                                                                 std::int64_t image_cols, DType dtype);

/// The Image Transformer for the gray-level training `images` (n, pixels) in rows of `image_cols`,
/// from the run's `key`.
std::unique_ptr<Trainer> make_image_transformer_trainer(const TrainJobOptions& options, const Tensor& images,
                                                        std::int64_t image_cols, random::Key key);

}  // namespace variate::cli::vae
