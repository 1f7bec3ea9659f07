#include "sample_job.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <thread>

#include "draw_layout.hpp"
#include "draw_writer.hpp"
#include "held_out_report.hpp"
#include "laplace_init.hpp"
#include "models.hpp"
#include "netcdf_draws.hpp"
#include "pathfinder_init.hpp"
#include "progress.hpp"
#include "report/report_job.hpp"
#include "sample_checkpoints.hpp"
#include "sample_config.hpp"
#include "sample_context.hpp"
#include "sample_report.hpp"
#include "sample_timing.hpp"
#include "shard_output.hpp"
#include "stop_signals.hpp"
#include "variate/data/data_fingerprint.hpp"
#include "variate/distribute/collectives.hpp"
#include "variate/distribute/mesh.hpp"
#include "variate/inference/laplace.hpp"
#include "variate/inference/sample_memory.hpp"
#include "variate/inference/sampler.hpp"
#include "variate/inference/target.hpp"
#include "variate/inference/unconstrained.hpp"
#include "warm_start.hpp"

namespace variate::cli {
namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

DType dtype_of(const SampleJobOptions& o) { return o.precision == "f32" ? DType::f32 : DType::f64; }

// Whether the model can be sampled as asked: continuous latents, and a log density computed in the
// requested precision (--precision f32 is only worth it if the whole density computes in f32: a
// prior or a datum left in f64 would promote everything back; checked on one position or batch).
void check_model(const SampleContext& job) {
  const SampleJobOptions& o = job.options;
  const Model& model = job.model;
  const inference::Unconstrained& space = job.space;
  const std::int64_t dim = space.dimension();
  double all_dims = double(dim);  // a device may hold no rows of a sharded site: count every device's
  if (!space.shard_axis().empty()) distribute::psum_in_place({&all_dims, 1}, space.shard_axis(), "dimension check");
  VARIATE_CHECK(all_dims >= 1, "sample", "model '", model.name, "' has no continuous latent variables to sample");
  const Shape shape = o.vectorize ? Shape{o.chains, dim} : Shape{dim};
  const DType got = space.log_density(Tensor::zeros(shape, dtype_of(o))).dtype();
  VARIATE_CHECK(got == dtype_of(o), "sample", "model '", model.name, "' computes its log density in ", name(got),
                " although --precision is ", o.precision);
  VARIATE_CHECK(!model.predict || space.shard_axis().empty(), "sample", "model '", model.name,
                "' predicts from its draws but has sharded latent sites");
  VARIATE_CHECK(space.generated_sites().empty() || space.shard_axis().empty(), "sample", "model '", model.name,
                "' has generated quantities and sharded latent sites; writing both is not supported");
  VARIATE_CHECK(!(o.predictive || o.log_lik) || job.at.devices == 1, "sample",
                "--predictive and --log-lik need the whole data set on one device; they are not supported with ",
                "--devices ", job.at.devices);
}

// Before anything sized by the run is allocated: whether the machine has the memory the run needs
// (its data are loaded, so the memory available excludes them).
void check_memory(const SampleContext& job, const DrawLayout& layout) {
  const SampleJobOptions& o = job.options;
  const std::optional<double> available = inference::available_memory_bytes();
  const inference::MetricKind metric = job.sampler.metric;
  inference::SampleMemory need = inference::estimate_sample_memory(
      o.chains, o.draws, job.space.dimension(), std::int64_t(layout.columns.size()), metric, job.sampler.fisher);
  if (o.init == "laplace") need.initialization = inference::LaplaceApproximation::peak_bytes(job.space.dimension());
  if (!available || need.total() <= *available) return;
  using inference::byte_text;
  const std::string why = metric == inference::MetricKind::dense
                              ? "a dense metric is dimension^2 per chain"
                              : "the low-rank metric's warm-up keeps about " +
                                    std::to_string(std::int64_t(inference::low_rank_rows(job.sampler.fisher))) +
                                    " x dimension numbers per chain";
  const std::string laplace = need.initialization > 0 ? ", " + byte_text(need.initialization) +
                                                            " for the Laplace approximation (12 x dimension^2)"
                                                      : std::string();
  detail::fail("sample: the run needs about ", byte_text(need.total()), " of memory (", byte_text(need.draws),
               " for the kept draws, ", byte_text(need.metric), " for the metric", laplace, ") but the machine has ",
               byte_text(*available), " available; ",
               need.initialization > need.draws + need.metric ? std::string("use --init random or pathfinder")
               : need.metric > need.draws
                   ? "use --metric diag (" + why + ") or fewer --chains"
                   : std::string("lower --draws or --chains (every kept draw is held in memory)"));
}

// The run's description, before the files are opened.
void print_plan(std::ostream& out, const SampleContext& job, const DrawLayout& layout) {
  const SampleJobOptions& o = job.options;
  const Model& model = job.model;
  const std::int64_t dim = job.space.dimension();
  out << "variate sample: " << model.name << ", " << model.description << '\n'
      << "data: " << model.data << '\n'
      << "sampler: "
      << (job.nuts()                                             ? "NUTS"
          : job.sampler.algorithm == inference::Algorithm::chees ? "ChEES-HMC"
                                                                 : "static HMC")
      << ", " << o.metric << " metric, " << o.chains << " chains x (" << o.warmup << " warm-up + " << o.draws
      << " draws"
      << (o.thin > 1 ? ", thin " + std::to_string(o.thin) + ": every " + std::to_string(o.thin) + "-th written" : "")
      << "), seed " << o.seed << ", " << (o.vectorize ? "vectorized (one batch), " : "");
  if (job.at.devices > 1) out << job.at.devices << " devices (data split over them) x ";
  out << job.at.threads << " threads, " << dim << (dim == 1 ? " parameter" : " parameters")
      << (job.space.shard_axis().empty() ? "" : " on device 0 (sharded)") << ", log density in " << o.precision << '\n';
  if (o.sharded_draws == "per-device" && !layout.per_device)
    out << "note: --sharded-draws per-device: no saved site is sharded" << (job.at.devices > 1 ? "" : " (one device)")
        << ", so every draw goes to the main files as with gather\n";
  if (!model.unsaved.empty() && !job.options.save_all) {
    std::string names;
    for (const auto& n : layout.all_sites.sites) names += (names.empty() ? "" : ", ") + n;
    out << "saved: " << names << " (" << model.unsaved << ")\n";
  }
  if (model.report && layout.per_device)
    out << "note: the model's report reads every draw of the sharded sites in one place, so "
           "--sharded-draws per-device skips it (run with gather for it)\n";
}

void print_files(std::ostream& out, const Model& model, const std::string& format, bool per_device,
                 const fs::path& dir) {
  std::string files;
  if (writes_csv(format)) files = (dir / (model.name + "-<chain>.csv")).string();
  if (writes_netcdf(format)) files += (files.empty() ? "" : ", ") + (dir / netcdf_file_name(model.name)).string();
  out << "output: " << files;
  if (per_device)
    out << ", each device's rows of the sharded sites in " << model.name << ".device<k>-<chain>.csv, listed in "
        << manifest_file_name(model.name) << ",";
  out << " summary.csv, summary.json in " << dir.string() << '\n' << std::flush;
}

// The HTML report of the main chain files (the devices' files of --sharded-draws per-device are not
// read: their columns are summarized in summary.csv).
void write_run_report(std::ostream& out, const std::string& model, int chains, const fs::path& dir) {
  ReportJobOptions report;
  report.output = (dir / "report.html").string();
  for (int c = 1; c <= chains; ++c) report.paths.push_back((dir / (model + "-" + std::to_string(c) + ".csv")).string());
  write_report(report, out);
}

// Summaries, diagnostics, the model's own report and accuracy, the summary files and the timing.
void report(std::ostream& out, const SampleContext& job, const DrawLayout& layout, const DrawWriter& draws,
            const inference::SampleResult& result, std::vector<inference::ParameterSummary> sharded,
            const fs::path& dir, Clock::time_point wall_start) {
  const std::vector<inference::ParameterSummary> all = summarize_draws(draws, layout, std::move(sharded));
  const SampleJobOptions& o = job.options;
  print_parameter_summary(out, job.model,
                          std::to_string(o.chains) + " chains x " + std::to_string(draws.kept()[0]) + " draws", all,
                          dir / "summary.csv");
  const inference::SamplerSummary sampler = inference::summarize_sampler(result, job.sampler);
  out << "\nsampler diagnostics:\n";
  inference::write_sampler_diagnostics(out, sampler);
  if (job.model.report && !layout.per_device) job.model.report->print(out);
  if (job.model.predict) print_held_out_accuracy(out, job, result, draws.kept()[0]);
  write_summary_files(dir, all, sampler);
  if (o.report) write_run_report(out, job.model.name, o.chains, dir);
  print_timing(out, job, result, wall_start, layout.per_device, dir);
}

// The job on one device: every device of a mesh runs it (the sampler's collectives keep them in
// step); only the writer (device 0) prints and writes the main files. Outside a mesh it is the
// writer. With --sharded-draws per-device every device also writes its rows of the sharded sites.
int sample_on_device(const SampleContext& job, std::ostream& out, std::ostream& progress_out, bool terminal,
                     Clock::time_point wall_start) {
  const SampleJobOptions& o = job.options;
  const bool writer = job.at.writer();
  const inference::Target model_target = inference::make_target(job.space, dtype_of(o));
  const inference::Target target = job.laplace ? job.laplace->whiten(model_target) : model_target;
  check_model(job);
  const DrawLayout layout = plan_draw_layout(job);
  VARIATE_CHECK(!layout.per_device || !writes_netcdf(o.output_format), "sample", "--output-format ", o.output_format,
                " writes every site to one file: use it with --sharded-draws gather (per-device writes CSV files)");
  check_memory(job, layout);
  inference::SamplerOptions sampler = job.sampler;
  if (!o.init_from.empty()) sampler.warm_start = read_warm_starts(job);
  std::optional<SampleCheckpoints> checkpoints;  // a resume checks them before the folder is touched
  if (o.checkpoint_every > 0 || !o.resume.empty()) checkpoints.emplace(job);
  const fs::path dir = writer ? prepare_sample_output(o.output, job.model.name, o.overwrite || !o.resume.empty())
                              : fs::path(o.output);  // after the data: a data error leaves no folder
  print_plan(out, job, layout);
  DrawWriter draws(job, layout, dir);
  print_files(out, job.model, o.output_format, layout.per_device, dir);
  if (checkpoints) {
    checkpoints->attach(sampler);
    checkpoints->describe(out);
    checkpoints->replay([&](const inference::Draw& d) { draws.write(d); });
  }

  Progress progress(progress_out, progress_style(o.progress, o.quiet, terminal), o.chains, o.warmup, o.draws);
  sampler.stop = StopSignalScope::flag();
  std::optional<inference::LaplaceDraws> whitened;
  if (job.laplace) whitened.emplace(*job.laplace, o.chains);
  inference::SampleResult result = inference::sample(target, sampler, [&](const inference::Draw& z) {
    // Warm-up positions are neither written nor shown: only kept draws are mapped back.
    const inference::Draw d = whitened && !z.warmup ? whitened->to_model(z) : z;
    draws.write(d);
    if (checkpoints) checkpoints->log(d);
    if (d.warmup || writer) progress.update(d);
  });
  if (whitened) whitened->to_model(result);
  if (checkpoints) {
    checkpoints->finish();
    checkpoints->prepend_replayed(result);
  }
  progress.finish();
  draws.close(result);

  // per-device: each device summarizes its own columns, and the summaries (not the draws) are
  // gathered once. Every device agrees on `interrupted`, so all or none take part.
  std::vector<inference::ParameterSummary> sharded;
  if (layout.per_device && !result.interrupted) {
    std::vector<inference::ParameterSummary> mine;
    for (std::size_t j = 0; j < layout.shard_columns.size(); ++j)
      mine.push_back(inference::summarize(layout.shard_columns[j], draws.shard_column(j)));
    sharded = gather_summaries(mine, *layout.plan);
  }
  if (!writer) return result.interrupted ? StopSignalScope::exit_status() : 0;
  if (result.interrupted) {
    print_interrupted(progress_out, job, draws.kept(), layout.per_device, dir);
    if (checkpoints) progress_out << "continue it with the same options and --resume " << o.output << '\n';
    return StopSignalScope::exit_status();
  }
  report(out, job, layout, draws, result, std::move(sharded), dir, wall_start);
  return 0;
}

}  // namespace

