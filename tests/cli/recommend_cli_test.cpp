// `variate recommend`: a user's top movies and the held-out evaluation, checked against a direct
// computation from hand-made draws, its errors, and `variate sample --save-all --thin` feeding it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"
#include "variate/data/stan_csv.hpp"

namespace {

using variate::testing::CliOutcome;
using variate::testing::run_cli;
using variate::testing::ScratchDir;

constexpr int kUsers = 3, kMovies = 5, kRank = 2, kChains = 2, kDrawsPerChain = 40;
constexpr int kDraws = kChains * kDrawsPerChain;

struct Rated {
  int user, movie, stars;  // 1-based ids
};
// Training ratings (mini.base) and the withheld ones (mini.test); the other 3 cells are unwatched.
const std::vector<Rated> kBase = {{1, 1, 4}, {1, 2, 3}, {2, 2, 5}, {2, 3, 2}, {3, 1, 1}, {3, 4, 4}, {3, 5, 5}};
const std::vector<Rated> kTest = {{1, 3, 5}, {1, 4, 2}, {2, 1, 4}, {2, 5, 1}, {3, 2, 3}};

std::string ratings(const std::vector<Rated>& rs) {
  std::string text;
  for (const Rated& r : rs)
    text += std::to_string(r.user) + "\t" + std::to_string(r.movie) + "\t" + std::to_string(r.stars) + "\t880000000\n";
  return text;
}

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

// Hand-made draws of U, V and the biases, written as two chain files of a movielens run.
class RecommendCli : public ::testing::Test {
 protected:
  void SetUp() override {
    data_.write("u.item",
                "1|Alpha (1990)|x\n2|Beta (1991)|x\n3|Gamma (1992)|x\n4|Delta (1993)|x\n5|Epsilon (1994)|x\n");
    data_.write("mini.base", ratings(kBase));
    data_.write("mini.test", ratings(kTest));
    std::mt19937_64 random(7);
    std::normal_distribution<double> normal;
    for (int s = 0; s < kDraws; ++s) {
      std::vector<double> draw;
      for (int j = 0; j < (kUsers + kMovies) * (kRank + 1); ++j) draw.push_back(normal(random));
      draws_.push_back(draw);
    }
    write_run(run_, data_ / "mini.base", true);
  }

  // Draw s's parameters: U (users x rank), V (movies x rank), b_user, b_movie, in that order.
  double u(int s, int i, int k) const { return draws_[std::size_t(s)][std::size_t(i * kRank + k)]; }
  double v(int s, int m, int k) const { return draws_[std::size_t(s)][std::size_t((kUsers + m) * kRank + k)]; }
  double b_user(int s, int i) const { return draws_[std::size_t(s)][std::size_t((kUsers + kMovies) * kRank + i)]; }
  double b_movie(int s, int m) const {
    return draws_[std::size_t(s)][std::size_t((kUsers + kMovies) * kRank + kUsers + m)];
  }
  double p(int s, int i, int m) const {
    double logit = b_user(s, i) + b_movie(s, m);
    for (int k = 0; k < kRank; ++k) logit += u(s, i, k) * v(s, m, k);
    return sigmoid(logit);
  }

  // Stan's column-major order for the matrices; `embeddings`: whether u and v are written.
  void write_run(const ScratchDir& dir, const std::string& data, bool embeddings) const {
    std::vector<std::string> columns = {"lp__"};
    const auto add = [&](const std::string& site, std::vector<std::int64_t> shape) {
      for (const std::string& c : variate::data::stan_column_names(site, shape)) columns.push_back(c);
    };
    if (embeddings) add("u", {kUsers, kRank}), add("v", {kMovies, kRank});
    add("b_user", {kUsers}), add("b_movie", {kMovies});
    for (int c = 0; c < kChains; ++c) {
      variate::data::StanCsvWriter out(dir / ("movielens-" + std::to_string(c + 1) + ".csv"),
                                       {{"model", "movielens"}, {"  file", data}}, columns);
      for (int t = 0; t < kDrawsPerChain; ++t) {
        const int s = c * kDrawsPerChain + t;
        std::vector<double> row = {-1.0};
        if (embeddings) {
          for (int k = 0; k < kRank; ++k)
            for (int i = 0; i < kUsers; ++i) row.push_back(u(s, i, k));
          for (int k = 0; k < kRank; ++k)
            for (int m = 0; m < kMovies; ++m) row.push_back(v(s, m, k));
        }
        for (int i = 0; i < kUsers; ++i) row.push_back(b_user(s, i));
        for (int m = 0; m < kMovies; ++m) row.push_back(b_movie(s, m));
        out.write_row(row);
      }
    }
  }

