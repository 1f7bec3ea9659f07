// The report in a real browser: headless Chromium (Debian's chromium) opens the page of each
// built-in model's draws and of a CmdStan CSV fixture; the page must finish rendering without a
// script error, and its screenshot (kept in <build>/test-artifacts/report-<case>.png) must show
// the plots. Skipped, saying why, where chromium or libjs-vega is missing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>

#include "support/png_pixels.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"

namespace {

namespace fs = std::filesystem;
using variate::testing::run_cli;

const char* const kChromium = "/usr/bin/chromium";

// Runs headless Chromium on `page` with `mode` (--dump-dom or --screenshot=...); its stdout.
std::string chromium(const fs::path& page, const std::string& mode, const fs::path& profile) {
  // --virtual-time-budget lets the page's promises settle before the DOM is dumped or the picture
  // taken; --no-sandbox because the tests may run as root (in containers and CI).
  const std::string command = std::string(kChromium) +
                              " --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run "
                              "--disable-extensions --virtual-time-budget=20000 --window-size=1400,2400 "
                              "--user-data-dir=" +
                              profile.string() + " " + mode + " file://" + fs::absolute(page).string() + " 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return {};
  std::string out;
  char buffer[65536];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  pclose(pipe);
  return out;
}

// Pixels within 40 of `rgb` in each channel.
long pixels_near(const variate::testing::RgbImage& image, int r, int g, int b) {
  long n = 0;
  for (std::size_t i = 0; i + 2 < image.rgb.size(); i += 3)
    n += std::abs(image.rgb[i] - r) < 40 && std::abs(image.rgb[i + 1] - g) < 40 && std::abs(image.rgb[i + 2] - b) < 40;
  return n;
}

// Opens the page twice: the DOM says whether it rendered cleanly, the screenshot whether the
// plots are there (chains 1 and 2 draw in the first colours of Vega's category scheme, tableau10:
// blue #4c78a8 and orange #f58518).
void expect_renders(const fs::path& page, const std::string& name) {
  variate::testing::ScratchDir profile("report_chromium_" + name);
  const std::string dom = chromium(page, "--dump-dom", profile.path() / "profile");
  const std::size_t errors = dom.find("id=\"report-errors\"");
  ASSERT_NE(dom.find("data-report=\"rendered\""), std::string::npos)
      << "the page did not finish rendering: "
      << (errors == std::string::npos ? dom.substr(0, 300) : dom.substr(errors, 2000));
  std::smatch ms;
  if (std::regex_search(dom, ms, std::regex("data-render-ms=\"([0-9]+)\"")))
    std::printf("[ report ] %s rendered %s ms after the page started loading\n", name.c_str(), ms[1].str().c_str());

  fs::create_directories(VARIATE_ARTIFACT_DIR);
  const fs::path shot = fs::path(VARIATE_ARTIFACT_DIR) / ("report-" + name + ".png");
  fs::remove(shot);
  chromium(page, "--screenshot=" + shot.string(), profile.path() / "profile");
  const variate::testing::RgbImage image = variate::testing::read_png_rgb(shot.string());
  ASSERT_TRUE(image.error.empty()) << shot << ": " << image.error;
  EXPECT_EQ(image.width, 1400);
  // Lines, bars and points of the first two chains: thousands of pixels each on a rendered page,
  // none on a blank one or one with text only.
  EXPECT_GT(pixels_near(image, 0x4c, 0x78, 0xa8), 2000) << shot;
  EXPECT_GT(pixels_near(image, 0xf5, 0x85, 0x18), 2000) << shot;
}

// Why the browser tests cannot run here, or empty.
std::string missing_browser() {
  if (!fs::exists(kChromium)) return std::string(kChromium) + " not found: install Debian's chromium to run the page";
  if (!fs::exists("/usr/share/javascript/vega/vega-view.min.js"))
    return "Debian's libjs-vega is not installed (the report inlines it)";
  return {};
}

class ReportInBrowser : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (const std::string why = missing_browser(); !why.empty()) GTEST_SKIP() << why;
  }
};

TEST_P(ReportInBrowser, BuiltInModelRenders) {
  const std::string model = GetParam();
  variate::testing::ScratchDir dir("report_browser_" + model);
  const auto r = run_cli("sample --model " + model +
                         " --chains 2 --warmup 100 --draws 100 --seed 5 --report --output " + dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_renders(dir.path() / "report.html", model);
}

INSTANTIATE_TEST_SUITE_P(Models, ReportInBrowser,
                         ::testing::Values("eight-schools", "beta-bernoulli", "logistic", "digits-softmax"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::erase(name, '-');
                           return name;
                         });

TEST(ReportInBrowserCmdStan, FixtureRenders) {
  if (const std::string why = missing_browser(); !why.empty()) GTEST_SKIP() << why;
  variate::testing::ScratchDir dir("report_browser_cmdstan");
  const auto r = run_cli("report " + std::string(VARIATE_SOURCE_DIR) +
                         "/tests/cli/data/cmdstan_eight_schools --output " + dir / "report.html");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_renders(dir.path() / "report.html", "cmdstan");
}

}  // namespace
