#pragma once
// `variate train`: trains a deep generative model on dynamically binarized images with Adam, epoch
// by epoch, writing into the output directory a checkpoint after each epoch (a later run with the
// same options resumes from it, bit for bit), the training curve, PNG figures and the test negative
// log-likelihood. The models: the VAE (`--model vae-mnist|vae-digits`; networks.hpp, programs.hpp)
// on the ELBO or the IWAE bound, its NLL estimated with importance sampling; and the Image
// Transformer (`--model image-transformer|image-transformer-digits`; image_transformer.hpp) on the
// exact log-likelihood.
#include <cstdint>
#include <ostream>
#include <string>

namespace variate::cli::vae {

struct TrainJobOptions {
  std::string model = "vae-mnist";  // or vae-digits, image-transformer, image-transformer-digits
  std::string bound = "elbo";       // or iwae
  int particles = 0;                // 0: 1 for the ELBO, 5 for IWAE
  std::string posterior = "gaussian";
  std::int64_t epochs = 10;  // in all, counting those of a resumed run
  double minutes = 0;        // > 0: no epoch starts after this much training time in this run
  std::int64_t batch = 100;
  double learning_rate = 1e-3;
  std::string lr_schedule = "constant";  // or cosine, iwae: learning_rate.hpp
  std::uint64_t seed = 1;
  std::string data_dir;  // empty: image_data.hpp's default
  std::string output_dir = "vae-output";
  int eval_samples = 5000;           // 0: no test NLL estimate
  std::int64_t eval_images = 10000;  // the first this many test images score the model
  std::string precision = "f64";
  std::int64_t train_images = -1;        // >= 1: the first this many training images only
  int flow_layers = 2;                   // of the IAF posterior
  int devices = 1;                       // thread devices the minibatch is split over (replicas.hpp)
  int flow_devices = 1;                  // > 1: the IAF posterior's flow layers split over thread devices
  std::string placement = "contiguous";  // or round-robin: which device holds which flow layer
  // Randomized autodiff (autodiff/rad.hpp) in the VAE's linear layers while training.
  double rad_fraction = 1.0;      // keep fraction; 1: no sketch
  std::string rad_mode = "with";  // or without, projection
  int rad_bits = 0;               // > 0: what the layers save compressed to this many bits (ActNN)
  // The Image Transformer's size.
  std::int64_t layers = 4;
  std::int64_t embed_dim = 64;
  std::int64_t heads = 2;
  std::int64_t block_length = 0;  // pixels per attention block; 0: two image rows; >= the image's pixels: none
};

/// Whether `model` is one of the Image Transformer's (else the VAE's).
bool is_image_transformer(const std::string& model);

/// Runs the job: results to `out`, progress to `log`; returns the exit code. Throws variate::Error
/// for bad options, missing data, unwritable files and a checkpoint of another run's options.
int run_train_job(const TrainJobOptions& options, std::ostream& out, std::ostream& log);

}  // namespace variate::cli::vae
