// data::write_png: the file is read back with libpng and every pixel of the grid is checked, and
// the errors name the file or the argument at fault.
#include "variate/data/png.hpp"

#include <gtest/gtest.h>
#include <png.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <vector>

#include "support/expect_error.hpp"
#include "support/scratch_dir.hpp"

namespace variate::data {
namespace {

struct GrayImage {
  std::int64_t width = 0, height = 0;
  std::vector<std::uint8_t> pixels;  // row-major
  std::uint8_t at(std::int64_t row, std::int64_t col) const { return pixels[std::size_t(row * width + col)]; }
};

GrayImage read_gray_png(const std::string& path) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  EXPECT_NE(png_image_begin_read_from_file(&image, path.c_str()), 0) << image.message;
  EXPECT_EQ(image.format, png_uint_32(PNG_FORMAT_GRAY)) << "written as 8-bit gray";
  image.format = PNG_FORMAT_GRAY;
  GrayImage out;
  out.width = image.width;
  out.height = image.height;
  out.pixels.resize(PNG_IMAGE_SIZE(image));
  EXPECT_NE(png_image_finish_read(&image, nullptr, out.pixels.data(), 0, nullptr), 0) << image.message;
  return out;
}

TEST(WritePng, AGridOfImagesReadsBackPixelForPixel) {
  const testing::ScratchDir dir("png_grid");
  // Three 2 x 3 images; image i has pixel (r, c) = (i * 6 + r * 3 + c) / 17, and one value outside
  // [0, 1] on each side to check the clamping.
  std::vector<double> values(18);
  for (std::size_t k = 0; k < values.size(); ++k) values[k] = double(k) / 17.0;
  values[4] = -0.3;
  values[5] = 1.7;
  const Tensor images = Tensor::from(values, Shape{3, 2, 3});
  const std::string path = dir / "grid.png";
  write_png(path, images, {.columns = 2, .padding = 1, .padding_level = 0.5});

  const GrayImage got = read_gray_png(path);
  // Two columns: width 2 * (3 + 1) + 1, two rows: height 2 * (2 + 1) + 1.
  ASSERT_EQ(got.width, 9);
  ASSERT_EQ(got.height, 7);
  for (std::int64_t i = 0; i < 3; ++i) {
    const std::int64_t top = 1 + (i / 2) * 3, left = 1 + (i % 2) * 4;
    for (std::int64_t r = 0; r < 2; ++r) {
      for (std::int64_t c = 0; c < 3; ++c) {
        const double v = std::clamp(values[std::size_t(i * 6 + r * 3 + c)], 0.0, 1.0);
        EXPECT_EQ(int(got.at(top + r, left + c)), int(std::lround(v * 255)))
            << "image " << i << " (" << r << ", " << c << ")";
      }
    }
  }
  // The padding between and around the cells, and the empty fourth cell, are mid-gray.
  for (std::int64_t c = 0; c < got.width; ++c) EXPECT_EQ(got.at(0, c), 128) << "top border, column " << c;
  for (std::int64_t r = 0; r < got.height; ++r) EXPECT_EQ(got.at(r, 4), 128) << "between the columns, row " << r;
  EXPECT_EQ(got.at(4, 5), 128) << "the missing fourth image";
  EXPECT_EQ(got.at(1, 2), 15) << "image 0, pixel (0, 1): 1/17 of white";
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

TEST(WritePng, OneImageOfAnyFloatDtype) {
  const testing::ScratchDir dir("png_single");
  const Tensor image = Tensor::from(std::vector<float>{0.f, 1.f, 0.5f, 0.25f}, Shape{2, 2});
  const std::string path = dir / "one.png";
  write_png(path, image, {.columns = 10, .padding = 0});
  const GrayImage got = read_gray_png(path);
  ASSERT_EQ(got.width, 2);
  ASSERT_EQ(got.height, 2);
  EXPECT_EQ(got.pixels, (std::vector<std::uint8_t>{0, 255, 128, 64}));
}

TEST(WritePng, ErrorsNameTheFileOrTheArgument) {
  const testing::ScratchDir dir("png_errors");
  const Tensor image = Tensor::zeros(Shape{4, 4});
  const std::string unwritable = (dir.path() / "no-such-folder" / "x.png").string();
  EXPECT_ERROR(write_png(unwritable, image), "write_png: cannot write '" + unwritable + "'");
  EXPECT_ERROR(write_png(dir / "r.png", Tensor::zeros(Shape{2, 2, 2, 2})), "(n, height, width) or (height, width)");
  EXPECT_ERROR(write_png(dir / "c.png", image, {.columns = 0}), "columns >= 1");
  const Tensor nan = Tensor::from(std::vector<double>{0.0, std::numeric_limits<double>::quiet_NaN()}, Shape{1, 2});
  EXPECT_ERROR(write_png(dir / "n.png", nan), "NaN pixel at (0, 1)");
  EXPECT_FALSE(std::filesystem::exists(dir / "n.png"));
}

}  // namespace
}  // namespace variate::data
