#include "netcdf_draws.hpp"

#include <algorithm>
#include <utility>

#include "variate/autodiff/ops.hpp"
#include "variate/core/error.hpp"
#include "variate/distributions/factor.hpp"
#include "variate/tracing/program.hpp"
#include "version.hpp"

namespace variate::cli {
namespace {

// The sampler's columns and what ArviZ calls them in sample_stats (arviz.from_cmdstan's names).
struct StatName {
  const char* column;
  const char* arviz;
  DType dtype;
};
constexpr StatName kStats[] = {
    {"lp__", "lp", DType::f64},
    {"accept_stat__", "acceptance_rate", DType::f64},
    {"stepsize__", "step_size", DType::f64},
    {"treedepth__", "tree_depth", DType::i64},
    {"n_leapfrog__", "n_steps", DType::i64},
    {"divergent__", "diverging", DType::boolean},
    {"energy__", "energy", DType::f64},
    {"int_time__", "int_time", DType::f64},  // static HMC: no ArviZ name; Stan's without the "__"
};

const StatName& stat_name(const std::string& column) {
  for (const StatName& s : kStats)
    if (column == s.column) return s;
  detail::fail("sample: the sampler column '", column, "' has no netCDF name");
}

// The data the model is conditioned on: its observed sites but Factor terms, traced once at the
// latent values of the origin of the unconstrained space.
std::vector<std::pair<std::string, Tensor>> observed_data(const SampleContext& job) {
  if (job.at.devices > 1) return {};
  tracing::Trace trace;
  {
    tracing::Substitute latent(job.space.constrain(Tensor::zeros(Shape{job.space.dimension()})));
    tracing::run_program(job.model.program);
  }
  std::vector<std::pair<std::string, Tensor>> observed;
  for (const tracing::Site& s : trace.sites())
    if (s.observed && !s.intervened && dynamic_cast<const dist::Factor*>(s.distribution.get()) == nullptr)
      observed.emplace_back(s.name, s.value);
  return observed;
}

}  // namespace

bool writes_csv(const std::string& format) { return format != "netcdf"; }
bool writes_netcdf(const std::string& format) { return format != "csv"; }

void check_output_format(const std::string& format) {
  VARIATE_CHECK(format == "csv" || format == "netcdf" || format == "both", "sample", "--output-format '", format,
                "'; expected csv, netcdf or both");
  VARIATE_CHECK(!writes_netcdf(format) || data::netcdf_available(), "sample", "--output-format ", format,
                ": variate was built without netCDF (install libnetcdf-dev and build again), so it writes CSV only");
}

std::string netcdf_file_name(const std::string& model) { return model + ".nc"; }

NetcdfDraws::NetcdfDraws(const SampleContext& job, const DrawLayout& layout, const std::filesystem::path& file)
    : job_(job),
      layout_(layout),
      writer_(file.string(),
              [&] {
                data::InferenceDataLayout l;
                l.chains = job.options.chains;
                // Draws are stored in the precision the run computed in: f32 runs lose nothing as float.
                const DType dtype = job.options.precision == "f32" ? DType::f32 : DType::f64;
                for (const inference::ColumnSite& s : layout.main_shapes) {
                  const auto dims = s.shape.dims();
                  l.posterior.push_back({s.name, std::vector<std::int64_t>(dims.begin(), dims.end()), dtype});
                }
                for (const std::string& column : inference::sampler_columns(job.sampler.algorithm)) {
                  const StatName& s = stat_name(column);
                  l.sample_stats.push_back({s.arviz, {}, s.dtype});
                }
                l.observed_data = observed_data(job);
                l.inference_library_version = kVariateVersion;
                return l;
              }()),
      rows_(std::size_t(job.options.chains)) {
  std::size_t width = 0;
  for (const inference::ColumnSite& s : layout.main_shapes) width += std::size_t(s.shape.numel());
  for (ChainRow& row : rows_) {
    row.sampler.resize(layout.sampler_width);
    row.posterior.reserve(width);
  }
}

void NetcdfDraws::write(int chain, const inference::TransitionStats& stats, const tracing::Values& values) {
  ChainRow& row = rows_[std::size_t(chain)];
  inference::fill_sampler_columns(job_.sampler.algorithm, stats, row.sampler.data());
  row.posterior.clear();
  for (const inference::ColumnSite& s : layout_.main_shapes) {
    const Tensor v = cast(values.at(s.name), DType::f64);  // row-major, as the variables are stored
    row.posterior.insert(row.posterior.end(), v.data<double>(), v.data<double>() + v.numel());
  }
  writer_.write_draw(chain, row.posterior, row.sampler);
}

}  // namespace variate::cli
