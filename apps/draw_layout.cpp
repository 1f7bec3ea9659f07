#include "draw_layout.hpp"

#include <algorithm>
#include <functional>

#include "netcdf_draws.hpp"
#include "shard_output.hpp"
#include "variate/core/error.hpp"
#include "variate/data/output_folder.hpp"

namespace variate::cli {
namespace {

bool is_saved(const Model& model, const std::string& site, bool every_site) {
  return every_site || model.saved_sites.empty() ||
         std::find(model.saved_sites.begin(), model.saved_sites.end(), site) != model.saved_sites.end();
}

// The saved sites (all latent sites when the model names none, or with `every_site`) with this
// device's shapes, in the program's order, so that the columns do not depend on how many devices ran it.
std::vector<SavedSite> local_saved_sites(const Model& model, const inference::Unconstrained& space, bool every_site) {
  std::vector<inference::LatentSite> sites = space.sites();
  std::sort(sites.begin(), sites.end(), [](const auto& a, const auto& b) { return a.program_order < b.program_order; });
  std::vector<SavedSite> saved;
  for (const inference::LatentSite& s : sites) {
    if (!is_saved(model, s.name, every_site)) continue;
    const auto dims = s.shape.dims();
    saved.push_back({s.name, std::vector<std::int64_t>(dims.begin(), dims.end()), s.sharded});
  }
  // Generated quantities (Deterministic sites) follow the parameters, as in Stan's files.
  for (const inference::GeneratedSite& g : space.generated_sites()) {
    if (!is_saved(model, g.name, every_site)) continue;
    const auto dims = g.shape.dims();
    saved.push_back({g.name, std::vector<std::int64_t>(dims.begin(), dims.end()), false});
  }
  return saved;
}

// Gives `saved` their unsharded shapes, from one gathered draw.
void gather_shapes(const inference::Unconstrained& space, std::vector<SavedSite>& saved) {
  const std::int64_t dim = space.dimension();
  tracing::Values gathered = space.constrain_gathered(Tensor::zeros(Shape{dim}));
  if (!space.generated_sites().empty()) gathered.merge(space.generated_quantities(Tensor::zeros(Shape{dim})));
  for (SavedSite& s : saved) {
    const auto dims = gathered.at(s.name).shape().dims();
    s.shape.assign(dims.begin(), dims.end());
  }
}

// `sites` (without the sharded ones unless `with_sharded`); their shapes must be the unsharded ones.
std::vector<inference::ColumnSite> written(const std::vector<SavedSite>& sites, bool with_sharded) {
  std::vector<inference::ColumnSite> columns;
  for (const SavedSite& s : sites)
    if (!s.sharded || with_sharded) columns.push_back({s.name, Shape(s.shape)});
  return columns;
}

}  // namespace

DrawLayout plan_draw_layout(const SampleContext& job) {
  DrawLayout layout;
  std::vector<SavedSite> saved = local_saved_sites(job.model, job.space, job.options.save_all);
  const bool any_sharded = std::any_of(saved.begin(), saved.end(), [](const SavedSite& s) { return s.sharded; });
  // Without a sharded saved site there is nothing to leave on the devices: per-device is gather.
  layout.per_device = job.options.sharded_draws == "per-device" && any_sharded;
  layout.sharded_draws = layout.per_device ? "per-device" : "gather";
  if (layout.per_device) {
    layout.plan.emplace(saved, job.space.shard_axis());
    saved = layout.plan->sites();
  } else {
    gather_shapes(job.space, saved);
  }
  const SampleJobOptions& o = job.options;
  if (o.predictive || o.log_lik) {
    const tracing::Values latent = job.space.constrain(Tensor::zeros(Shape{job.space.dimension()}));
    layout.predictive.emplace(
        job.model.program, latent,
        inference::PredictiveColumnsOptions{.predictive = o.predictive, .log_likelihood = o.log_lik},
        random::Key(o.seed));
    for (const inference::ColumnSite& s : layout.predictive->sites()) {
      const auto dims = s.shape.dims();
      saved.push_back({s.name, std::vector<std::int64_t>(dims.begin(), dims.end()), false});
    }
  }
  layout.all_sites = inference::site_columns(written(saved, true));
  layout.main_shapes = written(saved, !layout.per_device);
  layout.main_sites = inference::site_columns(layout.main_shapes);
  layout.columns = inference::sampler_columns(job.sampler.algorithm);
  layout.sampler_width = layout.columns.size();
  layout.columns.insert(layout.columns.end(), layout.main_sites.names.begin(), layout.main_sites.names.end());
  if (layout.per_device) {
    layout.shard_columns = layout.plan->column_names(job.at.device);
    for (std::size_t i = 0; i < saved.size(); ++i)
      if (saved[i].sharded) layout.shard_order.emplace_back(saved[i].name, layout.plan->local_order(i, job.at.device));
  }
  return layout;
}

inference::SiteColumns saved_columns(const Model& model, const inference::Unconstrained& space) {
  std::vector<SavedSite> saved = local_saved_sites(model, space, false);
  gather_shapes(space, saved);
  return inference::site_columns(written(saved, true));
}

namespace {

// Device files (per-device layout) are not a run's: the other devices write theirs concurrently,
// and the new manifest lists which belong to the new run.
std::function<bool(std::string_view)> sample_run_files(const std::string& model) {
  return [model](std::string_view name) {
    return data::is_chain_file(name, model) || name == manifest_file_name(model) || name == netcdf_file_name(model) ||
           name == "summary.csv" || name == "summary.json" || name == "report.html";
  };
}

}  // namespace

std::filesystem::path prepare_sample_output(const std::string& dir, const std::string& model, bool overwrite) {
  return data::prepare_run_folder(dir, sample_run_files(model), overwrite, "sample", "pass --overwrite");
}

void check_sample_output(const std::string& dir, const std::string& model, bool overwrite) {
  data::check_run_folder(dir, sample_run_files(model), overwrite, "sample", "pass --overwrite");
}

}  // namespace variate::cli
