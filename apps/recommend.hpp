#pragma once
// What `variate recommend` computes from a MovieLens run's draws (factor_draws.hpp): one user's
// top movies with the posterior's uncertainty about them, and the held-out evaluation of the
// posterior predictive against the plug-in of the posterior means.
#include <cstdint>
#include <vector>

#include "factor_draws.hpp"
#include "variate/data/movielens.hpp"

namespace variate::cli {

/// A recommended movie. Scores are P(the user watches the movie) = sigmoid(logit) at each draw.
struct Recommendation {
  std::int64_t movie = 0;       // 0-based
  double mean = 0;              // the posterior mean of the score: what the movies are ranked by
  double lower = 0, upper = 0;  // the central interval of the score (quantiles, linearly interpolated)
  double in_top = 0;            // the fraction of draws in whose own top k the movie is
};

/// The `k` candidate movies (those not `excluded`, per movie) of user row `user` of `draws` with the
/// highest posterior mean score, best first (ties: the lower movie index), each with its central
/// `interval` (in (0, 1)) of the score and how often it is in a draw's top k. Throws variate::Error
/// unless 1 <= k <= the number of candidates.
std::vector<Recommendation> recommend(const FactorDraws& draws, std::int64_t user, const std::vector<char>& excluded,
                                      std::int64_t k, double interval);

/// Held-out fit of one predictor: a score per (user, movie) cell.
struct HeldOutScores {
  double log_likelihood = 0;  // mean over the withheld ratings of log P(watched)
  double auc_watched = 0;     // withheld ratings against cells neither rated in training nor withheld
  double auc_liked = 0;       // among the withheld ratings, those of 4 or 5 stars against the rest
};

struct HeldOutEvaluation {
  HeldOutScores posterior;  // P(watched) = the mean over draws of sigmoid(logit): the posterior predictive
  HeldOutScores point;      // P(watched) = sigmoid(logit) at the posterior means of U, V and the biases
  std::int64_t withheld = 0, liked = 0, unwatched = 0, draws = 0;
};

/// Evaluates `draws` (of every user) on the `withheld` ratings, which the run's `training` data
/// left out. Throws variate::Error for a withheld rating that is also in the training data, or a
/// user or movie beyond the draws'.
HeldOutEvaluation evaluate_held_out(const FactorDraws& draws, const data::WatchData& training,
                                    const std::vector<data::Rating>& withheld);

/// The area under the ROC curve: P(score of a positive > score of a negative), ties counting 1/2
/// (the Mann-Whitney statistic). Throws variate::Error when either set is empty.
double auc(const std::vector<double>& positive, const std::vector<double>& negative);

}  // namespace variate::cli
