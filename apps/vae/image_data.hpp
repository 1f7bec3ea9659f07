#pragma once
// The gray-level images the image models train on: MNIST from its IDX files, or the embedded 8 x 8 digits
// (small enough for tests and quick runs). Training binarizes them afresh at every step
// (programs.hpp, binarize); the test images are binarized once, with a key of their own, so that
// every run is scored on the same 0/1 images.
#include <cstdint>
#include <string>

#include "variate/tensor/tensor.hpp"

namespace variate::cli::vae {

struct ImageData {
  std::string description;  // for the log: where the images came from, and how many
  Tensor train;             // (n, rows * cols), gray levels in [0, 1]
  Tensor test_binary;       // (m, rows * cols), 0/1
  std::int64_t rows = 0, cols = 0;
};

/// The default --data-dir of vae-mnist and image-transformer, relative to the working directory (the repository root).
inline const char* const kDefaultMnistDir = "../shared/data/mnist";

/// "vae-mnist" or "image-transformer" (LeCun's 60000 / 10000 split, from `data_dir`, or
/// kDefaultMnistDir when empty) or "vae-digits" or "image-transformer-digits" (the embedded 1797 digits: the first 1500
/// train, the rest test; pixels 0..16 scaled to [0, 1]). `train_images` >= 0 keeps only that many training images
/// (quick runs). A missing MNIST directory is an error naming it and the files it should hold.
ImageData load_image_data(const std::string& model, const std::string& data_dir, DType dtype,
                          std::int64_t train_images);

}  // namespace variate::cli::vae
