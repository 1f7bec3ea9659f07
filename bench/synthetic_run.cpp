// Writes a run's output folder as `variate sample` writes it, with synthetic draws, to time
// `variate report` on a model of any size (issue 26: the MNIST softmax regression's output, 7,850
// parameters W [784 x 10] and b [10], 4 chains x 4,000 draws, reported in under 10 s):
//
//   build/bench/synthetic_run /tmp/mnist-run                      # 7850 parameters, 4 x 4000 draws
//   build/bench/synthetic_run /tmp/small-run --rows=20 --draws=500
//   time build/variate report /tmp/mnist-run
//
// Each parameter is an AR(1) series (autocorrelation 0.6) around its own mean; every 97th parameter
// has chains centered apart (R-hat well above 1.01) so that the report has problems to put first.
// The sampler columns have plausible values (a few divergent transitions, tree depths 3 to 6).
// As `variate sample`, it writes summary.csv and summary.json beside the chain files.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "variate/data/stan_csv.hpp"
#include "variate/inference/draw_file.hpp"
#include "variate/inference/summary.hpp"

namespace {

struct Size {
  std::int64_t rows = 784, classes = 10;  // W [rows x classes] and b [classes]
  int chains = 4;
  std::int64_t draws = 4000;
};

std::vector<std::string> columns(const Size& size) {
  std::vector<std::string> names = {"lp__",         "accept_stat__", "stepsize__", "treedepth__",
                                    "n_leapfrog__", "divergent__",   "energy__"};
  const std::int64_t w_shape[] = {size.rows, size.classes};
  for (auto& n : variate::data::stan_column_names("W", w_shape)) names.push_back(n);
  const std::int64_t b_shape[] = {size.classes};
  for (auto& n : variate::data::stan_column_names("b", b_shape)) names.push_back(n);
  return names;
}

// kept[column][chain][draw]: every value written, for the summary.
using Kept = std::vector<variate::inference::ChainDraws>;

void write_chain(const std::filesystem::path& dir, const Size& size, int chain, Kept& kept,
                 variate::inference::SamplerSummary& sampler) {
  variate::inference::SamplerOptions options;
  options.chains = size.chains;
  options.num_draws = size.draws;
  const std::string path = (dir / ("mnist-softmax-" + std::to_string(chain + 1) + ".csv")).string();
  const std::vector<std::string> names = columns(size);
  const std::size_t parameters = names.size() - 7;
  variate::data::StanCsvWriter out(
      path,
      variate::inference::sample_config_lines(
          options, {.model = "mnist-softmax", .data_file = "synthetic", .chain = chain, .path = path}),
      names);
  std::mt19937_64 random(1000 + std::uint64_t(chain));
  std::normal_distribution<double> normal;
  const double step_size = 0.01 * (1 + 0.1 * chain);
  out.write_adaptation({step_size, std::vector<double>(parameters, 0.5), false});
  std::vector<double> state(parameters, 0.0), row(names.size());
  for (std::int64_t i = 0; i < size.draws; ++i) {
    double sum_squares = 0;
    for (std::size_t j = 0; j < parameters; ++j) {
      state[j] = 0.6 * state[j] + 0.8 * normal(random);
      const double center = 0.01 * double(j % 100) + (j % 97 == 0 ? 0.5 * chain : 0.0);
      row[7 + j] = center + 0.1 * state[j];
      sum_squares += state[j] * state[j];
    }
    const int depth = 3 + int(random() % 4);
    row[0] = -0.5 * sum_squares;                                                                       // lp__
    row[1] = 0.6 + 0.4 * std::fabs(std::tanh(normal(random)));                                         // accept_stat__
    row[2] = step_size;                                                                                // stepsize__
    row[3] = depth;                                                                                    // treedepth__
    row[4] = double((1 << depth) - 1);                                                                 // n_leapfrog__
    row[5] = random() % 500 == 0 ? 1 : 0;                                                              // divergent__
    row[6] = -row[0] + 0.5 * double(parameters) + std::sqrt(double(parameters) / 2) * normal(random);  // energy__
    out.write_row(row);
    for (std::size_t j = 0; j < row.size(); ++j) kept[j][std::size_t(chain)].push_back(row[j]);
  }
  out.write_timing(60, 60);
  sampler.divergences.push_back(0);
  for (double d : kept[5][std::size_t(chain)]) sampler.divergences.back() += d != 0 ? 1 : 0;
  sampler.ebfmi.push_back(variate::inference::ebfmi(kept[6][std::size_t(chain)]));
  sampler.step_sizes.push_back(step_size);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') {
    std::fprintf(stderr, "usage: synthetic_run DIR [--rows=784] [--classes=10] [--chains=4] [--draws=4000]\n");
    return 2;
  }
  Size size;
  for (int i = 2; i < argc; ++i) {
    const char* value = std::strchr(argv[i], '=');
    const std::int64_t n = value ? std::atoll(value + 1) : 0;
    if (n <= 0) {
      std::fprintf(stderr, "synthetic_run: %s: expected --name=<positive whole number>\n", argv[i]);
      return 2;
    }
    if (std::strncmp(argv[i], "--rows=", 7) == 0)
      size.rows = n;
    else if (std::strncmp(argv[i], "--classes=", 10) == 0)
      size.classes = n;
    else if (std::strncmp(argv[i], "--chains=", 9) == 0)
      size.chains = int(n);
    else if (std::strncmp(argv[i], "--draws=", 8) == 0)
      size.draws = n;
    else {
      std::fprintf(stderr, "synthetic_run: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  const std::vector<std::string> names = columns(size);
  Kept kept(names.size(), variate::inference::ChainDraws(std::size_t(size.chains)));
  variate::inference::SamplerSummary sampler;
  sampler.draws_per_chain = int(size.draws);
  for (int c = 0; c < size.chains; ++c) write_chain(dir, size, c, kept, sampler);
  // lp__ and the parameters, as `variate sample` summarizes them.
  std::vector<variate::inference::ParameterSummary> rows(names.size() - 6);
#pragma omp parallel for schedule(dynamic, 16)
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const std::size_t j = k == 0 ? 0 : k + 6;
    rows[k] = variate::inference::summarize(names[j], kept[j]);
  }
  std::ofstream csv(dir / "summary.csv"), json(dir / "summary.json");
  variate::inference::write_summary_csv(csv, rows);
  variate::inference::write_summary_json(json, rows, sampler);
  std::printf("%s: %d chains x %lld draws of %lld parameters\n", dir.c_str(), size.chains,
              static_cast<long long>(size.draws), static_cast<long long>(size.rows * size.classes + size.classes));
  return 0;
}
