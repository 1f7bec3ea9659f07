#include "variate/data/idx.hpp"

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string_view>

#include "data/read_text.hpp"
#include "variate/core/error.hpp"

namespace variate::data {

namespace {

constexpr const char* kReadIdx = "read_idx";

bool known_type(std::uint8_t code) {
  switch (static_cast<IdxType>(code)) {
    case IdxType::u8:
    case IdxType::i8:
    case IdxType::i16:
    case IdxType::i32:
    case IdxType::f32:
    case IdxType::f64: return true;
  }
  return false;
}

std::string hex32(std::uint32_t x) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08X", x);
  return text;
}

// The magic number a file with this type and rank starts with, for error messages.
std::uint32_t magic_of(IdxType type, std::size_t rank) { return (std::uint32_t(type) << 8) | std::uint32_t(rank); }

// Reads up to n bytes; fewer only at the end of the data. gzread passes plain files through and
// inflates gzip ones, which is how both kinds of file are accepted.
std::size_t read_some(gzFile file, std::uint8_t* out, std::size_t n, const std::string& path) {
  std::size_t done = 0;
  while (done < n) {
    const auto chunk = static_cast<unsigned>(std::min<std::size_t>(n - done, std::size_t(1) << 30));
    const int got = gzread(file, out + done, chunk);
    if (got < 0) {
      int code = Z_OK;
      std::string_view message = gzerror(file, &code);
      // gzerror starts its message with the file name, which ours already gives.
      if (message.starts_with(path + ": ")) message.remove_prefix(path.size() + 2);
      detail::fail(kReadIdx, ": cannot read file '", path, "': ", code == Z_ERRNO ? std::strerror(errno) : message);
    }
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  return done;
}

// Why the data ended early, for the truncation message: zlib reports a gzip stream cut short
// as Z_BUF_ERROR, which tells a damaged download from a wrong header.
const char* end_reason(gzFile file) {
  int code = Z_OK;
  gzerror(file, &code);
  return code == Z_BUF_ERROR ? " (the gzip stream is cut short)" : "";
}

std::uint32_t big_endian32(const std::uint8_t* p) {
  return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) | std::uint32_t(p[3]);
}

// IDX elements are big-endian; callers get the machine's order.
void to_native_order(std::vector<std::uint8_t>& bytes, int size) {
  if (size == 1 || std::endian::native == std::endian::big) return;
  for (std::size_t i = 0; i + std::size_t(size) <= bytes.size(); i += std::size_t(size)) {
    std::reverse(bytes.begin() + std::ptrdiff_t(i), bytes.begin() + std::ptrdiff_t(i) + size);
  }
}

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

const char* name(IdxType type) {
  switch (type) {
    case IdxType::u8: return "unsigned byte";
    case IdxType::i8: return "signed byte";
    case IdxType::i16: return "short";
    case IdxType::i32: return "int";
    case IdxType::f32: return "float";
    case IdxType::f64: return "double";
  }
  return "unknown type";
}

int element_size(IdxType type) {
  switch (type) {
    case IdxType::u8:
    case IdxType::i8: return 1;
    case IdxType::i16: return 2;
    case IdxType::i32:
    case IdxType::f32: return 4;
    case IdxType::f64: return 8;
  }
  return 0;
}

IdxArray read_idx(const std::string& path, std::int64_t max_items) {
  detail::check_readable_kind(path, kReadIdx);
  errno = 0;
  const std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), gzclose);
  VARIATE_CHECK(file != nullptr, kReadIdx, "cannot open file '", path,
                "': ", errno ? std::strerror(errno) : "out of memory");

  std::uint8_t magic[4];
  const std::size_t got = read_some(file.get(), magic, 4, path);
  VARIATE_CHECK(got == 4, kReadIdx, path, ": the file holds ", got,
                " bytes, expected at least the 4-byte IDX magic number", end_reason(file.get()));
  const std::uint32_t magic_number = big_endian32(magic);
  VARIATE_CHECK(magic[0] == 0 && magic[1] == 0 && known_type(magic[2]) && magic[3] >= 1, kReadIdx, path,
                ": magic number ", hex32(magic_number),
                " is not IDX: expected 0x0000TTNN with type code TT one of 08 (unsigned byte), 09 (signed byte),"
                " 0B (short), 0C (int), 0D (float), 0E (double) and NN >= 1 dimensions");

  IdxArray array;
  array.type = static_cast<IdxType>(magic[2]);
  const std::size_t rank = magic[3];
  std::vector<std::uint8_t> header(4 * rank);
  const std::size_t header_got = read_some(file.get(), header.data(), header.size(), path);
  VARIATE_CHECK(header_got == header.size(), kReadIdx, path, ": truncated header: magic number ", hex32(magic_number),
                " declares ", rank, " dimensions, expected ", header.size(), " bytes of sizes after it, found ",
                header_got, end_reason(file.get()));

  // Bytes per item (one step along the first dimension), guarding against a corrupt header whose
  // sizes overflow: real files are far below 2^62 bytes.
  std::int64_t item_bytes = element_size(array.type);
  for (std::size_t d = 0; d < rank; ++d) {
    const std::uint32_t size = big_endian32(&header[4 * d]);
    VARIATE_CHECK(size <= std::uint32_t(INT32_MAX), kReadIdx, path, ": dimension ", d, " has size ", std::int32_t(size),
                  ", expected a non-negative int32");
    array.dims.push_back(size);
    if (d > 0) {
      VARIATE_CHECK(size == 0 || item_bytes <= (std::int64_t(1) << 62) / std::int64_t(size), kReadIdx, path,
                    ": the dimensions in the header describe more than 2^62 bytes; expected a real file's sizes");
      item_bytes *= size;
    }
  }
  array.file_items = array.dims[0];
  const std::int64_t items = max_items < 0 ? array.file_items : std::min(max_items, array.file_items);
  array.dims[0] = items;
  VARIATE_CHECK(item_bytes == 0 || items <= (std::int64_t(1) << 62) / item_bytes, kReadIdx, path,
                ": the dimensions in the header describe more than 2^62 bytes; expected a real file's sizes");
  const auto wanted = std::size_t(items * item_bytes);
  VARIATE_CHECK(wanted <= detail::kMaxInputBytes, kReadIdx, path, ": the header promises ", wanted,
                " bytes of data, more than ", detail::kMaxInputBytes, ", the limit for an input file");

  // Grow in steps rather than trusting the header with one allocation: a damaged header then ends
  // in the truncation error below, not in an attempt to allocate terabytes.
  constexpr std::size_t kStep = std::size_t(1) << 26;
  while (array.bytes.size() < wanted) {
    const std::size_t done = array.bytes.size();
    const std::size_t step = std::min(kStep, wanted - done);
    array.bytes.resize(done + step);
    const std::size_t n = read_some(file.get(), array.bytes.data() + done, step, path);
    if (n < step) {
      detail::fail(kReadIdx, ": ", path, ": truncated data: the header (", hex32(magic_number), ", ", rank,
                   " dimensions) promises ", wanted, " bytes of data",
                   items < array.file_items ? " for the items read" : "", ", found ", done + n, end_reason(file.get()));
    }
  }
  if (items == array.file_items) {
    std::uint8_t extra = 0;
    VARIATE_CHECK(read_some(file.get(), &extra, 1, path) == 0, kReadIdx, path, ": the file goes on after the ", wanted,
                  " bytes of data its header promises; expected it to end there (are the dimensions right?)");
  }
  to_native_order(array.bytes, element_size(array.type));
  return array;
}

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
