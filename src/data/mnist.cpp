// load_mnist (declared in idx.hpp) lives apart from read_idx: it builds tensors, while the IDX
// reader needs only the core layer, so the fuzzers (fuzz/) build it without the tensor library.
#include <algorithm>
#include <filesystem>

#include "data/hex32.hpp"
#include "variate/core/error.hpp"
#include "variate/data/idx.hpp"

namespace variate::data {

namespace {

// The magic number a file with this type and rank starts with, for error messages.
std::uint32_t magic_of(IdxType type, std::size_t rank) { return (std::uint32_t(type) << 8) | std::uint32_t(rank); }

// MNIST's files under their original names; the compressed one first, as distributed.
std::string find_mnist_file(const std::string& directory, const std::string& name) {
  const std::string plain = (std::filesystem::path(directory) / name).string();
  const std::string gz = plain + ".gz";
  if (std::filesystem::exists(gz)) return gz;
  if (std::filesystem::exists(plain)) return plain;
  detail::fail("load_mnist: no file '", gz, "' or '", plain, "'; expected LeCun's MNIST IDX files in '", directory,
               "'");
}

// read_idx with errors prefixed by load_mnist, so the caller sees which function it called.
IdxArray read_for_mnist(const std::string& path, std::int64_t limit) {
  try {
    return read_idx(path, limit);
  } catch (const Error& e) {
    detail::fail("load_mnist: ", e.what());
  }
}

void check_layout(const IdxArray& a, const std::string& path, std::size_t rank, const char* what) {
  VARIATE_CHECK(a.type == IdxType::u8 && a.dims.size() == rank, "load_mnist", path, ": magic number ",
                hex32(magic_of(a.type, a.dims.size())), " (", name(a.type), ", ", a.dims.size(),
                " dimensions), expected ", hex32(magic_of(IdxType::u8, rank)), " (", what, ")");
}

template <class T>
Tensor scaled_pixels(const std::vector<std::uint8_t>& pixels, const Shape& shape, DType dtype) {
  Tensor images = Tensor::empty(shape, dtype);
  T* out = images.data<T>();
  // Dividing (not multiplying by 1/255) makes 255 exactly 1 and each value correctly rounded.
  for (std::size_t k = 0; k < pixels.size(); ++k) out[k] = T(pixels[k]) / T(255);
  return images;
}

}  // namespace

MnistSplit load_mnist(const std::string& directory, const std::string& split, DType dtype, std::int64_t limit) {
  constexpr const char* op = "load_mnist";
  VARIATE_CHECK(split == "train" || split == "t10k", op, "unknown split '", split,
                "'; expected \"train\" (60000 training images) or \"t10k\" (10000 test images)");
  VARIATE_CHECK(dtype == DType::f64 || dtype == DType::f32, op, "dtype ", dtype,
                " for the images; expected f64 or f32");
  VARIATE_CHECK(limit >= -1, op, "limit ", limit, "; expected -1 (all examples) or a count >= 0");

  const std::string images_path = find_mnist_file(directory, split + "-images-idx3-ubyte");
  const std::string labels_path = find_mnist_file(directory, split + "-labels-idx1-ubyte");
  const IdxArray labels = read_for_mnist(labels_path, limit);
  check_layout(labels, labels_path, 1, "unsigned byte labels: count");
  const IdxArray images = read_for_mnist(images_path, limit);
  check_layout(images, images_path, 3, "unsigned byte images: count, rows, cols");

  VARIATE_CHECK(images.file_items == labels.file_items, op, images_path, " holds ", images.file_items, " images but ",
                labels_path, " holds ", labels.file_items, " labels; expected one label per image");
  VARIATE_CHECK(images.dims[1] > 0 && images.dims[2] > 0, op, images_path, ": images of ", images.dims[1], " x ",
                images.dims[2], " pixels; expected at least one pixel");
  const auto bad = std::find_if(labels.bytes.begin(), labels.bytes.end(), [](std::uint8_t y) { return y > 9; });
  VARIATE_CHECK(bad == labels.bytes.end(), op, labels_path, ": label ", int(*bad), " for item ",
                bad - labels.bytes.begin(), " (from 0); expected a digit 0..9");

  MnistSplit result;
  result.rows = images.dims[1];
  result.cols = images.dims[2];
  const Shape shape{images.dims[0], result.rows * result.cols};
  result.images = dtype == DType::f32 ? scaled_pixels<float>(images.bytes, shape, dtype)
                                      : scaled_pixels<double>(images.bytes, shape, dtype);
  const std::vector<std::int64_t> digits(labels.bytes.begin(), labels.bytes.end());
  result.labels = Tensor::from(digits, Shape{labels.dims[0]});
  return result;
}

}  // namespace variate::data
