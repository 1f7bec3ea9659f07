#include "variate/data/movielens.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <string_view>
#include <unordered_map>

#include "data/read_text.hpp"
#include "variate/core/error.hpp"
#include "variate/core/quote_input.hpp"
#include "variate/random/samplers.hpp"

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

// ---------------------------------------------------------------------------------------------
// The synthetic model

// A histogram of the logits (count and sum per bin) is all the offset's equation needs, and one
// pass over the matrix builds it. Replacing each logit by its bin's mean changes sigma(c + x) by
// about sigma''(x) w^2 / 24 for bins of width w; where ones are rare, sigma'' ~ sigma, so the
// expected count moves by about count / 1.6e6 with w = 1/256: below 1 for MovieLens-1M's 1M ones,
// far below the Bernoulli noise of sqrt(count).
struct LogitHistogram {
  static constexpr double kBinsPerUnit = 256;
  double low = 0;
  std::vector<double> count, sum;

  LogitHistogram(double min, double max) : low(min) {
    const auto bins = static_cast<std::size_t>((max - min) * kBinsPerUnit) + 1;
    count.assign(bins, 0);
    sum.assign(bins, 0);
  }
  void add(double x) {
    // Clamped: x may pass the bounds by a rounding error, as they are summed in another order.
    const double position = std::clamp((x - low) * kBinsPerUnit, 0.0, double(count.size() - 1));
    const auto bin = static_cast<std::size_t>(position);
    count[bin] += 1;
    sum[bin] += x;
  }
  // Expected number of ones and its derivative in the offset.
  std::pair<double, double> expected_ones(double offset) const {
    double ones = 0, slope = 0;
    for (std::size_t b = 0; b < count.size(); ++b) {
      if (count[b] == 0) continue;
      const double p = 1 / (1 + std::exp(-(offset + sum[b] / count[b])));
      ones += count[b] * p;
      slope += count[b] * p * (1 - p);
    }
    return {ones, slope};
  }
};

// The offset c with sum sigma(c + x) = target: Newton steps, bisecting whenever a step leaves the
// bracket [lo, hi] known to hold the root (sigma's curvature changes sign, so plain Newton can
// overshoot).
double solve_offset(const LogitHistogram& h, double min_x, double max_x, double target, double cells) {
  const double base = std::log(target / (cells - target));  // the offset if all x were 0
  double lo = base - max_x, hi = base - min_x;              // every sigma(c + x) is below / above target / cells
  double c = 0.5 * (lo + hi);
  for (int iteration = 0; iteration < 200 && hi - lo > 1e-12; ++iteration) {
    const auto [ones, slope] = h.expected_ones(c);
    if (std::abs(ones - target) < 1e-6 * target) break;
    (ones < target ? lo : hi) = c;
    const double newton = slope > 0 ? c - (ones - target) / slope : lo - 1;
    c = newton > lo && newton < hi ? newton : 0.5 * (lo + hi);
  }
  return c;
}

}  // namespace

Tensor WatchData::watch_matrix(DType dtype) const {
  VARIATE_CHECK(dtype == DType::f64 || dtype == DType::f32, "WatchData::watch_matrix", "dtype ", dtype,
                "; expected f64 or f32");
  Tensor matrix = Tensor::zeros(Shape{num_users, num_movies}, dtype);
  dispatch_dtype(dtype, [&](auto zero) {
    using T = decltype(zero);
    T* cells = matrix.data<T>();
    for (const Watch& w : watches) cells[w.user * num_movies + w.movie] = T(1);
  });
  return matrix;
}

WatchData load_movielens_100k(const std::string& directory) {
  const std::string data_path = find_file(directory, "u.data");
  const std::string item_path = find_file(directory, "u.item");

  WatchData data;
  data.titles = read_titles(item_path);
  data.num_movies = static_cast<std::int64_t>(data.titles.size());

  // Ids index the rows and columns of a dense matrix, so they must be int32 and, for users, no
  // larger than the number of ratings: ids beyond it would leave most rows of the matrix empty.
  constexpr std::int64_t kMaxId = std::numeric_limits<std::int32_t>::max();
  const std::string text = detail::read_text_file(data_path, kLoad);
  const auto lines = std::int64_t(std::count(text.begin(), text.end(), '\n') + 1);
  std::unordered_map<std::int64_t, std::int64_t> line_of;  // user * 2^32 + movie -> its line
  for_each_line(text, [&](std::string_view line, std::int64_t number) {
    const std::vector<std::string_view> fields = split(line, '\t');
    VARIATE_CHECK(fields.size() == 4, kLoad, data_path, ":", number, ": found ", fields.size(),
                  " tab-separated fields, expected 4: user id, item id, rating, timestamp");
    const std::int64_t user = parse_integer(fields[0], 1, kMaxId, data_path, number, "user id");
    VARIATE_CHECK(user <= lines, kLoad, data_path, ":", number, ": user id ", user, " is larger than the ", lines,
                  " lines of ratings in the file; expected ids 1, 2, ... numbering the users who rated (the watch "
                  "matrix has a row for every id up to the largest)");
    const std::int64_t movie = parse_integer(fields[1], 1, kMaxId, data_path, number, "item id");
    VARIATE_CHECK(movie <= data.num_movies, kLoad, data_path, ":", number, ": item id ", movie, " is beyond the ",
                  data.num_movies, " movies of ", item_path, "; expected 1..", data.num_movies);
    parse_integer(fields[2], 1, 5, data_path, number, "rating");
    parse_integer(fields[3], 0, std::numeric_limits<std::int64_t>::max(), data_path, number, "timestamp");
    const auto [earlier, added] = line_of.emplace((user << 32) + movie, number);
    VARIATE_CHECK(added, kLoad, data_path, ":", number, ": user ", user, " rates item ", movie,
                  " again (first on line ", earlier->second, "); expected each pair once");
    data.watches.push_back({user - 1, movie - 1});
    data.num_users = std::max(data.num_users, user);
  });
  VARIATE_CHECK(!data.watches.empty(), kLoad, data_path,
                ": no ratings; expected tab-separated lines 'user item rating timestamp'");
  return data;
}

