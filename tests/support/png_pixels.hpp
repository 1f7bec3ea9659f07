#pragma once
// Reads a PNG file's pixels (through libpng's simplified API), for tests that check screenshots.
#include <png.h>

#include <cstdint>
#include <string>
#include <vector>

namespace variate::testing {

struct RgbImage {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;  // row-major, 3 bytes a pixel
  std::string error;              // why the file could not be read, or empty
};

inline RgbImage read_png_rgb(const std::string& path) {
  RgbImage image;
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&png, path.c_str())) {
    image.error = png.message;
    return image;
  }
  png.format = PNG_FORMAT_RGB;
  image.width = int(png.width);
  image.height = int(png.height);
  image.rgb.resize(PNG_IMAGE_SIZE(png));
  if (!png_image_finish_read(&png, nullptr, image.rgb.data(), 0, nullptr)) {
    image.error = png.message;
    image.rgb.clear();
  }
  return image;
}

}  // namespace variate::testing
