#include "variate/data/movielens.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "support/expect_error.hpp"
#include "support/scratch_dir.hpp"

namespace variate::data {
namespace {

// Each test writes its files into its own directory, removed afterwards.
class MovieLensFiles : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& contents) const { return dir_.write(name, contents); }
  std::string write_gzip(const std::string& name, const std::string& contents) const {
    const std::string path = dir_ / name;
    const gzFile file = gzopen(path.c_str(), "wb");
    EXPECT_NE(file, nullptr);
    EXPECT_EQ(gzwrite(file, contents.data(), unsigned(contents.size())), int(contents.size()));
    gzclose(file);
    return path;
  }
  std::string dir() const { return dir_.path().string(); }

  // Three movies, one title with a Latin-1 byte (0xE9, e acute) as in GroupLens' u.item.
  void write_items() const {
    write_gzip("u.item.gz",
               "1|Toy Story (1995)|01-Jan-1995||http://us.imdb.com/M/title-exact?Toy%20Story%20(1995)|0|0|1\n"
               "2|Mis\xE9rables, Les (1995)|01-Jan-1995||url|0|0|0\n"
               "3|unknown|||url|1|0|0\n");
  }
  // Ratings in GroupLens' layout; user 4 is the largest id.
  void write_ratings() const { write("u.data", "1\t2\t5\t881250949\n4\t1\t3\t891717742\r\n\n1\t3\t1\t878887116\n"); }

  const variate::testing::ScratchDir dir_{"movielens_" + variate::testing::current_test_name()};
};

TEST_F(MovieLensFiles, ReadsWatchesAndTitles) {
  write_items();
  write_ratings();
  const WatchData data = load_movielens_100k(dir());
  EXPECT_EQ(data.num_users, 4);
  EXPECT_EQ(data.num_movies, 3);
  EXPECT_EQ(data.watches, (std::vector<Watch>{{0, 1}, {3, 0}, {0, 2}}));  // 0-based, in file order
  EXPECT_EQ(data.titles, (std::vector<std::string>{"Toy Story (1995)", "Mis\xC3\xA9rables, Les (1995)", "unknown"}));

  EXPECT_EQ(data.watch_matrix().dtype(), DType::f64);
  EXPECT_EQ(data.watch_matrix().shape(), (Shape{4, 3}));
  EXPECT_EQ(data.watch_matrix().to_vector<double>(), (std::vector<double>{0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0}));
  EXPECT_EQ(data.watch_matrix(DType::f32).to_vector<float>(), (std::vector<float>{0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0}));
  EXPECT_ERROR(data.watch_matrix(DType::i64), "WatchData::watch_matrix: dtype i64; expected f64 or f32");
}

TEST_F(MovieLensFiles, ReadsOneRatingsFileOfASplitWithItsStars) {
  write_items();
  write("u.data", "1\t2\t5\t881250949\n");
  write_gzip("ua.base.gz", "2\t1\t4\t891717742\n1\t3\t2\t878887116\n");
  const WatchData base = load_movielens_100k(dir_ / "ua.base");  // the .gz beside the name given
  EXPECT_EQ(base.num_users, 2);
  EXPECT_EQ(base.num_movies, 3);
  EXPECT_EQ(base.watches, (std::vector<Watch>{{1, 0}, {0, 2}}));
  EXPECT_EQ(base.titles.size(), 3u);
  const std::vector<Rating> stars = read_movielens_ratings(dir_ / "ua.base", 3);
  ASSERT_EQ(stars.size(), 2u);
  EXPECT_EQ((std::vector<int>{int(stars[0].user), int(stars[0].movie), stars[0].stars}), (std::vector<int>{1, 0, 4}));
  EXPECT_EQ((std::vector<int>{int(stars[1].user), int(stars[1].movie), stars[1].stars}), (std::vector<int>{0, 2, 2}));
  EXPECT_ERROR(read_movielens_ratings(dir_ / "ua.base", 2),
               "ua.base.gz:2: item id 3 is beyond the 2 movies of u.item; expected 1..2");
  EXPECT_ERROR(load_movielens_100k(dir_ / "ua.test"), "no folder or ratings file '" + (dir_ / "ua.test") + "'");
}

TEST_F(MovieLensFiles, MissingFiles) {
  const std::string data = dir_ / "u.data";
  EXPECT_ERROR(load_movielens_100k(dir()), "load_movielens_100k: no file '" + data + ".gz' or '" + data + "'");
  write_ratings();
  EXPECT_ERROR(load_movielens_100k(dir()), "no file '" + (dir_ / "u.item") + ".gz'");
}

