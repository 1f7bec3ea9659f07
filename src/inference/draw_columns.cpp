#include "variate/inference/draw_columns.hpp"

#include "variate/autodiff/ops.hpp"
#include "variate/core/error.hpp"
#include "variate/data/stan_csv.hpp"

namespace variate::inference {

const std::vector<std::string>& sampler_columns(Algorithm algorithm) {
  static const std::vector<std::string> nuts = {"lp__",         "accept_stat__", "stepsize__", "treedepth__",
                                                "n_leapfrog__", "divergent__",   "energy__"};
  static const std::vector<std::string> static_hmc = {"lp__", "accept_stat__", "stepsize__", "int_time__", "energy__"};
  // ChEES reports NUTS's columns, with tree depth 0, so that its divergences show.
  return algorithm == Algorithm::hmc ? static_hmc : nuts;
}

SiteColumns site_columns(const std::vector<ColumnSite>& sites) {
  SiteColumns columns;
  for (const ColumnSite& s : sites) {
    const auto dims = s.shape.dims();
    for (auto& n : data::stan_column_names(s.name, dims)) columns.names.push_back(std::move(n));
    columns.sites.push_back(s.name);
    columns.order.push_back(data::column_major_order(dims));
  }
  return columns;
}

void fill_sampler_columns(Algorithm algorithm, const TransitionStats& s, double* out) {
  out[0] = s.log_density;
  out[1] = s.accept_stat;
  out[2] = s.step_size;
  if (algorithm != Algorithm::hmc) {
    out[3] = s.tree_depth;
    out[4] = s.n_leapfrog;
    out[5] = s.divergent ? 1 : 0;
    out[6] = s.energy;
  } else {
    out[3] = s.step_size * s.n_leapfrog;  // int_time__
    out[4] = s.energy;
  }
}

void fill_site_columns(const SiteColumns& columns, const tracing::Values& values, double* out) {
  for (std::size_t site = 0; site < columns.sites.size(); ++site) {
    const auto it = values.find(columns.sites[site]);
    VARIATE_CHECK(it != values.end(), "fill_site_columns", "no value of site '", columns.sites[site], "'");
    const Tensor v = cast(it->second, DType::f64);
    const double* p = v.data<double>();
    for (std::int64_t index : columns.order[site]) *out++ = p[index];
  }
}

}  // namespace variate::inference
