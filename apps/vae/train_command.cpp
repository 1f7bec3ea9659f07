// `variate train`: a VAE or an Image Transformer on dynamically binarized images.
#include <iostream>
#include <memory>

#include "../cli_options.hpp"
#include "../commands.hpp"
#include "image_data.hpp"
#include "train_job.hpp"

namespace variate::cli {

Command add_train_command(CLI::App& app) {
  auto o = std::make_shared<vae::TrainJobOptions>();
  CLI::App* cmd = app.add_subcommand(
      "train",
      "train a deep generative model on dynamically binarized images: a VAE (the IWAE paper's architecture) or an "
      "Image Transformer (an autoregressive decoder-only Transformer over the pixels in raster order)");
  cmd->add_option("--model", o->model,
                  "vae-mnist: the VAE on MNIST from --data-dir; vae-digits: on the embedded 8 x 8 digits (quick runs, "
                  "tests); image-transformer, image-transformer-digits: the Image Transformer on the same")
      ->check(CLI::IsMember({"vae-mnist", "vae-digits", "image-transformer", "image-transformer-digits"}))
      ->capture_default_str();
  cmd->add_option("--bound", o->bound, "VAE: elbo or iwae, the bound maximized")
      ->check(CLI::IsMember({"elbo", "iwae"}))
      ->capture_default_str();
  cmd->add_option("--particles", o->particles,
                  "particles per image: K of the IWAE bound, or averaged in the ELBO (default: 1 for elbo, 5 for "
                  "iwae)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--posterior", o->posterior,
                  "the family of q(z | x): gaussian (diagonal) or iaf (the Gaussian through --flow-layers inverse "
                  "autoregressive flows)")
      ->check(CLI::IsMember({"gaussian", "iaf"}))
      ->capture_default_str();
  cmd->add_option("--epochs", o->epochs, "epochs in all (a resumed run continues up to this many)")
      ->check(CLI::Range(std::int64_t(0), std::int64_t(1) << 40))
      ->capture_default_str();
  cmd->add_option("--minutes", o->minutes, "time budget: no epoch starts after this many minutes of training (0: none)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--batch", o->batch, "images per minibatch")
      ->check(CLI::Range(std::int64_t(1), std::int64_t(1) << 30))
      ->capture_default_str();
  cmd->add_option("--learning-rate", o->learning_rate, "Adam's learning rate")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--lr-schedule", o->lr_schedule,
                  "constant; cosine: from --learning-rate down to 0 over --epochs; iwae: the IWAE paper's, 3^i epochs "
                  "at --learning-rate * 10^(-i/7) for i = 0..7")
      ->check(CLI::IsMember({"constant", "cosine", "iwae"}))
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "random seed: initialization, minibatches, binarization, particles")
      ->check(kSeed)
      ->capture_default_str();
  cmd->add_option("--data-dir", o->data_dir,
                  std::string("vae-mnist, image-transformer: the directory of MNIST's IDX files (default ") +
                      vae::kDefaultMnistDir + ")");
  cmd->add_option("--output-dir", o->output_dir,
                  "checkpoint (resumed from when present), run.json, curve.csv, samples.png, reconstructions.png (the "
                  "VAE), test_nll.json, test_nll_images.csv (the VAE's estimate per test image)")
      ->capture_default_str();
  cmd->add_option("--eval-samples", o->eval_samples,
                  "VAE: importance samples per test image for the test NLL after training (0: skip it; the Image "
                  "Transformer's NLL is exact)")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  cmd->add_option("--eval-images", o->eval_images, "test images scored (the first this many)")
      ->check(CLI::Range(std::int64_t(1), std::int64_t(1) << 40))
      ->capture_default_str();
  cmd->add_option("--precision", o->precision, "f64 or f32: the networks' dtype")
      ->check(CLI::IsMember({"f64", "f32"}))
      ->capture_default_str();
  cmd->add_option("--train-images", o->train_images, "train on the first this many training images only")
      ->check(CLI::Range(std::int64_t(1), std::int64_t(1) << 40));
  cmd->add_option("--devices", o->devices,
                  "thread devices to train on, data-parallel: each takes its slice of every minibatch (--batch a "
                  "multiple of it) and the gradients are summed in one all-reduce per step; a checkpoint resumes on "
                  "any count")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_option("--flow-layers", o->flow_layers, "inverse autoregressive flow layers of --posterior iaf")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--flow-devices", o->flow_devices,
                  "model parallel: the flow layers of --posterior iaf split over this many thread devices, "
                  "activations and gradients passed between them (encoder and decoder on device 0; at most "
                  "--flow-layers)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--rad-fraction", o->rad_fraction,
                  "VAE: randomized autodiff, each linear layer keeping this fraction of its input for the weight "
                  "gradient (an unbiased sketch; 1: exact)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--rad-mode", o->rad_mode,
                  "VAE: how --rad-fraction chooses: with or without replacement, or projection")
      ->check(CLI::IsMember({"with", "without", "projection"}))
      ->capture_default_str();
  cmd->add_option("--rad-bits", o->rad_bits,
                  "VAE: store what the linear layers keep for the weight gradient as codes of this many bits, "
                  "rounded stochastically (ActNN; 0: full precision)")
      ->check(CLI::IsMember({0, 1, 2, 4, 8}))
      ->capture_default_str();
  cmd->add_option("--layers", o->layers, "Image Transformer: Transformer blocks")
      ->check(CLI::Range(std::int64_t(1), std::int64_t(1000)))
      ->capture_default_str();
  cmd->add_option("--embed-dim", o->embed_dim, "Image Transformer: the width of every position's embedding")
      ->check(CLI::Range(std::int64_t(1), std::int64_t(1) << 20))
      ->capture_default_str();
  cmd->add_option("--heads", o->heads, "Image Transformer: attention heads (--embed-dim a multiple of it)")
      ->check(CLI::Range(std::int64_t(1), std::int64_t(1) << 20))
      ->capture_default_str();
  cmd->add_option("--block-length", o->block_length,
                  "Image Transformer: local attention in blocks of this many pixels, each attending to its own "
                  "block and the one before (a divisor of the pixel count, or at least it: causal attention over "
                  "the whole image; 0: two image rows)")
      ->check(CLI::Range(std::int64_t(0), std::int64_t(1) << 30))
      ->capture_default_str();
  cmd->add_option("--placement", o->placement,
                  "with --flow-devices: contiguous (blocks of consecutive flow layers) or round-robin (layer k on "
                  "device k mod devices)")
      ->check(CLI::IsMember({"contiguous", "round-robin"}))
      ->capture_default_str();
  return {cmd, [o] { return vae::run_train_job(*o, std::cout, std::cerr); }};
}

}  // namespace variate::cli
