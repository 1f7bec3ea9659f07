#include "recommend.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <span>

#include "variate/core/error.hpp"
#include "variate/inference/diagnostics.hpp"
#include "variate/tensor/prim.hpp"
#include "variate/tensor/tensor.hpp"

namespace variate::cli {
namespace {

double sigmoid(double x) { return x >= 0 ? 1 / (1 + std::exp(-x)) : std::exp(x) / (1 + std::exp(x)); }

// Draw s's P(watched) for every cell, users x movies, row-major.
std::vector<double> cell_probabilities(const FactorDraws& d, std::int64_t s) {
  const Tensor u =
      Tensor::from(std::span<const double>(d.u.data() + s * d.users * d.rank, std::size_t(d.users * d.rank)),
                   Shape{d.users, d.rank});
  const Tensor v =
      Tensor::from(std::span<const double>(d.v.data() + s * d.movies * d.rank, std::size_t(d.movies * d.rank)),
                   Shape{d.movies, d.rank});
  const Tensor products = prim::matmul(u, v, false, true);
  std::vector<double> p(std::size_t(d.users * d.movies));
  const double* uv = products.data<double>();
  for (std::int64_t i = 0; i < d.users; ++i)
    for (std::int64_t m = 0; m < d.movies; ++m) {
      const std::size_t cell = std::size_t(i * d.movies + m);
      p[cell] = sigmoid(uv[cell] + d.b_user[std::size_t(s * d.users + i)] + d.b_movie[std::size_t(s * d.movies + m)]);
    }
  return p;
}

HeldOutScores score(const std::vector<double>& p, const data::WatchData& training,
                    const std::vector<data::Rating>& withheld, std::int64_t movies) {
  std::vector<char> rated(p.size(), 0);  // in training or withheld: not a negative of auc_watched
  for (const data::Watch& w : training.watches) rated[std::size_t(w.user * movies + w.movie)] = 1;
  HeldOutScores s;
  std::vector<double> watched, liked, disliked;
  for (const data::Rating& r : withheld) {
    const double x = p[std::size_t(r.user * movies + r.movie)];
    rated[std::size_t(r.user * movies + r.movie)] = 1;
    s.log_likelihood += std::log(x);
    watched.push_back(x);
    (r.stars >= 4 ? liked : disliked).push_back(x);
  }
  s.log_likelihood /= double(withheld.size());
  std::vector<double> unwatched;
  for (std::size_t cell = 0; cell < p.size(); ++cell)
    if (!rated[cell]) unwatched.push_back(p[cell]);
  s.auc_watched = auc(watched, unwatched);
  s.auc_liked = auc(liked, disliked);
  return s;
}

}  // namespace

std::vector<Recommendation> recommend(const FactorDraws& d, std::int64_t user, const std::vector<char>& excluded,
                                      std::int64_t k, double interval) {
  std::vector<std::int64_t> candidates;
  for (std::int64_t m = 0; m < d.movies; ++m)
    if (!excluded[std::size_t(m)]) candidates.push_back(m);
  const auto n = std::int64_t(candidates.size());
  VARIATE_CHECK(k >= 1 && k <= n, "recommend", "--top ", k, " is out of range: expected 1..", n,
                " (the movies that can be recommended)");
  VARIATE_CHECK(interval > 0 && interval < 1, "recommend", "--interval ", interval,
                " is out of range: expected a probability strictly between 0 and 1");
  // scores[c][s]: candidate c's score at draw s.
  std::vector<std::vector<double>> scores(candidates.size(), std::vector<double>(std::size_t(d.count)));
  std::vector<std::int64_t> in_top(candidates.size(), 0);
  std::vector<std::pair<double, std::int64_t>> ranked(candidates.size());  // (-score, candidate): best first
  for (std::int64_t s = 0; s < d.count; ++s) {
    for (std::size_t c = 0; c < candidates.size(); ++c) {
      scores[c][std::size_t(s)] = sigmoid(d.logit(s, user, candidates[c]));
      ranked[c] = {-scores[c][std::size_t(s)], std::int64_t(c)};
    }
    std::nth_element(ranked.begin(), ranked.begin() + (k - 1), ranked.end());
    for (std::int64_t j = 0; j < k; ++j) ++in_top[std::size_t(ranked[std::size_t(j)].second)];
  }
  std::vector<Recommendation> all;
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    const std::vector<double>& x = scores[c];
    Recommendation r;
    r.movie = candidates[c];
    r.mean = std::accumulate(x.begin(), x.end(), 0.0) / double(x.size());
    r.lower = inference::quantile(x, (1 - interval) / 2);
    r.upper = inference::quantile(x, (1 + interval) / 2);
    r.in_top = double(in_top[c]) / double(d.count);
    all.push_back(r);
  }
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.mean > b.mean; });
  all.resize(std::size_t(k));
  return all;
}

