#include "draw_writer.hpp"

#include "sample_config.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/data/output_folder.hpp"
#include "variate/distribute/collectives.hpp"

namespace variate::cli {
namespace {

// The inverse metric over every device's coordinates: the replicated ones, then each device's own
// in device order (a collective when the metric is sharded).
std::vector<double> gathered_inverse_metric(const inference::Metric& m) {
  if (!m.sharded()) return m.reported_inverse();
  const auto r = std::size_t(m.replicated_dimension());
  const std::vector<double> own(m.inverse().begin() + std::ptrdiff_t(r), m.inverse().end());
  const Tensor all = distribute::all_gather(Tensor::from(own, Shape{std::int64_t(own.size())}), m.shard_axis(), 0);
  std::vector<double> out(m.inverse().begin(), m.inverse().begin() + std::ptrdiff_t(r));
  out.insert(out.end(), all.data<double>(), all.data<double>() + all.numel());
  return out;
}

}  // namespace

DrawWriter::DrawWriter(const SampleContext& job, const DrawLayout& layout, const std::filesystem::path& dir)
    : job_(job),
      layout_(layout),
      adapting_(job.sampler.adapt && job.sampler.num_warmup > 0),
      report_(job.model.report && !layout.per_device),
      chains_(std::size_t(job.options.chains)) {
  const int devices = job.at.devices;
  // Other ranks' machines need the folder for their own files.
  if (layout.per_device && !job.at.writer() && !layout.shard_columns.empty())
    data::make_output_folder(job.options.output, "sample");
  ManifestInfo manifest;
  manifest.model = job.model.name;
  manifest.chains = job.options.chains;
  manifest.draws = (job.options.draws + job.options.thin - 1) / job.options.thin;
  manifest.ranks = job.at.ranks;
  manifest.device_files.resize(std::size_t(devices));
  for (int c = 0; c < job.options.chains; ++c) open_chain(c, dir, manifest);
  if (job.at.writer() && writes_netcdf(job.options.output_format))
    netcdf_ = std::make_unique<NetcdfDraws>(job, layout, dir / netcdf_file_name(job.model.name));
  if (layout.per_device && job.at.writer())
    write_manifest((dir / manifest_file_name(job.model.name)).string(), manifest, *layout.plan);
}

void DrawWriter::open_chain(int c, const std::filesystem::path& dir, ManifestInfo& manifest) {
  const SampleJobOptions& o = job_.options;
  const Placement& at = job_.at;
  const std::string& model = job_.model.name;
  const std::string name = model + "-" + std::to_string(c + 1) + ".csv";
  // Without CSV output the main rows are only kept, for the summaries.
  const std::string path = writes_csv(o.output_format) ? (dir / name).string() : std::string();
  ChainOutput& chain = chains_[std::size_t(c)];
  if (at.writer())
    chain.main = std::make_unique<inference::DrawFile>(
        path, config_lines(o, job_.model, job_.sampler, c, path, at.threads, at.devices, layout_.sharded_draws),
        layout_.columns);
  chain.row.resize(layout_.columns.size());
  manifest.main_files.push_back(name);
  if (!layout_.per_device) return;
  for (int d = 0; d < at.devices; ++d)
    if (!layout_.plan->column_names(d).empty())  // device d holds rows: it writes files
      manifest.device_files[std::size_t(d)].push_back(device_file_name(model, d, c));
  if (layout_.shard_columns.empty()) return;  // this device holds no rows: no file
  const std::string shard_path = (dir / device_file_name(model, at.device, c)).string();
  chain.shard =
      std::make_unique<inference::DrawFile>(shard_path,
                                            config_lines(o, job_.model, job_.sampler, c, shard_path, at.threads,
                                                         at.devices, layout_.sharded_draws, at.device),
                                            layout_.shard_columns);
  chain.shard_row.resize(layout_.shard_columns.size());
}

void DrawWriter::write(const inference::Draw& d) {
  // CmdStan's thinning: of each run of `thin` draws after warm-up, the first is kept.
  if (d.warmup || (d.iteration - job_.sampler.num_warmup) % job_.options.thin != 0) return;
  ChainOutput& chain = chains_[std::size_t(d.chain)];
  // gather: every device takes part in gathering the sharded sites' values (and, at the first
  // draw, the metric), and only the writer keeps them. per-device: no collective here.
  const inference::Unconstrained& space = job_.space;
  const Tensor position = Tensor::from(d.position, Shape{space.dimension()});
  tracing::Values values = layout_.per_device ? space.constrain(position) : space.constrain_gathered(position);
  if (layout_.predictive) layout_.predictive->add(values, d.chain, chain.count);
  if (!space.generated_sites().empty()) values.merge(space.generated_quantities(position));
  if (adapting_ && !chain.adaptation_written) write_adaptation(chain, d);  // warm-up has just ended
  if (chain.shard) write_shard_row(chain, values);
  if (job_.at.writer()) write_main_row(d.chain, *d.stats, values);
  ++chain.count;
}

void DrawWriter::write_adaptation(ChainOutput& chain, const inference::Draw& d) const {
  VARIATE_CHECK(d.metric, "sample", "the sampler did not report chain ", d.chain + 1, "'s adapted metric");
  const bool dense = d.metric->kind() == inference::MetricKind::dense;
  const bool writer = job_.at.writer();
  if (layout_.per_device) {  // the replicated coordinates' metric in the main file, each device's own in its file
    const std::vector<double>& m = d.metric->inverse();
    const auto r = std::ptrdiff_t(d.metric->replicated_dimension());
    if (writer) chain.main->write_adaptation({d.stats->step_size, {m.begin(), m.begin() + r}, dense});
    if (chain.shard && std::ptrdiff_t(m.size()) > r)
      chain.shard->write_adaptation({d.stats->step_size, {m.begin() + r, m.end()}, false});
  } else {
    const std::vector<double> inverse = gathered_inverse_metric(*d.metric);
    if (writer) chain.main->write_adaptation({d.stats->step_size, inverse, dense});
  }
  chain.adaptation_written = true;
}

void DrawWriter::write_shard_row(ChainOutput& chain, const tracing::Values& values) const {
  std::size_t k = 0;
  for (const auto& [site, order] : layout_.shard_order) {
    const Tensor v = cast(values.at(site), DType::f64);
    for (std::int64_t index : order) chain.shard_row[k++] = v.data<double>()[index];
  }
  chain.shard->write_row(chain.shard_row);
}

void DrawWriter::write_main_row(int c, const inference::TransitionStats& s, const tracing::Values& values) {
  ChainOutput& chain = chains_[std::size_t(c)];
  inference::fill_sampler_columns(job_.sampler.algorithm, s, chain.row.data());
  inference::fill_site_columns(layout_.main_sites, values, chain.row.data() + layout_.sampler_width);
  if (report_) job_.model.report->add_draw(values);
  chain.main->write_row(chain.row);
  if (netcdf_) netcdf_->write(c, s, values);
}

void DrawWriter::close(const inference::SampleResult& result) {
  for (std::size_t c = 0; c < chains_.size(); ++c) {
    ChainOutput& chain = chains_[c];
    const inference::ChainResult& r = result.chains[c];
    if (chain.main) chain.main->close(r.warmup_seconds, r.sampling_seconds);
    if (chain.shard) chain.shard->close(r.warmup_seconds, r.sampling_seconds);
  }
  if (netcdf_) netcdf_->close();
}

inference::ChainDraws DrawWriter::column(const std::vector<ChainOutput>& chains,
                                         std::unique_ptr<inference::DrawFile> ChainOutput::*file, std::size_t column) {
  inference::ChainDraws draws;
  for (const ChainOutput& chain : chains) draws.push_back((chain.*file)->column(column));
  return draws;
}

inference::ChainDraws DrawWriter::main_column(std::size_t j) const { return column(chains_, &ChainOutput::main, j); }

inference::ChainDraws DrawWriter::shard_column(std::size_t j) const { return column(chains_, &ChainOutput::shard, j); }

std::vector<std::int64_t> DrawWriter::kept() const {
  std::vector<std::int64_t> counts;
  for (const ChainOutput& chain : chains_) counts.push_back(chain.count);
  return counts;
}

}  // namespace variate::cli
