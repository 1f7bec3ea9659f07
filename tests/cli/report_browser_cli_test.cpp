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

// Runs headless Chromium on `page` (with `fragment`, such as "#energy") with `mode` (--dump-dom or
// --screenshot=...) in a window `window` pixels wide and high; its stdout.
std::string chromium(const fs::path& page, const std::string& mode, const fs::path& profile,
                     const std::string& window = "1400,2400", const std::string& fragment = "") {
  // --virtual-time-budget lets the page's promises settle before the DOM is dumped or the picture
  // taken; --no-sandbox because the tests may run as root (in containers and CI).
  const std::string command = std::string(kChromium) +
                              " --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run "
                              "--disable-extensions --virtual-time-budget=20000 --window-size=" +
                              window + " --user-data-dir=" + profile.string() + " " + mode + " file://" +
                              fs::absolute(page).string() + fragment + " 2>/dev/null";
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
  std::string dom = chromium(page, "--dump-dom", profile.path() / "profile");
  // Headless Chromium has once dumped the page before it had drawn, with no error on it, while the
  // whole suite kept both cores busy: such a page gets one more load. A page with an error does not.
  if (dom.find("data-report=\"rendered\"") == std::string::npos &&
      dom.find("data-report=\"error\"") == std::string::npos)
    dom = chromium(page, "--dump-dom", profile.path() / "profile");
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

// The views drawn so far, as the page lists them in data-drawn ("" when it has none).
std::string drawn_views(const std::string& dom) {
  std::smatch m;
  return std::regex_search(dom, m, std::regex("data-drawn=\"([^\"]*)\"")) ? m[1].str() : std::string();
}

// The page draws a view when its place comes near the screen: in a short window it opens with the
// views at the top drawn and the energy plot, far below, not yet; scrolled to the energy section
// (the address's #energy) it draws that too, without a script error.
TEST(ReportInBrowserDeferred, ViewsBelowTheFoldWaitUntilScrolledTo) {
  if (const std::string why = missing_browser(); !why.empty()) GTEST_SKIP() << why;
  variate::testing::ScratchDir dir("report_browser_deferred");
  const auto r = run_cli(
      "sample --model eight-schools --chains 2 --warmup 100 --draws 100 --seed 5 --report "
      "--output " +
      dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const fs::path page = dir.path() / "report.html";

  const std::string top = chromium(page, "--dump-dom", dir.path() / "profile-top", "1400,700");
  ASSERT_NE(top.find("data-report=\"rendered\""), std::string::npos) << top.substr(0, 300);
  const std::string opened = drawn_views(top);
  EXPECT_NE(opened.find("sampler-plot"), std::string::npos) << opened;
  EXPECT_EQ(opened.find("energy-plot"), std::string::npos) << opened;

  const std::string scrolled = chromium(page, "--dump-dom", dir.path() / "profile-energy", "1400,700", "#energy");
  EXPECT_NE(drawn_views(scrolled).find("energy-plot"), std::string::npos) << drawn_views(scrolled);
  EXPECT_EQ(scrolled.find("data-report=\"error\""), std::string::npos);
  const std::size_t errors = scrolled.find("id=\"report-errors\"");
  ASSERT_NE(errors, std::string::npos);
  EXPECT_NE(scrolled.substr(errors, 60).find("hidden"), std::string::npos) << scrolled.substr(errors, 2000);
}

TEST(ReportInBrowserCmdStan, FixtureRenders) {
  if (const std::string why = missing_browser(); !why.empty()) GTEST_SKIP() << why;
  variate::testing::ScratchDir dir("report_browser_cmdstan");
  const auto r = run_cli("report " + std::string(VARIATE_SOURCE_DIR) +
                         "/tests/cli/data/cmdstan_eight_schools --output " + dir / "report.html");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_renders(dir.path() / "report.html", "cmdstan");
}

}  // namespace
