// Model plugins: `variate build` compiles a model file into a shared library and `variate sample
// --model-file` runs it as it runs a built-in model. The built-in eight schools is such a file.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"

namespace {

using variate::testing::CliOutcome;
using variate::testing::draw_lines;
using variate::testing::run_cli;
using variate::testing::ScratchDir;

const std::string kEightSchools = std::string(VARIATE_SOURCE_DIR) + "/src/models/eight_schools.cpp";

class PluginCli : public ::testing::Test {
 protected:
  // Built once for the suite: compiling takes seconds.
  static void SetUpTestSuite() {
    dir_ = new ScratchDir("cli_plugin");
    build_ = new CliOutcome(run_cli("build " + kEightSchools + " -o " + (*dir_ / "eight_schools.so")));
  }
  static void TearDownTestSuite() {
    delete build_;
    delete dir_;
  }
  static std::string plugin() { return *dir_ / "eight_schools.so"; }
  static inline ScratchDir* dir_ = nullptr;
  static inline CliOutcome* build_ = nullptr;
};

TEST_F(PluginCli, APluginOfTheBuiltInEightSchoolsGivesItsDraws) {
  ASSERT_EQ(build_->exit_code, 0) << build_->output;
  EXPECT_NE(build_->output.find("built " + plugin()), std::string::npos) << build_->output;
  const std::string data = dir_->write("schools.json",
                                       R"({"J": 8, "y": [28, 8, -3, 7, -1, 1, 18, 12],
                                           "sigma": [15, 10, 16, 11, 9, 11, 10, 18]})");
  const std::string common = " --chains 2 --warmup 100 --draws 50 --seed 4 --output ";
  const CliOutcome built_in = run_cli("sample --model eight-schools" + common + (*dir_ / "built-in"));
  ASSERT_EQ(built_in.exit_code, 0) << built_in.output;
  const CliOutcome from_plugin =
      run_cli("sample --model-file " + plugin() + " --data " + data + common + (*dir_ / "plugin"));
  ASSERT_EQ(from_plugin.exit_code, 0) << from_plugin.output;
  for (const char* chain : {"1", "2"}) {
    const auto expected = draw_lines(*dir_ / ("built-in/eight-schools-" + std::string(chain) + ".csv"));
    ASSERT_EQ(expected.size(), 50u);
    EXPECT_EQ(draw_lines(*dir_ / ("plugin/eight_schools-" + std::string(chain) + ".csv")), expected) << chain;
  }
}

TEST_F(PluginCli, DataMissingAVariableOrOfTheWrongShapeIsOneClearError) {
  ASSERT_EQ(build_->exit_code, 0) << build_->output;
  const CliOutcome none = run_cli("sample --model-file " + plugin() + " --output " + (*dir_ / "none"));
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.output.find("variable 'y' is missing"), std::string::npos) << none.output;
  EXPECT_NE(none.output.find("pass --data FILE"), std::string::npos) << none.output;
  const std::string wrong = dir_->write("wrong.json", R"({"y": [1, 2, 3], "sigma": [1, 2]})");
  const CliOutcome shape =
      run_cli("sample --model-file " + plugin() + " --data " + wrong + " --output " + (*dir_ / "w"));
  EXPECT_EQ(shape.exit_code, 1);
  EXPECT_NE(shape.output.find("wrong.json: variable 'sigma' has shape (2); expected shape (3)"), std::string::npos)
      << shape.output;
}

TEST_F(PluginCli, ALibraryWithoutAModelOrOfAnotherInterfaceVersionIsRefused) {
  const ScratchDir dir("cli_plugin_refused");
  const CliOutcome no_model = run_cli("build " + dir.write("no_model.cpp", "int answer() { return 42; }\n"));
  ASSERT_EQ(no_model.exit_code, 0) << no_model.output;
  const CliOutcome r = run_cli("sample --model-file " + (dir / "no_model.so"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("exports no variate model"), std::string::npos) << r.output;

  const CliOutcome other = run_cli("build " + dir.write("other_version.cpp",
                                                        "#include \"variate/models/model.hpp\"\n"
                                                        "extern \"C\" const int variate_plugin_abi_version = 999;\n"
                                                        "extern \"C\" const variate::models::PluginEntry* "
                                                        "variate_model_entry() { return nullptr; }\n"));
  ASSERT_EQ(other.exit_code, 0) << other.output;
  const CliOutcome v = run_cli("sample --model-file " + (dir / "other_version.so"));
  EXPECT_EQ(v.exit_code, 1);
  EXPECT_NE(v.output.find("built for plugin interface version 999"), std::string::npos) << v.output;

  const CliOutcome missing = run_cli("sample --model-file " + (dir / "absent.so"));
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.output.find("absent.so' does not exist"), std::string::npos) << missing.output;
}

TEST_F(PluginCli, ACompileErrorShowsTheCompilersMessageWithTheModelFilesLine) {
  const ScratchDir dir("cli_plugin_error");
  const std::string source =
      dir.write("broken.cpp", "#include \"variate/models/model.hpp\"\n\nint f() { return x; }\n");
  const CliOutcome r = run_cli("build " + source);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("broken.cpp:3"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("compiling '" + source + "' failed"), std::string::npos) << r.output;
}

}  // namespace
