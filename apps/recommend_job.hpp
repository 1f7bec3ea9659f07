#pragma once
// `variate recommend DIR`: from the draws of a `variate sample --model movielens --save-all` run,
// one user's top movies with how sure the posterior is of each (--user), or the held-out
// evaluation of the posterior predictive against the plug-in point estimate (--evaluate).
#include <cstdint>
#include <ostream>
#include <string>

namespace variate::cli {

struct RecommendJobOptions {
  std::string dir;
  std::int64_t user = 0;  // 1-based, as in u.data; 0: none given
  std::int64_t top = 10;
  bool exclude_rated = false;  // leave out the movies the user rated in the run's data
  double interval = 0.9;       // the central interval of each score
  bool evaluate = false;
  std::string test;  // the withheld ratings; empty: <split>.test beside the run's <split>.base
  std::string data;  // the MovieLens data the run read; empty: as its files record
  std::string json;  // also write the result to this JSON file
};

/// Prints the result to `out`; returns 0. Throws variate::Error for bad options, a folder without
/// MovieLens draws or without the embeddings, and data that does not match the draws.
int run_recommend_job(const RecommendJobOptions& options, std::ostream& out);

}  // namespace variate::cli
