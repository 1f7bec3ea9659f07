#pragma once
// What a trained image model draws, as PNG grids (data::write_png): samples from the model, and
// (the VAE) test images next to their reconstructions.
#include <filesystem>

#include "networks.hpp"

namespace variate::cli::vae {

/// `images` (n, image_rows * image_cols), values in [0, 1], as a grid of `columns` images per row.
void write_image_grid(const std::filesystem::path& path, const Tensor& images, std::int64_t image_rows,
                      std::int64_t image_cols, std::int64_t columns);

/// rows x cols images: the decoder's means sigmoid(logits(z)) (the pixels' probabilities of being
/// on) for z drawn from the prior N(0, I) with `key`.
void write_samples_png(const std::filesystem::path& path, const Vae& vae, random::Key key, std::int64_t image_rows,
                       std::int64_t image_cols, std::int64_t count = 100);

/// The first `count` of `images` (0/1, (n, pixels)) each followed by its reconstruction, the
/// decoder's mean at the posterior's typical z: ten pairs per row of the grid.
void write_reconstructions_png(const std::filesystem::path& path, const Vae& vae, const Tensor& images,
                               std::int64_t image_rows, std::int64_t image_cols, std::int64_t count = 50);

}  // namespace variate::cli::vae
