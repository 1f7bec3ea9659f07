#include "variate/data/png.hpp"

#include <png.h>

#include <algorithm>
#include <cmath>
#include <system_error>
#include <vector>

#include "variate/core/error.hpp"
#include "variate/tensor/prim.hpp"

namespace variate::data {

namespace {

constexpr const char* kOp = "write_png";

std::uint8_t gray(double level) { return std::uint8_t(std::lround(std::clamp(level, 0.0, 1.0) * 255.0)); }

}  // namespace

void write_png(const std::filesystem::path& path, const Tensor& images, const PngGrid& grid) {
  VARIATE_CHECK(images.defined() && images.numel() > 0, kOp, "'", path.string(), "': the images are empty");
  VARIATE_CHECK(images.rank() == 2 || images.rank() == 3, kOp, "'", path.string(),
                "': images must be (n, height, width) or (height, width), got shape ", images.shape());
  VARIATE_CHECK(grid.columns >= 1 && grid.padding >= 0 && grid.padding_level >= 0 && grid.padding_level <= 1, kOp, "'",
                path.string(), "': the grid needs columns >= 1, padding >= 0 and a padding level in [0, 1], got ",
                grid.columns, ", ", grid.padding, " and ", grid.padding_level);
  const std::vector<double> v = prim::cast(images, DType::f64).to_vector<double>();
  const std::int64_t n = images.rank() == 3 ? images.dim(0) : 1;
  const std::int64_t h = images.dim(-2), w = images.dim(-1);
  const std::int64_t columns = std::min(grid.columns, n), rows = (n + columns - 1) / columns;
  const std::int64_t width = columns * (w + grid.padding) + grid.padding;
  const std::int64_t height = rows * (h + grid.padding) + grid.padding;
  VARIATE_CHECK(width <= 1'000'000 && height <= 1'000'000, kOp, "'", path.string(), "': a grid of ", width, " x ",
                height, " pixels is larger than PNG readers accept");

  std::vector<std::uint8_t> canvas(std::size_t(width * height), gray(grid.padding_level));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t top = grid.padding + (i / columns) * (h + grid.padding);
    const std::int64_t left = grid.padding + (i % columns) * (w + grid.padding);
    for (std::int64_t r = 0; r < h; ++r) {
      for (std::int64_t c = 0; c < w; ++c) {
        const double level = v[(i * h + r) * w + c];
        VARIATE_CHECK(!std::isnan(level), kOp, "'", path.string(), "': image ", i, " has a NaN pixel at (", r, ", ", c,
                      ")");
        canvas[std::size_t((top + r) * width + left + c)] = gray(level);
      }
    }
  }

  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = png_uint_32(width);
  image.height = png_uint_32(height);
  image.format = PNG_FORMAT_GRAY;
  std::filesystem::path temporary = path;
  temporary += ".tmp";
  if (png_image_write_to_file(&image, temporary.c_str(), 0, canvas.data(), png_int_32(width), nullptr) == 0) {
    const std::string why = image.message;
    png_image_free(&image);
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    detail::fail(kOp, ": cannot write '", path.string(), "': ", why);
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    detail::fail(kOp, ": cannot write '", path.string(), "': ", error.message());
  }
}

}  // namespace variate::data
