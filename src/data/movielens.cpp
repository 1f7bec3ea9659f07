#include "variate/data/movielens.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <limits>
#include <string_view>
#include <unordered_map>

#include "data/read_text.hpp"
#include "variate/core/error.hpp"
#include "variate/core/quote_input.hpp"

namespace variate::data {

namespace {

constexpr const char* kLoad = "load_movielens_100k";

// GroupLens ships plain files; our copy is gzip-compressed. read_text_file inflates either.
std::string find_file(const std::string& directory, const std::string& name) {
  const std::string plain = (std::filesystem::path(directory) / name).string();
  const std::string gz = plain + ".gz";
  if (std::filesystem::exists(gz)) return gz;
  if (std::filesystem::exists(plain)) return plain;
  detail::fail(kLoad, ": no file '", gz, "' or '", plain, "'; expected GroupLens' ml-100k files in '", directory, "'");
}

// Calls fn(line, line_number) for each non-blank line, without its '\r' on Windows line ends.
template <class Fn>
void for_each_line(std::string_view text, Fn&& fn) {
  for (std::int64_t number = 1; !text.empty(); ++number) {
    const auto newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (line.find_first_not_of(" \t") != std::string_view::npos) fn(line, number);
  }
}

// A ratings file given by its path, plain or with ".gz" added (the gzip-compressed copy wins).
std::string find_ratings_file(const std::string& path) {
  if (std::filesystem::exists(path + ".gz")) return path + ".gz";
  if (std::filesystem::exists(path)) return path;
  detail::fail(kLoad, ": no folder or ratings file '", path, "' (nor '", path,
               ".gz'); expected GroupLens' ml-100k folder or one of its ratings files (u.data, ua.base, ...)");
}

std::vector<std::string_view> split(std::string_view line, char separator) {
  std::vector<std::string_view> fields;
  for (std::size_t start = 0;;) {
    const auto end = line.find(separator, start);
    fields.push_back(line.substr(start, end - start));
    if (end == std::string_view::npos) return fields;
    start = end + 1;
  }
}

// A whole field as an integer in [low, high]; `what` and the location name it in the error.
std::int64_t parse_integer(std::string_view field, std::int64_t low, std::int64_t high, const std::string& path,
                           std::int64_t line, const char* what) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  VARIATE_CHECK(!field.empty() && ec == std::errc{} && end == field.data() + field.size(), kLoad, path, ":", line, ": ",
                what, " ", quote_input(field), " is not an integer");
  VARIATE_CHECK(value >= low && value <= high, kLoad, path, ":", line, ": ", what, " ", value,
                " is out of range, expected ", low, "..", high);
  return value;
}

// u.item is ISO-8859-1, whose code points are its byte values: bytes from 0x80 become two UTF-8 bytes.
std::string latin1_to_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x80) {
      out += c;
    } else {
      out += static_cast<char>(0xC0 | (b >> 6));
      out += static_cast<char>(0x80 | (b & 0x3F));
    }
  }
  return out;
}

std::vector<std::string> read_titles(const std::string& path) {
  std::vector<std::string> titles;
  for_each_line(detail::read_text_file(path, kLoad), [&](std::string_view line, std::int64_t number) {
    const std::vector<std::string_view> fields = split(line, '|');
    VARIATE_CHECK(fields.size() >= 2, kLoad, path, ":", number,
                  ": expected 'movie id|title|...' fields separated by '|', found no '|'");
    const auto expected = static_cast<std::int64_t>(titles.size()) + 1;
    // Ids in order let titles[id - 1] find a movie without a lookup table.
    parse_integer(fields[0], expected, expected, path, number, "movie id");
    titles.push_back(latin1_to_utf8(fields[1]));
  });
  VARIATE_CHECK(!titles.empty(), kLoad, path, ": no movies; expected one 'movie id|title|...' line per movie");
  return titles;
}

// `movies_source` names where the num_movies movies came from, for the error of an item beyond them.
std::vector<Rating> read_ratings(const std::string& path, std::int64_t num_movies, const std::string& movies_source) {
  // Ids index the rows and columns of a dense matrix, so they must be int32 and, for users, no
  // larger than the number of ratings: ids beyond it would leave most rows of the matrix empty.
  constexpr std::int64_t kMaxId = std::numeric_limits<std::int32_t>::max();
  const std::string text = detail::read_text_file(path, kLoad);
  const auto lines = std::int64_t(std::count(text.begin(), text.end(), '\n') + 1);
  std::unordered_map<std::int64_t, std::int64_t> line_of;  // user * 2^32 + movie -> its line
  std::vector<Rating> ratings;
  for_each_line(text, [&](std::string_view line, std::int64_t number) {
    const std::vector<std::string_view> fields = split(line, '\t');
    VARIATE_CHECK(fields.size() == 4, kLoad, path, ":", number, ": found ", fields.size(),
                  " tab-separated fields, expected 4: user id, item id, rating, timestamp");
    const std::int64_t user = parse_integer(fields[0], 1, kMaxId, path, number, "user id");
    VARIATE_CHECK(user <= lines, kLoad, path, ":", number, ": user id ", user, " is larger than the ", lines,
                  " lines of ratings in the file; expected ids 1, 2, ... numbering the users who rated (the watch "
                  "matrix has a row for every id up to the largest)");
    const std::int64_t movie = parse_integer(fields[1], 1, kMaxId, path, number, "item id");
    VARIATE_CHECK(movie <= num_movies, kLoad, path, ":", number, ": item id ", movie, " is beyond the ", num_movies,
                  " movies of ", movies_source, "; expected 1..", num_movies);
    const std::int64_t stars = parse_integer(fields[2], 1, 5, path, number, "rating");
    parse_integer(fields[3], 0, std::numeric_limits<std::int64_t>::max(), path, number, "timestamp");
    const auto [earlier, added] = line_of.emplace((user << 32) + movie, number);
    VARIATE_CHECK(added, kLoad, path, ":", number, ": user ", user, " rates item ", movie, " again (first on line ",
                  earlier->second, "); expected each pair once");
    ratings.push_back({user - 1, movie - 1, int(stars)});
  });
  VARIATE_CHECK(!ratings.empty(), kLoad, path,
                ": no ratings; expected tab-separated lines 'user item rating timestamp'");
  return ratings;
}

}  // namespace

std::vector<Rating> read_movielens_ratings(const std::string& path, std::int64_t num_movies) {
  return read_ratings(find_ratings_file(path), num_movies, "u.item");
}

WatchData load_movielens_100k(const std::string& path) {
  // A ratings file (a split's ua.base, say) has u.item beside it; a folder holds both.
  const bool ratings_file = !std::filesystem::is_directory(path);
  const std::string folder = ratings_file ? std::filesystem::path(path).parent_path().string() : path;
  const std::string data_path = ratings_file ? find_ratings_file(path) : find_file(folder, "u.data");
  const std::string item_path = find_file(folder, "u.item");
  WatchData data;
  data.titles = read_titles(item_path);
  data.num_movies = static_cast<std::int64_t>(data.titles.size());
  for (const Rating& r : read_ratings(data_path, data.num_movies, item_path)) {
    data.watches.push_back({r.user, r.movie});
    data.num_users = std::max(data.num_users, r.user + 1);
  }
  return data;
}

}  // namespace variate::data
