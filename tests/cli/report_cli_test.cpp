// End-to-end tests of `variate report` and `variate sample --report`: the data the page embeds,
// for our output and a CmdStan CSV fixture, bad input, and the page in a real browser (headless
// Chromium, Debian's chromium): it renders without errors and its screenshot, kept in
// <build>/test-artifacts, shows the plots.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "support/png_pixels.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"

namespace {

namespace fs = std::filesystem;
using variate::testing::read_text;
using variate::testing::run_cli;

const std::string kFixture = std::string(VARIATE_SOURCE_DIR) + "/tests/cli/data/cmdstan_eight_schools";

bool vega_installed() { return fs::exists("/usr/share/javascript/vega/vega-view.min.js"); }

#define SKIP_WITHOUT_VEGA() \
  if (!vega_installed()) GTEST_SKIP() << "Debian's libjs-vega is not installed (the report inlines it)"

// The JSON of the page's <script type="application/json" id="...">.
nlohmann::json embedded_json(const std::string& page, const std::string& id) {
  const std::string open = "<script type=\"application/json\" id=\"" + id + "\">";
  const std::size_t begin = page.find(open);
  if (begin == std::string::npos) return nullptr;
  const std::size_t end = page.find("</script>", begin);
  return nlohmann::json::parse(page.substr(begin + open.size(), end - begin - open.size()));
}

// The page's data as report_data made it, joined from its parts: "report-data" holds the table's
// first page and the plotted parameters' names, "report-table" every row, "report-plots-<i>" the
// i-th parameter's plots (parsed by the page only when shown). Checks that the parts agree.
nlohmann::json page_data(const std::string& page) {
  nlohmann::json data = embedded_json(page, "report-data");
  if (!data.is_object()) return nullptr;
  const nlohmann::json rows = embedded_json(page, "report-table");
  EXPECT_EQ(data["table"]["count"], rows.size());
  const std::size_t first = std::min(data["table"]["page_rows"].get<std::size_t>(), rows.size());
  EXPECT_EQ(data["table"]["first_rows"], nlohmann::json(rows.begin(), rows.begin() + std::ptrdiff_t(first)));
  data["table"] = {{"columns", data["table"]["columns"]}, {"rows", rows}};
  nlohmann::json parameters = nlohmann::json::array();
  for (std::size_t i = 0; i < data["parameters"].size(); ++i) {
    parameters.push_back(embedded_json(page, "report-plots-" + std::to_string(i)));
    EXPECT_EQ(parameters.back()["name"], data["parameters"][i]);
  }
  data["parameters"] = parameters;
  return data;
}

int sum(const nlohmann::json& counts) {
  return std::accumulate(counts.begin(), counts.end(), 0,
                         [](int s, const nlohmann::json& n) { return s + n.get<int>(); });
}

// What every report's data must satisfy, whatever the run.
void expect_consistent(const nlohmann::json& data, std::size_t chains, std::size_t draws) {
  ASSERT_EQ(data["chains"], chains);
  ASSERT_EQ(data["draws"], draws);
  const auto& rows = data["table"]["rows"];
  ASSERT_FALSE(rows.empty());
  ASSERT_FALSE(data["parameters"].empty());
  // Plots follow the table's order (worst first): the first plotted parameter heads the table.
  EXPECT_EQ(data["parameters"][0]["name"], rows[0][0]);
  for (const auto& p : data["parameters"]) {
    SCOPED_TRACE(p["name"].get<std::string>());
    ASSERT_EQ(p["trace"].size(), chains);
    const std::size_t step = p["step"];
    EXPECT_EQ(p["trace"][0].size(), (draws + step - 1) / step);
    ASSERT_EQ(p["rank"]["counts"].size(), chains);
    for (const auto& counts : p["rank"]["counts"]) EXPECT_EQ(sum(counts), int(draws));
    ASSERT_EQ(p["density"]["y"].size(), chains);
    EXPECT_EQ(p["density"]["x"].size(), p["density"]["y"][0].size());
  }
  EXPECT_EQ(data["sampler"]["step_sizes"].size(), chains);
  EXPECT_EQ(data["energy"]["ebfmi"].size(), chains);
  for (const auto& counts : data["sampler"]["tree_depth"]["counts"]) EXPECT_EQ(sum(counts), int(draws));
}

TEST(ReportCli, SampleWritesTheReportOfItsDraws) {
  SKIP_WITHOUT_VEGA();
  variate::testing::ScratchDir dir("report_sample");
  const auto r =
      run_cli("sample --model eight-schools --chains 2 --warmup 150 --draws 120 --seed 3 --report --output " +
              dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("report: " + dir / "report.html"), std::string::npos) << r.output;
  const std::string page = read_text(dir / "report.html");
  const nlohmann::json data = page_data(page);
  ASSERT_TRUE(data.is_object());
  expect_consistent(data, 2, 120);
  EXPECT_EQ(data["pairs"]["names"].size(), 4u);
  EXPECT_TRUE(embedded_json(page, "report-specs").contains("energy"));
  // Self-contained: Vega is inlined and nothing is fetched.
  EXPECT_NE(page.find("vegaModuleName = \"vega-view\""), std::string::npos);
  EXPECT_EQ(page.find("src=\"http"), std::string::npos);
  // The report took the summary `sample` saved beside the draws; computed afresh from copies of the
  // chain files (no summary.json beside them), the table is the same.
  const fs::path copies = dir.path() / "copies";
  fs::create_directory(copies);
  for (const char* f : {"eight-schools-1.csv", "eight-schools-2.csv"}) fs::copy_file(dir.path() / f, copies / f);
  ASSERT_EQ(run_cli("report " + copies.string()).exit_code, 0);
  const nlohmann::json computed = page_data(read_text((copies / "report.html").string()));
  ASSERT_TRUE(computed.is_object());
  EXPECT_EQ(computed["table"], data["table"]);
  // A second run into the folder refuses to mix with it, report.html included.
  const auto again =
      run_cli("sample --model eight-schools --chains 1 --warmup 10 --draws 10 --output " + dir.path().string());
  EXPECT_EQ(again.exit_code, 1);
}

TEST(ReportCli, ReadsCmdStanOutput) {
  SKIP_WITHOUT_VEGA();
  variate::testing::ScratchDir dir("report_cmdstan");
  const auto r = run_cli("report " + kFixture + " --output " + dir / "r.html" + " --pairs mu,tau,theta.1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("18 parameters"), std::string::npos) << r.output;  // and lp__: 19 rows
  const nlohmann::json data = page_data(read_text(dir / "r.html"));
  ASSERT_TRUE(data.is_object());
  expect_consistent(data, 4, 100);
  EXPECT_EQ(data["table"]["rows"].size(), 19u);
  // The pair plot keeps every divergent draw (the fixture has 13) and the step sizes are CmdStan's.
  EXPECT_EQ(data["pairs"]["names"], (std::vector<std::string>{"mu", "tau", "theta.1"}));
  EXPECT_EQ(sum(data["pairs"]["divergent"]), 13);
  EXPECT_EQ(data["sampler"]["step_sizes"], (std::vector<double>{0.45, 0.5, 0.55, 0.6}));
  EXPECT_EQ(sum(data["sampler"]["divergences"]), 13);
}

TEST(ReportCli, PlotsOnlyTheWorstWhenAsked) {
  SKIP_WITHOUT_VEGA();
  variate::testing::ScratchDir dir("report_plots");
  const auto r = run_cli("report " + kFixture + "/output_1.csv " + kFixture + "/output_2.csv --plots 3 --output " +
                         dir / "r.html");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json data = page_data(read_text(dir / "r.html"));
  ASSERT_TRUE(data.is_object());
  EXPECT_EQ(data["chains"], 2);
  ASSERT_EQ(data["parameters"].size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(data["parameters"][i]["name"], data["table"]["rows"][i][0]);
}

// A model with hundreds of parameters: the data the page parses on opening holds one page of the
// table, the worst rows, and the parameters' names, whatever the number of rows.
TEST(ReportCli, OpeningParsesOnePageOfTheTable) {
  SKIP_WITHOUT_VEGA();
  variate::testing::ScratchDir dir("report_large");
  const auto r = run_cli("sample --model digits-softmax --chains 2 --warmup 30 --draws 30 --seed 2 --report --output " +
                         dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string page = read_text(dir / "report.html");
  const nlohmann::json opening = embedded_json(page, "report-data");
  ASSERT_TRUE(opening.is_object());
  EXPECT_FALSE(opening["table"].contains("rows"));
  EXPECT_EQ(opening["table"]["first_rows"].size(), opening["table"]["page_rows"].get<std::size_t>());
  EXPECT_GT(opening["table"]["count"].get<std::size_t>(), 10 * opening["table"]["page_rows"].get<std::size_t>());
  for (const auto& name : opening["parameters"]) EXPECT_TRUE(name.is_string());
  const nlohmann::json data = page_data(page);
  expect_consistent(data, 2, 30);
  EXPECT_EQ(data["table"]["rows"].size(), opening["table"]["count"].get<std::size_t>());
}

TEST(ReportCli, BadInputIsNamed) {
  variate::testing::ScratchDir dir("report_bad");
  auto r = run_cli("report " + dir.path().string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("holds no chain files"), std::string::npos) << r.output;
  r = run_cli("report " + dir / "missing");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("does not exist"), std::string::npos) << r.output;
  if (vega_installed()) {
    r = run_cli("report " + kFixture + " --output " + dir / "r.html" + " --pairs mu,sigma");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("'sigma', which is not a column"), std::string::npos) << r.output;
  }
}

}  // namespace
