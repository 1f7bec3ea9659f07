// `variate sample` and the library's inference::sample(model, data, options) are one sampler: the
// same model, options and seed give the same draws from either (threaded and vectorized chains).
// The tool's default metric (auto) is the library's low-rank Fisher metric.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"
#include "variate/inference/sample_model.hpp"
#include "variate/models/builtin.hpp"

namespace {

using variate::testing::CliOutcome;
using variate::testing::draw_lines;
using variate::testing::run_cli;
using variate::testing::ScratchDir;

void expect_same_draws(bool vectorize) {
  const ScratchDir dir(vectorize ? "cli_api_vectorized" : "cli_api_threaded");
  const CliOutcome tool = run_cli("sample --model eight-schools --chains 2 --warmup 150 --draws 60 --seed 9" +
                                  std::string(vectorize ? " --vectorize" : "") + " --output " + (dir / "tool"));
  ASSERT_EQ(tool.exit_code, 0) << tool.output;

  const variate::models::Definition model = variate::models::builtin_definition("eight-schools");
  variate::inference::ModelSampleOptions options;
  options.sampler.chains = 2;
  options.sampler.num_warmup = 150;
  options.sampler.num_draws = 60;
  options.sampler.seed = 9;
  options.sampler.vectorized = vectorize;
  options.sampler.metric = variate::inference::MetricKind::low_rank;
  options.sampler.metric_adaptation = variate::inference::MetricAdaptation::fisher;
  options.output = dir / "api";
  options.name = "eight-schools";
  variate::inference::sample(model.program, {}, options);

  for (const char* chain : {"1", "2"}) {
    const auto expected = draw_lines(dir / ("tool/eight-schools-" + std::string(chain) + ".csv"));
    ASSERT_EQ(expected.size(), 60u);
    EXPECT_EQ(draw_lines(dir / ("api/eight-schools-" + std::string(chain) + ".csv")), expected) << "chain " << chain;
  }
}

TEST(SampleApiCli, TheToolAndTheLibraryGiveTheSameDrawsThreaded) { expect_same_draws(false); }
TEST(SampleApiCli, TheToolAndTheLibraryGiveTheSameDrawsVectorized) { expect_same_draws(true); }

}  // namespace
