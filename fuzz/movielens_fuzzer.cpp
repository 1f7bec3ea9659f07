// Fuzzes load_movielens_100k, which reads a folder of two files: the input is u.item, then the line
// "--- u.data ---", then u.data (without that line, all of it is u.item and u.data is empty).
// Seeds: corpus/movielens.
#include <set>
#include <string_view>
#include <utility>

#include "fuzz_support.hpp"
#include "variate/data/movielens.hpp"

namespace {

constexpr std::string_view kSeparator = "\n--- u.data ---\n";

void check(const variate::data::WatchData& data) {
  using variate::fuzz::expect;
  expect(data.num_movies >= 1 && static_cast<std::int64_t>(data.titles.size()) == data.num_movies,
         "num_movies is not the number of titles");
  expect(!data.watches.empty(), "no watches");
  std::set<std::pair<std::int64_t, std::int64_t>> pairs;
  for (const variate::data::Watch& w : data.watches) {
    expect(w.user >= 0 && w.user < data.num_users, "a user index outside 0..num_users-1");
    expect(w.movie >= 0 && w.movie < data.num_movies, "a movie index outside 0..num_movies-1");
    expect(pairs.emplace(w.user, w.movie).second, "a (user, movie) pair twice");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const variate::fuzz::InputFolder folder;
  const std::string_view input = variate::fuzz::as_text(data, size);
  const auto separator = input.find(kSeparator);
  folder.write("u.item", input.substr(0, separator));
  folder.write("u.data", separator == std::string_view::npos ? "" : input.substr(separator + kSeparator.size()));
  variate::fuzz::run_loader([&] { check(variate::data::load_movielens_100k(folder.path().string())); });
  return 0;
}
