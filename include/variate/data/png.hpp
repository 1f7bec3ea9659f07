#pragma once
// Writing grayscale images as PNG files (through libpng), for figures: a model's samples, its
// reconstructions, filters.
#include <cstdint>
#include <filesystem>

#include "variate/tensor/tensor.hpp"

namespace variate::data {

/// The layout of a grid of images written as one PNG.
struct PngGrid {
  /// Images per row of the grid; the last row may be shorter (its missing cells are padding).
  std::int64_t columns = 10;
  /// Pixels of padding between neighbouring images and around the grid.
  std::int64_t padding = 1;
  /// The padding's gray level in [0, 1] (mid-gray: the cells stand out on black or white images).
  double padding_level = 0.5;
};

/// Writes `images` (n, height, width), or one image (height, width), as one 8-bit grayscale PNG:
/// a grid of the images, left to right and top to bottom. Pixel values are gray levels in [0, 1]
/// (0 black, 1 white), rounded to 0..255; values outside are clamped. Any dtype that converts to
/// f64. The file is written to "<path>.tmp" and renamed, so a reader never sees half an image.
/// Throws variate::Error naming the file when it cannot be written, and naming the argument for
/// an empty tensor, a rank other than 2 or 3, a NaN pixel or a grid option out of range.
void write_png(const std::filesystem::path& path, const Tensor& images, const PngGrid& grid = {});

}  // namespace variate::data
