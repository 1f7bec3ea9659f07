// Fuzzes read_stan_csv, the reader of Stan's CSV output (seeds: corpus/stan_csv).
#include <cmath>
#include <set>
#include <string>

#include "fuzz_support.hpp"
#include "variate/data/stan_csv.hpp"

namespace {

void check(const variate::data::StanCsv& csv) {
  using variate::fuzz::expect;
  expect(!csv.columns.empty(), "no columns");
  const std::set<std::string> names(csv.columns.begin(), csv.columns.end());
  expect(names.size() == csv.columns.size() && !names.begin()->empty(), "column names empty or repeated");
  for (const auto* rows : {&csv.draws, &csv.warmup_draws}) {
    for (const auto& row : *rows) expect(row.size() == csv.columns.size(), "a row without one value per column");
  }
  expect(csv.column(csv.columns.back()).size() == csv.draws.size(), "a column's length is not the number of draws");
  const auto& metric = csv.adaptation.inverse_metric;
  if (csv.adaptation.dense) {
    const auto d = static_cast<std::size_t>(std::llround(std::sqrt(static_cast<double>(metric.size()))));
    expect(d * d == metric.size(), "a dense metric that is not square");
  }
  expect(csv.has_adaptation || (csv.adaptation.step_size == 0 && metric.empty()),
         "adaptation values without an adaptation block");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const variate::fuzz::InputFolder folder;
  const std::string path = folder.write("output.csv", variate::fuzz::as_text(data, size));
  variate::fuzz::run_loader([&] { check(variate::data::read_stan_csv(path)); });
  return 0;
}