TEST_F(MovieLensFiles, RatingErrorsNameTheLine) {
  write_items();
  const std::string path = dir_ / "u.data";
  const auto expect_error = [&](const std::string& ratings, const std::string& message) {
    write("u.data", ratings);
    EXPECT_ERROR(load_movielens_100k(dir()), "load_movielens_100k: " + path + message);
  };
  expect_error("1\t2\t5\t881250949\n1 3 4 881250949\n",
               ":2: found 1 tab-separated fields, expected 4: user id, item id, rating, timestamp");
  expect_error("1\t2\t5\n", ":1: found 3 tab-separated fields, expected 4");
  expect_error("x\t2\t5\t881250949\n", ":1: user id 'x' is not an integer");
  expect_error("0\t2\t5\t881250949\n", ":1: user id 0 is out of range, expected 1..");
  expect_error("1\t2.5\t5\t881250949\n", ":1: item id '2.5' is not an integer");
  expect_error("1\t4\t5\t881250949\n",
               ":1: item id 4 is beyond the 3 movies of " + (dir_ / "u.item.gz") + "; expected 1..3");
  expect_error("1\t2\t6\t881250949\n", ":1: rating 6 is out of range, expected 1..5");
  expect_error("1\t2\t5\t-1\n", ":1: timestamp -1 is out of range, expected 0..");
  expect_error("1\t2\t5\t\n", ":1: timestamp '' is not an integer");
  expect_error("1\t2\t5\t1\n2\t2\t5\t1\n1\t2\t4\t2\n",
               ":3: user 1 rates item 2 again (first on line 1); expected each pair once");
  expect_error("\n \n", ": no ratings; expected tab-separated lines 'user item rating timestamp'");
  // Ids size a dense users x movies matrix: 2^31 would ask for terabytes.
  expect_error("2147483648\t2\t5\t881250949\n", ":1: user id 2147483648 is out of range, expected 1..2147483647");
  expect_error("1\t2\t5\t1\n2147483647\t3\t5\t1\n",
               ":2: user id 2147483647 is larger than the 3 lines of ratings in the file; expected ids 1, 2, ...");
}

TEST_F(MovieLensFiles, TitleErrorsNameTheLine) {
  write_ratings();
  const std::string path = dir_ / "u.item";
  write("u.item", "1|Toy Story (1995)\n3|Heat (1995)\n");
  EXPECT_ERROR(load_movielens_100k(dir()),
               "load_movielens_100k: " + path + ":2: movie id 3 is out of range, expected 2..2");
  write("u.item", "1|Toy Story (1995)\nHeat (1995)\n");
  EXPECT_ERROR(load_movielens_100k(dir()), path + ":2: expected 'movie id|title|...' fields separated by '|'");
  write("u.item", "");
  EXPECT_ERROR(load_movielens_100k(dir()), path + ": no movies");
}

// ---------------------------------------------------------------------------------------------
// The real MovieLens-100K files, where the shared data folder is present (see its README.md)

TEST(MovieLens, Reads100KWithItsPublishedCounts) {
  const std::string directory = VARIATE_SOURCE_DIR "/../shared/data/movielens-100k";
  if (!std::filesystem::exists(directory)) GTEST_SKIP() << "no MovieLens-100K files in " << directory;
  const WatchData data = load_movielens_100k(directory);
  EXPECT_EQ(data.num_users, 943);
  EXPECT_EQ(data.num_movies, 1682);
  EXPECT_EQ(data.watches.size(), 100000u);
  ASSERT_EQ(data.titles.size(), 1682u);
  EXPECT_EQ(data.titles[0], "Toy Story (1995)");
  EXPECT_EQ(data.titles[542], "Mis\xC3\xA9rables, Les (1995)");  // id 543, Latin-1 in the file
  EXPECT_EQ(data.watches.front(), (Watch{195, 241}));            // the first line: 196 242 3 881250949

  const Tensor matrix = data.watch_matrix(DType::f32);
  EXPECT_EQ(matrix.shape(), (Shape{943, 1682}));
  const float* cells = matrix.data<float>();
  EXPECT_EQ(std::count(cells, cells + matrix.numel(), 1.0f), 100000);
  // GroupLens' README: every user rated at least 20 movies.
  for (std::int64_t u = 0; u < 943; ++u) {
    ASSERT_GE(std::count(cells + u * 1682, cells + (u + 1) * 1682, 1.0f), 20) << "user " << u;
  }
}

// ---------------------------------------------------------------------------------------------
// The synthetic matrix

std::vector<std::int64_t> counts_per(const WatchData& data, bool users) {
  std::vector<std::int64_t> counts(std::size_t(users ? data.num_users : data.num_movies), 0);
  for (const Watch& w : data.watches) ++counts[std::size_t(users ? w.user : w.movie)];
  return counts;
}

