// Fuzzes read_idx, the reader of IDX files (MNIST's format), whole and with max_items, which stops
// reading after the first items (seeds: corpus/idx).
#include <algorithm>
#include <functional>
#include <numeric>

#include "fuzz_support.hpp"
#include "variate/data/idx.hpp"

namespace {

void check(const variate::data::IdxArray& a, std::int64_t max_items) {
  using variate::fuzz::expect;
  expect(!a.dims.empty(), "no dimensions");
  expect(std::all_of(a.dims.begin(), a.dims.end(), [](std::int64_t size) { return size >= 0; }),
         "a negative dimension");
  // With a zero among the dimensions, the others may multiply past int64: read_idx bounds their
  // product only where it counts bytes.
  const bool empty = std::find(a.dims.begin(), a.dims.end(), 0) != a.dims.end();
  const std::int64_t elements =
      empty ? 0 : std::accumulate(a.dims.begin(), a.dims.end(), std::int64_t(1), std::multiplies<>());
  const std::int64_t items = max_items < 0 ? a.file_items : std::min(max_items, a.file_items);
  expect(a.dims[0] == items, "dims[0] is not the number of items asked for");
  expect(static_cast<std::int64_t>(a.bytes.size()) == elements * variate::data::element_size(a.type),
         "the bytes do not match the dimensions");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const variate::fuzz::InputFolder folder;
  const std::string path = folder.write("data.idx", variate::fuzz::as_text(data, size));
  for (const std::int64_t max_items : {-1, 2}) {
    variate::fuzz::run_loader([&] { check(variate::data::read_idx(path, max_items), max_items); });
  }
  return 0;
}
