#pragma once
// The columns of a Stan CSV file of draws, in CmdStan's layout: the sampler's columns (lp__ ...
// energy__), then every saved site's elements named as Stan names them (`beta.2.1`), in Stan's
// column-major order. The tool's files and inference::sample's are laid out by these functions.
//
//   SiteColumns sites = site_columns({{"mu", Shape{}}, {"theta", Shape{8}}});   // mu, theta.1 ... theta.8
//   std::vector<double> row(sampler_columns(Algorithm::nuts).size() + sites.names.size());
//   fill_sampler_columns(Algorithm::nuts, stats, row.data());
//   fill_site_columns(sites, values, row.data() + sampler_columns(Algorithm::nuts).size());
#include <cstdint>
#include <string>
#include <vector>

#include "variate/inference/sampler.hpp"
#include "variate/tracing/handlers.hpp"

namespace variate::inference {

/// A site whose value is written, one column per element.
struct ColumnSite {
  std::string name;
  Shape shape;
};

/// The columns of some sites, and for each site the row-major offset of each of its columns'
/// elements in its tensor.
struct SiteColumns {
  std::vector<std::string> names;
  std::vector<std::string> sites;
  std::vector<std::vector<std::int64_t>> order;  // per site
};

/// CmdStan's sampler columns: lp__, accept_stat__, stepsize__, treedepth__, n_leapfrog__,
/// divergent__, energy__ for NUTS; lp__, accept_stat__, stepsize__, int_time__, energy__ for
/// static HMC.
const std::vector<std::string>& sampler_columns(Algorithm algorithm);

/// The columns of `sites`, in order.
SiteColumns site_columns(const std::vector<ColumnSite>& sites);

/// Writes a transition's values of sampler_columns(algorithm) to out[0...].
void fill_sampler_columns(Algorithm algorithm, const TransitionStats& stats, double* out);

/// Writes the values of `columns`' sites to out[0...], one per column, in Stan's column order.
/// Throws variate::Error naming a site that `values` lacks.
void fill_site_columns(const SiteColumns& columns, const tracing::Values& values, double* out);

}  // namespace variate::inference