int run_sample_job(const SampleJobOptions& options, std::ostream& out, std::ostream& progress_out, bool terminal) {
  const auto wall_start = Clock::now();
  SampleJobOptions o = options;
  if (!o.resume.empty()) o.output = o.resume;  // a resumed run goes on in its own folder
  o.metric = chosen_metric(o);                 // what the files, the plan and the checkpoints record
  check_output_format(o.output_format);
  VARIATE_CHECK(!o.report || writes_csv(o.output_format), "sample",
                "--report reads the CSV files: use it with --output-format csv or both");
  inference::SamplerOptions so = sampler_options(o);
  const Model model = make_model(o.model, {.data_path = o.data, .model_file = o.model_file, .dtype = dtype_of(o)});
  const bool mpi = distribute::launched_with_mpi();
  VARIATE_CHECK(o.init == "random" || !mpi, "sample", "--init ", o.init, " is not supported under mpirun");
  if (o.devices == 1 && !mpi) {
    const int threads = o.threads > 0 ? o.threads : int(std::max(1u, std::thread::hardware_concurrency()));
    const inference::Unconstrained space(model.program);
    // Before the stop handlers: Pathfinder and the Laplace approximation do not poll their flag, and
    // until the chains start there is nothing to keep, so a stop signal ends the run at once.
    if (o.init != "random") {
      // The initializations take minutes on large models: what would refuse the run after them is
      // checked first, without creating the folder.
      const SampleContext before{o, model, so, space, {.threads = threads}, nullptr};
      check_model(before);
      check_memory(before, plan_draw_layout(before));
      check_sample_output(o.output, model.name, o.overwrite || !o.resume.empty());
    }
    if (o.init == "pathfinder") init_from_pathfinder(model, o.seed, so, out);
    std::optional<inference::LaplaceApproximation> laplace;
    if (o.init == "laplace") laplace = init_from_laplace(o, model, so, out);
    const StopSignalScope stop_signals;  // the sampler polls the flag
    return sample_on_device({o, model, so, space, {.threads = threads}, laplace ? &*laplace : nullptr}, out,
                            progress_out, terminal, wall_start);
  }
  const StopSignalScope stop_signals;  // for every device: the sampler polls the flag, and the devices agree on it
  // Devices (threads, or MPI ranks x threads under mpirun), each running the whole job on its shard of
  // the data; the kernels of a device get --threads threads, or its share of the cores. Device 0
  // (on rank 0) writes.
  distribute::Mesh mesh = mpi ? distribute::Mesh::mpi("data", o.devices) : distribute::Mesh(o.devices, "data");
  const int threads = o.threads > 0 ? o.threads : mesh.threads_per_device();
  const int ranks = mesh.size() / mesh.local_device_count();
  // Each rank read --data on its own machine: the same shapes but other values would run to the end.
  const std::uint64_t data_fingerprint = mpi ? data::data_fingerprint(o.data) : 0;
  const std::vector<int> codes = mesh.run([&] {
    if (mpi) distribute::check_replicated(data_fingerprint, "data", "sample: the data each MPI rank read (--data)");
    const Placement at{
        .device = distribute::axis_index("data"), .devices = mesh.size(), .ranks = ranks, .threads = threads};
    std::ostream discard(nullptr);                        // one per device: streams are not thread-safe
    const inference::Unconstrained space(model.program);  // on the device: it traces the device's shard
    return sample_on_device({o, model, so, space, at}, at.writer() ? out : discard,
                            at.writer() ? progress_out : discard, at.writer() && terminal, wall_start);
  });
  return codes[0];
}

}  // namespace variate::cli
