#include "summary_job.hpp"

#include <iostream>

#include "run_draws.hpp"
#include "variate/inference/summary.hpp"
#include "write_file.hpp"

namespace variate::cli {

int run_summary_job(const SummaryJobOptions& o, std::ostream& out) {
  const RunDraws run = read_run_draws(o.files, "summary", std::cerr);
  out << "Inference for Stan CSV: " << run.chains.size() << (run.chains.size() == 1 ? " chain" : " chains") << ", "
      << run.draws << " draws each\n";
  for (const std::string& note : run.notes) out << "note: " << note << '\n';

  const std::vector<inference::ParameterSummary> rows = summarize_run(run);
  out << '\n';
  inference::write_summary_table(out, rows);
  const inference::SamplerSummary sampler = summarize_run_sampler(run);
  out << "\nSampler diagnostics:\n";
  inference::write_sampler_diagnostics(out, sampler);

  if (!o.csv.empty()) write_file("summary", o.csv, [&](std::ostream& f) { inference::write_summary_csv(f, rows); });
  if (!o.json.empty())
    write_file("summary", o.json, [&](std::ostream& f) { inference::write_summary_json(f, rows, sampler); });
  return 0;
}

}  // namespace variate::cli
