#pragma once
// Implicit-feedback recommendation data: which user watched (rated) which movie, from GroupLens'
// MovieLens-100K files or from a synthetic low-rank model the size of MovieLens-1M.
#include <cstdint>
#include <string>
#include <vector>

#include "variate/core/dtype.hpp"
#include "variate/random/key.hpp"
#include "variate/tensor/tensor.hpp"

namespace variate::data {

/// One watch: 0-based user and movie indices.
struct Watch {
  std::int64_t user = 0;
  std::int64_t movie = 0;
  friend bool operator==(const Watch&, const Watch&) = default;
};

/// A binary users x movies watch matrix held as its ones, each (user, movie) pair once.
/// titles[m] names movie m, for printing recommendations.
struct WatchData {
  std::int64_t num_users = 0;
  std::int64_t num_movies = 0;
  std::vector<Watch> watches;
  std::vector<std::string> titles;

  /// The dense [num_users, num_movies] matrix: 1 where the user watched the movie, else 0.
  /// `dtype` is f64 or f32 (MovieLens-1M's size takes 179 MB in f64, 90 MB in f32); throws
  /// variate::Error for another dtype.
  Tensor watch_matrix(DType dtype = DType::f64) const;
};

/// One rating of a GroupLens ratings file: 0-based user and movie indices, and the stars 1..5.
struct Rating {
  std::int64_t user = 0;
  std::int64_t movie = 0;
  int stars = 0;
};

/// Reads MovieLens-100K (GroupLens' ml-100k folder) from `path`: every rating in u.data as a
/// watch, whatever its value, and the titles in u.item; each file may be gzip-compressed, named
/// u.data.gz / u.item.gz (used when both exist). `path` may instead name one ratings file of the
/// folder, such as the training half of a split, ua.base (or ua.base.gz): its ratings are the
/// watches, and u.item is read from beside it (the held-out half, ua.test, stays unseen). u.data holds tab-separated
/// `user item rating timestamp` lines with 1-based ids; u.item `id|title|...` lines, ids 1, 2, ... in order, in
/// ISO-8859-1, converted here to UTF-8 ("Misérables" prints as it should). num_users is the
/// largest user id (943), num_movies the number of lines of u.item (1682). Throws variate::Error
/// naming the file and line for a missing or unreadable file, a line without the expected fields,
/// an id, rating (1..5) or timestamp that is not an integer in range, an item id beyond u.item's
/// movies, a (user, item) pair rated twice, u.item ids out of order, and an empty file.
WatchData load_movielens_100k(const std::string& path);

/// The ratings of one GroupLens ratings file (u.data, ua.test, ...; plain or gzip-compressed) of
/// a folder with `num_movies` movies, in file order, checked as load_movielens_100k checks u.data.
std::vector<Rating> read_movielens_ratings(const std::string& path, std::int64_t num_movies);

/// A reproducible synthetic watch matrix, by default of MovieLens-1M's size (6040 users, 3706
/// movies, 1000209 ratings), for examples and benchmarks where the real data cannot be shipped.
/// Each cell is an independent Bernoulli draw with
///   logit P(user u watched movie m) = offset + activity_u + popularity_m + <z_u, w_m>,
/// activity_u ~ Normal(0, 1.2), popularity_m ~ Normal(0, 1.5) and the embeddings z_u, w_m ~
/// Normal(0, latent_dim^(-1/4)) per coordinate (so <z_u, w_m> has unit variance). With few ones,
/// P is close to exp(logit), so the per-user and per-movie counts are roughly log-normal: heavy
/// tailed, as in the real data. `offset` is solved for so that the expected number of ones is
/// target_ones, so the count drawn is within a few sqrt(target_ones) of it. The same key gives the
/// same matrix. Titles are "movie 0", "movie 1", ... Throws variate::Error naming the function for
/// num_users or num_movies < 1, latent_dim < 0, or target_ones outside (0, num_users * num_movies).
WatchData synthetic_watch_matrix(random::Key key, std::int64_t num_users = 6040, std::int64_t num_movies = 3706,
                                 std::int64_t target_ones = 1000209, std::int64_t latent_dim = 10);

}  // namespace variate::data
