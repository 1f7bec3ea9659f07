#include "variate/data/idx.hpp"

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <climits>
#include <cstring>
#include <memory>
#include <string_view>

#include "data/hex32.hpp"
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

  // Grow with what was read rather than trusting the header: a damaged header then ends in the
  // truncation error below having allocated about twice what the file holds, not what it promises.
  // Steps double up to 64 MiB, so a real file's growth copies about its size once.
  constexpr std::size_t kFirstStep = std::size_t(1) << 16, kLargestStep = std::size_t(1) << 26;
  while (array.bytes.size() < wanted) {
    const std::size_t done = array.bytes.size();
    const std::size_t step = std::min(std::clamp(done, kFirstStep, kLargestStep), wanted - done);
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

}  // namespace variate::data
