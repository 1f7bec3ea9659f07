#pragma once
// The latents of a `variate sample --model movielens --save-all` run read back from its output
// folder: per draw the embeddings U and V and the biases, enough to recompute every prediction.
//
//   FactorRun run = read_factor_run("variate-output", 42);   // only user 42's rows of U and b_user
//   double logit = run.draws.logit(s, 0, m);                   // draw s, user 42, movie m
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace variate::cli {

/// U [users x rank], V [movies x rank], b_user [users] and b_movie [movies] for each of `count`
/// draws, draw-major: u[(s * users + i) * rank + k].
struct FactorDraws {
  std::int64_t count = 0, users = 0, movies = 0, rank = 0;
  std::vector<double> u, v, b_user, b_movie;

  /// logit P(user i watches movie m) at draw s: U_i . V_m + b_user_i + b_movie_m.
  double logit(std::int64_t s, std::int64_t i, std::int64_t m) const;
  /// The posterior means of U, V and the biases, as one draw.
  FactorDraws means() const;
};

/// A run's draws with what they came from.
struct FactorRun {
  std::string model;           // the chain files' model: movielens
  std::string data;            // the data the run read (its --data, or the model's default folder)
  std::int64_t all_users = 0;  // the run's users; draws.users is 1 when read for one user
  FactorDraws draws;
};

/// Reads every chain file `<model>-<n>.csv` of a movielens run in `dir` (the draws of all chains,
/// pooled), all users or only `user` (0-based). Throws variate::Error for a folder without such
/// files, files of another model, a user beyond the run's, and files without the columns of u and
/// v (a run without --save-all, or with --sharded-draws per-device), saying how to rerun.
FactorRun read_factor_run(const std::string& dir, std::optional<std::int64_t> user);

}  // namespace variate::cli