std::int64_t median(std::vector<std::int64_t> v) {
  std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
  return v[v.size() / 2];
}

TEST(SyntheticWatchMatrix, HasMovieLens1MSizeAndHeavyTailedActivity) {
  const WatchData data = synthetic_watch_matrix(random::Key(2024));
  EXPECT_EQ(data.num_users, 6040);
  EXPECT_EQ(data.num_movies, 3706);
  ASSERT_EQ(data.titles.size(), 3706u);
  EXPECT_EQ(data.titles[17], "movie 17");

  // The offset makes the expected count 1000209 (to within about 1, see movielens.cpp), and the
  // count is a sum of independent Bernoullis whose variance sum p (1 - p) is below that mean:
  // its standard deviation is under 1001, and 6 of them bound a false failure at 2e-9 for a seed.
  EXPECT_NEAR(double(data.watches.size()), 1000209.0, 6 * 1001.0);

  // Row-major order, each cell once, in range.
  EXPECT_TRUE(std::is_sorted(data.watches.begin(), data.watches.end(), [](const Watch& a, const Watch& b) {
    return a.user != b.user ? a.user < b.user : a.movie < b.movie;
  }));
  EXPECT_EQ(std::adjacent_find(data.watches.begin(), data.watches.end()), data.watches.end());
  EXPECT_GE(data.watches.front().user, 0);
  EXPECT_LT(data.watches.back().user, 6040);

  // Heavy tails, as in MovieLens-1M, where the most active user rated 24 times the median user's
  // count (2314 / 96) and the most watched movie 28 times the median movie's (3428 / 123.5). The
  // log-normal activity and popularity give about 12 and 25 here; a model without them (every
  // cell at 4.5%) would give ratios near 1.2.
  const std::vector<std::int64_t> users = counts_per(data, true), movies = counts_per(data, false);
  EXPECT_GT(double(*std::max_element(users.begin(), users.end())), 8.0 * double(median(users)));
  EXPECT_GT(double(*std::max_element(movies.begin(), movies.end())), 8.0 * double(median(movies)));
}

TEST(SyntheticWatchMatrix, IsDeterministicForAKey) {
  const WatchData a = synthetic_watch_matrix(random::Key(7), 300, 200, 3000, 4);
  const WatchData b = synthetic_watch_matrix(random::Key(7), 300, 200, 3000, 4);
  const WatchData other = synthetic_watch_matrix(random::Key(8), 300, 200, 3000, 4);
  EXPECT_EQ(a.watches, b.watches);
  EXPECT_NE(a.watches, other.watches);
  // The same tolerance argument as above: sd < sqrt(3000) = 55.
  EXPECT_NEAR(double(a.watches.size()), 3000.0, 6 * 55.0);
  EXPECT_NEAR(double(other.watches.size()), 3000.0, 6 * 55.0);

  const Tensor matrix = a.watch_matrix();
  EXPECT_EQ(matrix.shape(), (Shape{300, 200}));
  const std::vector<double> cells = matrix.to_vector<double>();
  EXPECT_EQ(std::count(cells.begin(), cells.end(), 1.0), std::ptrdiff_t(a.watches.size()));
}

TEST(SyntheticWatchMatrix, DenseTargetsAndNoEmbeddings) {
  // Most cells ones, and latent_dim 0 (biases only), still hit the target.
  const WatchData dense = synthetic_watch_matrix(random::Key(3), 100, 100, 9000, 0);
  EXPECT_NEAR(double(dense.watches.size()), 9000.0, 6 * 95.0);  // sd < sqrt(9000)
}

TEST(SyntheticWatchMatrix, ArgumentErrors) {
  const random::Key key(1);
  EXPECT_ERROR(synthetic_watch_matrix(key, 0, 10, 5, 2),
               "synthetic_watch_matrix: num_users 0 and num_movies 10; expected both >= 1");
  EXPECT_ERROR(synthetic_watch_matrix(key, 10, -1, 5, 2), "num_movies -1; expected both >= 1");
  EXPECT_ERROR(synthetic_watch_matrix(key, 10, 10, 5, -1), "synthetic_watch_matrix: latent_dim -1; expected >= 0");
  EXPECT_ERROR(synthetic_watch_matrix(key, 10, 10, 0, 2),
               "synthetic_watch_matrix: target_ones 0; expected between 0 and");
  EXPECT_ERROR(synthetic_watch_matrix(key, 10, 10, 100, 2),
               "target_ones 100; expected between 0 and num_users * "
               "num_movies = 100, both excluded");
}

}  // namespace
}  // namespace variate::data
