// The benchmarks' CSV-to-SVG line plots (bench/line_plot.hpp): one line per group in the order the
// groups appear, the data mapped onto the plot's box, a log axis, and clear errors for bad CSV.
#include "line_plot.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "support/scratch_dir.hpp"

namespace variate::bench {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string error_of(const std::string& csv, const PlotSpec& spec) {
  try {
    plot_csv(csv, csv + ".svg", spec);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no error)";
}

// The box is x in [70, 540] and y in [40, 370] of a 720 x 420 plot.
TEST(LinePlot, DrawsOneLinePerGroupInsideTheBox) {
  const testing::ScratchDir dir("line_plot");
  const std::string csv = dir.write("c.csv", "run,step,loss\nb,0,4\na,0,3\nb,10,2\na,10,0\n");
  plot_csv(csv, dir / "c.svg", {.y = "loss", .title = "T"});
  const std::string svg = read(dir / "c.svg");
  EXPECT_NE(svg.find("points=\"70,40 540,205 \""), std::string::npos) << svg;  // b: 4 at the top
  EXPECT_NE(svg.find("points=\"70,122.5 540,370 \""), std::string::npos) << svg;
  EXPECT_LT(svg.find(">b</text>"), svg.find(">a</text>"));  // the legend in order of appearance
  EXPECT_NE(svg.find(">T</text>"), std::string::npos);
}

TEST(LinePlot, PlacesDecadesEvenlyOnALogAxis) {
  const testing::ScratchDir dir("line_plot_log");
  const std::string csv = dir.write("c.csv", "keep,step,loss\n1,0,100\n1,1,10\n1,2,1\n");
  plot_csv(csv, dir / "c.svg", {.group = "keep", .x = "step", .y = "loss", .title = "", .log_y = true});
  EXPECT_NE(read(dir / "c.svg").find("points=\"70,40 305,205 540,370 \""), std::string::npos);
}

TEST(LinePlot, NamesWhatIsWrongWithTheCsv) {
  const testing::ScratchDir dir("line_plot_bad");
  EXPECT_NE(error_of(dir.write("a.csv", "run,step\nx,1\n"), {.y = "loss", .title = ""}).find("has no column 'loss'"),
            std::string::npos);
  EXPECT_NE(error_of(dir.write("b.csv", "run,step,loss\nx,1\n"), {.y = "loss", .title = ""}).find("row 2 has 2 cells"),
            std::string::npos);
  EXPECT_NE(error_of(dir.write("c.csv", "run,step,loss\nx,1,0\n"), {.y = "loss", .title = "", .log_y = true})
                .find("a log axis needs positive values"),
            std::string::npos);
  EXPECT_NE(error_of(dir.write("d.csv", "run,step,loss\n"), {.y = "loss", .title = ""}).find("has no rows"),
            std::string::npos);
}

}  // namespace
}  // namespace variate::bench
