#include "figures.hpp"

#include <algorithm>

#include "variate/autodiff/ops.hpp"
#include "variate/data/png.hpp"
#include "variate/random/samplers.hpp"

namespace variate::cli::vae {

void write_samples_png(const std::filesystem::path& path, const Vae& vae, random::Key key, std::int64_t image_rows,
                       std::int64_t image_cols, std::int64_t count) {
  const Architecture& a = vae.architecture;
  const Tensor z = random::normal(key, Shape{count, a.latent}, a.dtype);
  const Tensor means = sigmoid(vae.decoder.logits(z));
  data::write_png(path, reshape(means, {count, image_rows, image_cols}), {.columns = 10});
}

void write_reconstructions_png(const std::filesystem::path& path, const Vae& vae, const Tensor& images,
                               std::int64_t image_rows, std::int64_t image_cols, std::int64_t count) {
  count = std::min(count, images.dim(0));
  const Tensor originals = slice(images, 0, 0, count);
  const Tensor reconstructions = sigmoid(vae.decoder.logits(vae.encoder->typical_latent(originals)));
  // (count, 2, pixels): each original followed by its reconstruction.
  const Tensor pairs = stack({originals, reconstructions}, 1);
  data::write_png(path, reshape(pairs, {2 * count, image_rows, image_cols}), {.columns = 20});
}

}  // namespace variate::cli::vae
