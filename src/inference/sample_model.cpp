#include "variate/inference/sample_model.hpp"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>

#include "variate/core/error.hpp"
#include "variate/data/output_folder.hpp"
#include "variate/inference/draw_columns.hpp"
#include "variate/inference/draw_file.hpp"
#include "variate/inference/laplace.hpp"
#include "variate/inference/predictive_columns.hpp"
#include "variate/inference/target.hpp"
#include "variate/inference/unconstrained.hpp"

namespace variate::inference {
namespace {

constexpr const char* kOp = "sample";

// The parameters in program order, then the generated quantities, as Stan's files have them.
std::vector<ColumnSite> model_sites(const Unconstrained& space) {
  std::vector<LatentSite> latent = space.sites();
  std::sort(latent.begin(), latent.end(),
            [](const auto& a, const auto& b) { return a.program_order < b.program_order; });
  std::vector<ColumnSite> sites;
  for (const LatentSite& s : latent) sites.push_back({s.name, s.shape});
  for (const GeneratedSite& g : space.generated_sites()) sites.push_back({g.name, g.shape});
  return sites;
}

void check_space(const Unconstrained& space, DType precision) {
  VARIATE_CHECK(space.shard_axis().empty(), kOp,
                "the model has sharded sites; sample it with the variate tool's sharded output");
  VARIATE_CHECK(space.dimension() >= 1, kOp, "the model has no continuous latent variables to sample");
  const DType got = space.log_density(Tensor::zeros(Shape{space.dimension()}, precision)).dtype();
  VARIATE_CHECK(got == precision, kOp, "the model computes its log density in ", name(got),
                " although the precision is ", name(precision), " (its data and constants must be ", name(precision),
                " too)");
}

}  // namespace

const ChainDraws& ModelSample::column(std::string_view name) const {
  const auto it = std::find(columns.begin(), columns.end(), name);
  VARIATE_CHECK(it != columns.end(), "ModelSample::column", "no column named '", name, "'");
  return values[std::size_t(it - columns.begin())];
}

ModelSample sample(const tracing::Program& model, const tracing::Values& data, const ModelSampleOptions& options) {
  const SamplerOptions& s = options.sampler;
  const tracing::Program program = data.empty() ? model : tracing::Program([model, data] {
    tracing::Condition given(data);
    model();
  });
  const Unconstrained space(program);
  check_space(space, options.precision);
  const std::int64_t dim = space.dimension();
  ModelSample out;
  SamplerOptions sampler = options.sampler;
  std::optional<LaplaceApproximation> laplace;
  if (options.laplace) {
    VARIATE_CHECK(options.precision == DType::f64, kOp,
                  "the Laplace start differences the gradient in f64; precision is ", name(options.precision));
    VARIATE_CHECK(s.checkpoint_every == 0 && s.resume.empty() && s.warm_start.empty(), kOp,
                  "the Laplace start cannot be combined with checkpoints, resuming or warm starts (they would hold "
                  "whitened positions)");
    LaplaceStart start = laplace_start(program, s.chains, random::fold_in(random::Key(s.seed), "laplace"));
    out.initialization_gradients = start.gradients();
    start.place_chains(sampler);
    laplace = std::move(start.approximation);
  }
  const Target model_target = make_target(space, options.precision);
  const Target target = laplace ? laplace->whiten(model_target) : model_target;
  std::optional<LaplaceDraws> whitened;
  if (laplace) whitened.emplace(*laplace, s.chains);

  const PredictiveColumns predictive(program, space.constrain(Tensor::zeros(Shape{dim})),
                                     {.predictive = options.predictive, .log_likelihood = options.log_likelihood},
                                     random::Key(s.seed));
  std::vector<ColumnSite> sites = model_sites(space);
  sites.insert(sites.end(), predictive.sites().begin(), predictive.sites().end());
  const SiteColumns site_cols = site_columns(sites);
  out.columns = sampler_columns(s.algorithm);
  const std::size_t sampler_width = out.columns.size();
  out.columns.insert(out.columns.end(), site_cols.names.begin(), site_cols.names.end());

  const auto is_chain_file = [&](std::string_view file) { return data::is_chain_file(file, options.name); };
  const std::filesystem::path dir =
      options.output.empty()
          ? ""
          : data::prepare_run_folder(options.output, is_chain_file, options.overwrite, kOp, "set overwrite");
  std::vector<std::unique_ptr<DrawFile>> files;
  for (int c = 0; c < s.chains; ++c) {
    const std::string path =
        options.output.empty() ? "" : (dir / (options.name + "-" + std::to_string(c + 1) + ".csv")).string();
    auto config =
        sample_config_lines(s, {.model = options.name, .data_file = options.data_file, .chain = c, .path = path});
    config.emplace_back("precision", name(options.precision));
    config.emplace_back("vectorized", s.vectorized ? "1" : "0");
    files.push_back(std::make_unique<DrawFile>(path, config, out.columns));
    if (!path.empty()) out.files.push_back(path);
  }

  const bool adapting = s.adapt && s.num_warmup > 0;
  std::vector<char> adaptation_written(std::size_t(s.chains), 0);
  std::vector<std::vector<double>> rows(std::size_t(s.chains), std::vector<double>(out.columns.size()));
  // Threaded chains call this concurrently, each for its own chain: it touches only that chain's parts.
  out.result = sample(target, sampler, [&](const Draw& z) {
    if (z.warmup) return;
    const Draw d = whitened ? whitened->to_model(z) : z;
    DrawFile& file = *files[std::size_t(d.chain)];
    if (adapting && !adaptation_written[std::size_t(d.chain)]) {
      file.write_adaptation({d.stats->step_size, d.metric->reported_inverse(), d.metric->kind() == MetricKind::dense});
      adaptation_written[std::size_t(d.chain)] = 1;
    }
    const Tensor position = Tensor::from(d.position, Shape{dim});
    tracing::Values values = space.constrain(position);
    predictive.add(values, d.chain, file.rows());
    if (!space.generated_sites().empty()) values.merge(space.generated_quantities(position));
    std::vector<double>& row = rows[std::size_t(d.chain)];
    fill_sampler_columns(s.algorithm, *d.stats, row.data());
    fill_site_columns(site_cols, values, row.data() + sampler_width);
    file.write_row(row);
  });
  for (int c = 0; c < s.chains; ++c) {
    const ChainResult& r = out.result.chains[std::size_t(c)];
    files[std::size_t(c)]->close(r.warmup_seconds, r.sampling_seconds);
  }
  if (whitened) whitened->to_model(out.result);

  for (std::size_t j = 0; j < out.columns.size(); ++j) {
    ChainDraws column;
    for (const auto& file : files) column.push_back(file->column(j));
    out.values.push_back(std::move(column));
  }
  out.sampler = summarize_sampler(out.result, s);
  if (!out.result.interrupted) {
    out.summary.push_back(summarize("lp__", out.values[0]));
    for (std::size_t j = sampler_width; j < out.columns.size(); ++j)
      out.summary.push_back(summarize(out.columns[j], out.values[j]));
  }
  return out;
}

}  // namespace variate::inference