HeldOutEvaluation evaluate_held_out(const FactorDraws& d, const data::WatchData& training,
                                    const std::vector<data::Rating>& withheld) {
  VARIATE_CHECK(training.num_users <= d.users && training.num_movies == d.movies, "recommend", "the run's data has ",
                training.num_users, " users and ", training.num_movies, " movies, its draws ", d.users, " and ",
                d.movies);
  VARIATE_CHECK(!withheld.empty(), "recommend", "no withheld ratings to evaluate on");
  std::vector<char> trained(std::size_t(d.users * d.movies), 0);
  for (const data::Watch& w : training.watches) trained[std::size_t(w.user * d.movies + w.movie)] = 1;
  for (const data::Rating& r : withheld) {
    VARIATE_CHECK(r.user < d.users, "recommend", "withheld rating of user ", r.user + 1, ": the run has ", d.users,
                  " users");
    VARIATE_CHECK(!trained[std::size_t(r.user * d.movies + r.movie)], "recommend", "user ", r.user + 1,
                  "'s rating of movie ", r.movie + 1,
                  " is withheld but also in the run's data: the run did not leave it out, so it cannot test it");
  }
  HeldOutEvaluation e;
  e.draws = d.count;
  e.withheld = std::int64_t(withheld.size());
  e.liked = std::count_if(withheld.begin(), withheld.end(), [](const data::Rating& r) { return r.stars >= 4; });
  e.unwatched = d.users * d.movies - std::int64_t(training.watches.size()) - e.withheld;
  std::vector<double> mean(std::size_t(d.users * d.movies), 0.0);
  for (std::int64_t s = 0; s < d.count; ++s) {
    const std::vector<double> p = cell_probabilities(d, s);
    for (std::size_t cell = 0; cell < p.size(); ++cell) mean[cell] += p[cell];
  }
  for (double& x : mean) x /= double(d.count);
  e.posterior = score(mean, training, withheld, d.movies);
  e.point = score(cell_probabilities(d.means(), 0), training, withheld, d.movies);
  return e;
}

double auc(const std::vector<double>& positive, const std::vector<double>& negative) {
  VARIATE_CHECK(!positive.empty() && !negative.empty(), "auc", "needs positives and negatives, got ", positive.size(),
                " and ", negative.size());
  std::vector<std::pair<double, bool>> all;  // (score, positive)
  for (double x : positive) all.emplace_back(x, true);
  for (double x : negative) all.emplace_back(x, false);
  std::sort(all.begin(), all.end());
  double positive_ranks = 0;  // 1-based ranks, ties given their average rank
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    const double rank = double(i + 1 + j) / 2;
    for (std::size_t t = i; t < j; ++t) positive_ranks += all[t].second ? rank : 0;
    i = j;
  }
  const auto p = double(positive.size()), n = double(negative.size());
  return (positive_ranks - p * (p + 1) / 2) / (p * n);
}

}  // namespace variate::cli
