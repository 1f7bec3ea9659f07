#pragma once
// Reading IDX files, the format of LeCun, Cortes & Burges' MNIST database (and of Fashion-MNIST,
// KMNIST and EMNIST, which copied it), and the MNIST training and test sets built on it.
#include <cstdint>
#include <string>
#include <vector>

#include "variate/core/dtype.hpp"
#include "variate/tensor/tensor.hpp"

namespace variate::data {

/// The element type an IDX file declares in the third byte of its magic number.
enum class IdxType : std::uint8_t {
  u8 = 0x08,
  i8 = 0x09,
  i16 = 0x0B,
  i32 = 0x0C,
  f32 = 0x0D,
  f64 = 0x0E,
};

/// "unsigned byte", "signed byte", "short", "int", "float" or "double", as the format's
/// description names them, for error messages.
const char* name(IdxType type);
/// Bytes per element: 1, 1, 2, 4, 4 or 8.
int element_size(IdxType type);

/// An IDX file's contents. `dims` is the shape of the data held, row-major; dims[0] is the number
/// of items read, which is less than `file_items` (the first dimension in the file's header) only
/// when read_idx was given a smaller `max_items`. `bytes` holds the elements in the machine's byte
/// order (IDX stores them big-endian), so a u8 array's bytes are its values and a f32 array's
/// bytes can be copied into floats.
struct IdxArray {
  IdxType type = IdxType::u8;
  std::vector<std::int64_t> dims;
  std::int64_t file_items = 0;
  std::vector<std::uint8_t> bytes;
};

/// Reads an IDX file, plain or gzip-compressed (zlib detects gzip from the content, whatever the
/// file's name). The format: a 4-byte magic number (two zero bytes, a type code, the number of
/// dimensions), one big-endian int32 per dimension, then the elements, big-endian and row-major.
/// With max_items >= 0, only the first min(max_items, dims[0]) items are read, so a large
/// compressed file need not be inflated whole; the rest of the file is then not checked. Throws
/// variate::Error naming the file for a missing or unreadable file, corrupt gzip data, a magic
/// number that is not IDX (with what was expected), zero dimensions, a negative dimension, data
/// shorter than the header promises (truncation) and, when the whole file is read, bytes after
/// the data.
IdxArray read_idx(const std::string& path, std::int64_t max_items = -1);

/// One of MNIST's two sets. images: [n, rows * cols] with pixels scaled from 0..255 to [0, 1]
/// (0 is background), one image per row in row-major pixel order; labels: i64 [n], 0..9.
struct MnistSplit {
  Tensor images;
  Tensor labels;
  std::int64_t rows = 0;  // 28 for MNIST
  std::int64_t cols = 0;  // 28 for MNIST
};

/// Loads split "train" (60000 images) or "t10k" (the 10000 test images) from `directory`, which
/// holds LeCun's files under their original names, gzip-compressed or not:
/// <split>-images-idx3-ubyte[.gz] and <split>-labels-idx1-ubyte[.gz] (the .gz file is used when
/// both exist). `dtype` is f64 or f32 (f32 halves the 376 MB that the f64 training images take).
/// `limit` >= 0 keeps the first min(limit, n) examples and reads only those; -1 keeps all. Throws
/// variate::Error naming the file and what was expected for any read_idx error, a missing file,
/// an images file that is not u8 with 3 dimensions (magic 0x00000803) or a labels file that is not
/// u8 with 1 dimension (0x00000801), different image and label counts, and a label above 9; and
/// for an unknown split, a dtype other than f64/f32 or a limit below -1.
MnistSplit load_mnist(const std::string& directory, const std::string& split, DType dtype = DType::f64,
                      std::int64_t limit = -1);

}  // namespace variate::data
