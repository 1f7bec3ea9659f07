#pragma once
// Columns computed at every kept draw for posterior predictive checks and LOO, written after the
// parameters and generated quantities as Stan users write them in generated quantities:
//   - `<site>_rep`: a posterior predictive draw of each observed site (Stan's y_rep; ArviZ's
//     from_cmdstan(posterior_predictive="y_rep")), the site's shape;
//   - `log_lik`: the pointwise log-likelihood of every observed site, the sites' elements one after
//     the other in program order, each site's in Stan's column-major order (log_lik.1 ... log_lik.N;
//     the name the loo package's extract_log_lik and from_cmdstan(log_likelihood="log_lik") use).
// Observed sites are the data given by Condition; a factor is no observation.
//
//   PredictiveColumns extra(model, latent, {.predictive = true, .log_likelihood = true}, random::Key(seed));
//   extra.sites();                                   // y_rep, log_lik: their columns follow the parameters
//   extra.add(values, chain, draw);                  // values: the draw's latent values
#include <cstdint>
#include <string>
#include <vector>

#include "variate/inference/draw_columns.hpp"
#include "variate/random/key.hpp"
#include "variate/tracing/program.hpp"

namespace variate::inference {

/// Which extra columns to write with each draw: replicated data and pointwise log-likelihoods.
struct PredictiveColumnsOptions {
  bool predictive = false;      // <site>_rep
  bool log_likelihood = false;  // log_lik
};

/// Computes the posterior-predictive and log-likelihood columns of a draw.
class PredictiveColumns {
 public:
  /// Traces `program` once at the latent values `latent` to find its observed sites. With either
  /// option, throws variate::Error if the program observes nothing or if a column's site name is
  /// already a site of the program, or (predictive) if a site's draws do not have its data's shape
  /// (a distribution broadcast against its data); log_lik is not supported for a program with an
  /// enumerated site.
  PredictiveColumns(tracing::Program program, const tracing::Values& latent, PredictiveColumnsOptions options,
                    random::Key key);

  /// The sites whose columns are added, in column order: every `<site>_rep`, then `log_lik`.
  const std::vector<ColumnSite>& sites() const { return sites_; }
  /// Adds the values of sites() at the latent values in `values` (and nothing else). The predictive
  /// draw of chain `chain`'s kept draw `draw` uses its own key, fold_in(fold_in(key, chain), draw),
  /// so it does not depend on the order the chains run in.
  void add(tracing::Values& values, int chain, std::int64_t draw) const;

 private:
  void check_draw_shapes(const tracing::Values& drawn) const;
  tracing::Program program_;
  PredictiveColumnsOptions options_;
  random::Key key_;
  std::vector<std::string> observed_;  // in program order
  std::vector<ColumnSite> sites_;
  std::int64_t log_lik_size_ = 0;
};

}  // namespace variate::inference