WatchData synthetic_watch_matrix(random::Key key, std::int64_t num_users, std::int64_t num_movies,
                                 std::int64_t target_ones, std::int64_t latent_dim) {
  constexpr const char* op = "synthetic_watch_matrix";
  VARIATE_CHECK(num_users >= 1 && num_movies >= 1, op, "num_users ", num_users, " and num_movies ", num_movies,
                "; expected both >= 1");
  VARIATE_CHECK(latent_dim >= 0, op, "latent_dim ", latent_dim, "; expected >= 0");
  const double cells = double(num_users) * double(num_movies);
  VARIATE_CHECK(target_ones > 0 && double(target_ones) < cells, op, "target_ones ", target_ones,
                "; expected between 0 and num_users * num_movies = ", cells, ", both excluded");

  // Scales chosen so that counts spread as in MovieLens-1M, whose largest count is 24 times the
  // median per user (2314 / 96) and 28 times per movie (3428 / 123.5). At the default size these
  // give about 12 times per user (median ~115, largest ~1400) and 25 times per movie. Unlike
  // MovieLens, which kept only users with 20 ratings or more, a few users here watch almost nothing.
  constexpr double kActivityScale = 1.2, kPopularityScale = 1.5;
  const double embedding_scale = latent_dim > 0 ? std::pow(double(latent_dim), -0.25) : 0.0;
  const std::vector<random::Key> keys = random::split(key, 5);
  const std::vector<double> activity = random::normal(keys[0], Shape{num_users}).to_vector<double>();
  const std::vector<double> popularity = random::normal(keys[1], Shape{num_movies}).to_vector<double>();
  const std::vector<double> z = random::normal(keys[2], Shape{num_users, latent_dim}).to_vector<double>();
  const std::vector<double> w = random::normal(keys[3], Shape{num_movies, latent_dim}).to_vector<double>();
  const auto dim = static_cast<std::size_t>(latent_dim);
  const auto logit = [&](std::size_t u, std::size_t m) {
    double dot = 0;
    for (std::size_t k = 0; k < dim; ++k) dot += z[u * dim + k] * w[m * dim + k];
    return kActivityScale * activity[u] + kPopularityScale * popularity[m] + embedding_scale * embedding_scale * dot;
  };
  const auto users = static_cast<std::size_t>(num_users), movies = static_cast<std::size_t>(num_movies);

  // Bounds on the logits without a pass over them (Cauchy-Schwarz bounds the dot products); they
  // size the histogram and bracket the offset. Logits are recomputed, not stored: MovieLens-1M's
  // 22M cells would take 179 MB.
  const auto extent = [](const std::vector<double>& v) { return std::minmax_element(v.begin(), v.end()); };
  const auto largest_norm = [dim](const std::vector<double>& rows) {
    double largest = 0;
    for (std::size_t i = 0; i + dim <= rows.size() && dim > 0; i += dim) {
      double squares = 0;
      for (std::size_t k = 0; k < dim; ++k) squares += rows[i + k] * rows[i + k];
      largest = std::max(largest, std::sqrt(squares));
    }
    return largest;
  };
  const auto [a_min, a_max] = extent(activity);
  const auto [b_min, b_max] = extent(popularity);
  const double dot_bound = embedding_scale * embedding_scale * largest_norm(z) * largest_norm(w);
  const double min_x = kActivityScale * *a_min + kPopularityScale * *b_min - dot_bound;
  const double max_x = kActivityScale * *a_max + kPopularityScale * *b_max + dot_bound;
  LogitHistogram histogram(min_x, max_x);
  for (std::size_t u = 0; u < users; ++u) {
    for (std::size_t m = 0; m < movies; ++m) histogram.add(logit(u, m));
  }
  const double offset = solve_offset(histogram, min_x, max_x, double(target_ones), cells);

  // One uniform stream per user, so a row does not depend on how many movies came before it.
  WatchData data;
  data.num_users = num_users;
  data.num_movies = num_movies;
  data.watches.reserve(static_cast<std::size_t>(target_ones + 6 * std::sqrt(double(target_ones))));
  for (std::size_t u = 0; u < users; ++u) {
    const Tensor draws = random::uniform(random::fold_in(keys[4], u), Shape{num_movies});
    const double* uniform = draws.data<double>();
    for (std::size_t m = 0; m < movies; ++m) {
      // u < sigma(t) written as u (1 + exp(-t)) < 1, one division fewer per cell.
      if (uniform[m] * (1 + std::exp(-(offset + logit(u, m)))) < 1) {
        data.watches.push_back({std::int64_t(u), std::int64_t(m)});
      }
    }
  }
  data.titles.reserve(movies);
  for (std::size_t m = 0; m < movies; ++m) data.titles.push_back("movie " + std::to_string(m));
  return data;
}

}  // namespace variate::data