  nlohmann::json run_json(const std::string& args) const {
    const std::string json = run_ / "result.json";
    const CliOutcome r = run_cli("recommend " + run_.path().string() + " " + args + " --json " + json);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return nlohmann::json::parse(variate::testing::read_text(json));
  }

  ScratchDir data_{"recommend_data_" + variate::testing::current_test_name()};
  ScratchDir run_{"recommend_run_" + variate::testing::current_test_name()};
  std::vector<std::vector<double>> draws_;
};

// The q-quantile, linearly interpolated between order statistics.
double quantile(std::vector<double> x, double q) {
  std::sort(x.begin(), x.end());
  const double h = (double(x.size()) - 1) * q;
  const auto i = std::size_t(h);
  return i + 1 < x.size() ? x[i] + (h - double(i)) * (x[i + 1] - x[i]) : x[i];
}

TEST_F(RecommendCli, TopMoviesMatchADirectComputation) {
  for (const bool exclude : {false, true}) {
    const int user = 2, top = 2;  // user 2 rated movies 2 and 3
    const nlohmann::json j =
        run_json("--user 2 --top 2 --interval 0.8" + std::string(exclude ? " --exclude-rated" : ""));
    std::vector<int> candidates;
    for (int m = 0; m < kMovies; ++m)
      if (!exclude || (m != 1 && m != 2)) candidates.push_back(m);
    std::vector<std::pair<double, int>> by_mean;  // (-mean, movie)
    for (int m : candidates) {
      double sum = 0;
      for (int s = 0; s < kDraws; ++s) sum += p(s, user - 1, m);
      by_mean.emplace_back(-sum / kDraws, m);
    }
    std::sort(by_mean.begin(), by_mean.end());
    ASSERT_EQ(j["draws"], kDraws);
    ASSERT_EQ(j["movies"].size(), std::size_t(top));
    for (int r = 0; r < top; ++r) {
      const int m = by_mean[std::size_t(r)].second;
      const nlohmann::json& got = j["movies"][std::size_t(r)];
      EXPECT_EQ(got["movie"], m + 1) << "rank " << r + 1 << (exclude ? " excluding rated" : "");
      std::vector<double> scores;
      int in_top = 0;
      for (int s = 0; s < kDraws; ++s) {
        scores.push_back(p(s, user - 1, m));
        int better = 0;  // candidates that score higher at this draw
        for (int other : candidates) better += p(s, user - 1, other) > p(s, user - 1, m) ? 1 : 0;
        in_top += better < top ? 1 : 0;
      }
      EXPECT_NEAR(got["mean"].get<double>(), -by_mean[std::size_t(r)].first, 1e-12);
      EXPECT_NEAR(got["lower"].get<double>(), quantile(scores, 0.1), 1e-12);
      EXPECT_NEAR(got["upper"].get<double>(), quantile(scores, 0.9), 1e-12);
      EXPECT_NEAR(got["in_top"].get<double>(), double(in_top) / kDraws, 1e-12);
    }
  }
  const CliOutcome r = run_cli("recommend " + run_.path().string() + " --user 1 --top 5");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("over 80 draws"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("  Alpha (1990)\n"), std::string::npos) << r.output;  // titles from u.item
}

// Pairwise: P(positive > negative), ties 1/2.
double pairwise_auc(const std::vector<double>& positive, const std::vector<double>& negative) {
  double wins = 0;
  for (double a : positive)
    for (double b : negative) wins += a > b ? 1 : a == b ? 0.5 : 0;
  return wins / double(positive.size() * negative.size());
}

TEST_F(RecommendCli, EvaluationMatchesADirectComputation) {
  const nlohmann::json j = run_json("--evaluate");
  ASSERT_EQ(j["withheld"], kTest.size());
  EXPECT_EQ(j["liked"], 2);
  EXPECT_EQ(j["unwatched"], 3);
  // Per cell: the posterior predictive P(watched), and the plug-in of the posterior means.
  std::vector<double> mean_p(kUsers * kMovies, 0.0), point(kUsers * kMovies);
  for (int i = 0; i < kUsers; ++i)
    for (int m = 0; m < kMovies; ++m) {
      double logit = 0;  // at the posterior means
      for (int s = 0; s < kDraws; ++s) {
        mean_p[std::size_t(i * kMovies + m)] += p(s, i, m) / kDraws;
        logit += (b_user(s, i) + b_movie(s, m)) / kDraws;
      }
      for (int k = 0; k < kRank; ++k) {
        double mu_u = 0, mu_v = 0;
        for (int s = 0; s < kDraws; ++s) mu_u += u(s, i, k) / kDraws, mu_v += v(s, m, k) / kDraws;
        logit += mu_u * mu_v;
      }
      point[std::size_t(i * kMovies + m)] = sigmoid(logit);
    }
  for (const auto& [name, score] : {std::pair{"posterior", mean_p}, std::pair{"point", point}}) {
    std::vector<char> rated(kUsers * kMovies, 0);
    for (const Rated& r : kBase) rated[std::size_t((r.user - 1) * kMovies + r.movie - 1)] = 1;
    double log_lik = 0;
    std::vector<double> withheld, liked, disliked, unwatched;
    for (const Rated& r : kTest) {
      const std::size_t cell = std::size_t((r.user - 1) * kMovies + r.movie - 1);
      rated[cell] = 1;
      log_lik += std::log(score[cell]) / double(kTest.size());
      withheld.push_back(score[cell]);
      (r.stars >= 4 ? liked : disliked).push_back(score[cell]);
    }
    for (std::size_t cell = 0; cell < rated.size(); ++cell)
      if (!rated[cell]) unwatched.push_back(score[cell]);
    EXPECT_NEAR(j[name]["log_likelihood"].get<double>(), log_lik, 1e-12) << name;
    EXPECT_NEAR(j[name]["auc_watched"].get<double>(), pairwise_auc(withheld, unwatched), 1e-12) << name;
    EXPECT_NEAR(j[name]["auc_liked"].get<double>(), pairwise_auc(liked, disliked), 1e-12) << name;
  }
}

TEST_F(RecommendCli, ErrorsSayWhatWasWrong) {
  const std::string dir = run_.path().string();
  const auto fails_with = [](const std::string& args, const std::string& message) {
    const CliOutcome r = run_cli("recommend " + args);
    EXPECT_NE(r.exit_code, 0) << args;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
  };
  fails_with(dir + " --user 4", "--user 4: no such user; the run's users are 1..3");
  fails_with(dir + " --user 1 --top 6", "--top 6 is out of range: expected 1..5");
  fails_with(dir + " --user 1 --top 4 --exclude-rated", "--top 4 is out of range: expected 1..3");
  fails_with(dir, "give either --user ID");
  fails_with(data_.path().string() + " --user 1", "no MovieLens draws in");
  const ScratchDir biases("recommend_biases_only");
  write_run(biases, data_ / "mini.base", false);
  fails_with(biases.path().string() + " --user 1", "has no columns of the embeddings u and v");
  fails_with(biases.path().string() + " --user 1", "--save-all");
  const ScratchDir beyond("recommend_beyond");
  {
    std::vector<std::string> columns = {"u.1.1", "v.1.1", "b_user.1", "b_movie.1", "v.9.1"};
    variate::data::StanCsvWriter(beyond / "movielens-1.csv", {{"model", "movielens"}}, columns)
        .write_row(std::vector<double>(columns.size(), 0.5));
  }
  fails_with(beyond.path().string() + " --user 1", "column 'v.9.1' is beyond the 1 users and 1 movies of the run");
  const ScratchDir whole("recommend_whole_data");
  data_.write("u.data", ratings(kBase));
  write_run(whole, data_.path().string(), true);
  fails_with(whole.path().string() + " --evaluate", "which withholds nothing");
  fails_with(whole.path().string() + " --evaluate --test " + (data_ / "mini.base"),
             "user 1's rating of movie 1 is withheld but also in the run's data");
}

// The tool's own run: --save-all writes u and v, --thin keeps every other draw, and recommend reads it.
TEST_F(RecommendCli, SampleSaveAllThinFeedsRecommend) {
  const ScratchDir run("recommend_sample");
  const CliOutcome r =
      run_cli("sample --model movielens --data " + (data_ / "mini.base") +
              " --save-all --thin 2 --chains 1 --warmup 30 --draws 21 --seed 2 --output " + run.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto csv = variate::data::read_stan_csv(run / "movielens-1.csv");
  EXPECT_EQ(csv.draws.size(), 11u);  // draws 1, 3, ..., 21
  ASSERT_NE(csv.config_value("thin"), nullptr);
  EXPECT_EQ(*csv.config_value("thin"), "2");
  EXPECT_NE(std::find(csv.columns.begin(), csv.columns.end(), "u.3.20"), csv.columns.end());
  EXPECT_NE(std::find(csv.columns.begin(), csv.columns.end(), "v.5.20"), csv.columns.end());
  const CliOutcome top = run_cli("recommend " + run.path().string() + " --user 3 --top 2 --exclude-rated");
  ASSERT_EQ(top.exit_code, 0) << top.output;
  EXPECT_NE(top.output.find("over 11 draws"), std::string::npos) << top.output;
  const CliOutcome held_out = run_cli("recommend " + run.path().string() + " --evaluate");
  ASSERT_EQ(held_out.exit_code, 0) << held_out.output;
  EXPECT_NE(held_out.output.find("5 ratings of"), std::string::npos) << held_out.output;
}

}  // namespace
