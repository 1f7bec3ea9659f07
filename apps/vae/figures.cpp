#include "figures.hpp"

#include <algorithm>

#include "variate/autodiff/ops.hpp"
#include "variate/data/png.hpp"
#include "variate/random/samplers.hpp"

namespace variate::cli::vae {

void write_image_grid(const std::filesystem::path& path, const Tensor& images, std::int64_t image_rows,
                      std::int64_t image_cols, std::int64_t columns) {
  data::write_png(path, reshape(images, {images.dim(0), image_rows, image_cols}), {.columns = columns});
}

void write_samples_png(const std::filesystem::path& path, const Vae& vae, random::Key key, std::int64_t image_rows,
                       std::int64_t image_cols, std::int64_t count) {
  const Architecture& a = vae.architecture;
  const Tensor z = random::normal(key, Shape{count, a.latent}, a.dtype);
  const Tensor means = sigmoid(vae.decoder.logits(z));
  write_image_grid(path, means, image_rows, image_cols, 10);
}

void write_reconstructions_png(const std::filesystem::path& path, const Vae& vae, const Tensor& images,
                               std::int64_t image_rows, std::int64_t image_cols, std::int64_t count) {
  count = std::min(count, images.dim(0));
  const Tensor originals = slice(images, 0, 0, count);
  const Tensor reconstructions = sigmoid(vae.decoder.logits(vae.encoder->typical_latent(originals)));
  // (count, 2, pixels): each original followed by its reconstruction.
  const Tensor pairs = stack({originals, reconstructions}, 1);
  write_image_grid(path, reshape(pairs, {2 * count, image_rows * image_cols}), image_rows, image_cols, 20);
}

}  // namespace variate::cli::vae
