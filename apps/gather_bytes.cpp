#include "gather_bytes.hpp"

#include <cstdint>
#include <cstring>

#include "variate/distribute/collectives.hpp"
#include "variate/distribute/mesh.hpp"

namespace variate::cli {

std::vector<std::string> all_gather_bytes(std::string_view mine, std::string_view axis) {
  // The bytes travel as whole i64 words (copied, never computed on, so every bit arrives), after a
  // word holding their count: every device sends at least that word.
  std::vector<std::int64_t> packed(1 + (mine.size() + 7) / 8, 0);
  packed[0] = std::int64_t(mine.size());
  if (!mine.empty()) std::memcpy(packed.data() + 1, mine.data(), mine.size());
  const Tensor all = distribute::all_gather(Tensor::from(packed, Shape{std::int64_t(packed.size())}), axis, 0);
  const std::int64_t* word = all.data<std::int64_t>();
  std::vector<std::string> out(std::size_t(distribute::axis_size(axis)));
  for (std::string& bytes : out) {
    const auto n = std::size_t(*word++);
    bytes.assign(reinterpret_cast<const char*>(word), n);
    word += (n + 7) / 8;
  }
  return out;
}

}  // namespace variate::cli
