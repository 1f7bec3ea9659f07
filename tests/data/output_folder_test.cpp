// The run folder: an earlier run's files are refused or deleted, never mixed with a new run's, and a
// symbolic link under a file's name is removed, not followed.
#include "variate/data/output_folder.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/expect_error.hpp"
#include "support/scratch_dir.hpp"

namespace variate::data {
namespace {

namespace fs = std::filesystem;

bool is_fit_file(std::string_view name) { return is_chain_file(name, "fit") || name == "summary.csv"; }

TEST(OutputFolder, ChainFilesAreThePrefixADashDigitsAndCsv) {
  EXPECT_TRUE(is_chain_file("fit-1.csv", "fit"));
  EXPECT_TRUE(is_chain_file("fit-12.csv", "fit"));
  for (const char* other : {"fit-.csv", "fit-1a.csv", "fit-1.csv.gz", "fit.csv", "fits-1.csv", "fit-1-2.csv"})
    EXPECT_FALSE(is_chain_file(other, "fit")) << other;
}

TEST(OutputFolder, CreatesTheFolderAndItsParents) {
  const testing::ScratchDir dir("output_folder_create");
  const std::string nested = dir / "a/b";
  EXPECT_EQ(prepare_run_folder(nested, is_fit_file, false, "sample", "pass --overwrite"), fs::path(nested));
  EXPECT_TRUE(fs::is_directory(nested));
  const std::string file = dir.write("plain", "x");
  EXPECT_ERROR(make_output_folder(file, "sample"), "sample: the output path '" + file + "' exists and is not a folder");
}

TEST(OutputFolder, AnEarlierRunIsRefusedOrDeletedAndOtherFilesAreKept) {
  const testing::ScratchDir dir("output_folder_earlier");
  for (const char* name : {"fit-1.csv", "fit-2.csv", "fit-3.csv", "fit-4.csv", "summary.csv", "notes.txt"})
    dir.write(name, "earlier");
  EXPECT_ERROR(prepare_run_folder(dir.path().string(), is_fit_file, false, "sample", "pass --overwrite"),
               "already holds an earlier run's files (fit-1.csv, fit-2.csv, fit-3.csv, ...); choose another folder, "
               "or pass --overwrite to replace them");
  EXPECT_TRUE(fs::exists(dir / "fit-4.csv")) << "a refusal deletes nothing";

  prepare_run_folder(dir.path().string(), is_fit_file, true, "sample", "pass --overwrite");
  for (const char* name : {"fit-1.csv", "fit-2.csv", "fit-3.csv", "fit-4.csv", "summary.csv"})
    EXPECT_FALSE(fs::exists(dir / name)) << name;
  EXPECT_TRUE(fs::exists(dir / "notes.txt")) << "a file that is not the run's stays";
}

TEST(OutputFolder, ALinkUnderAChainFilesNameIsRemovedNotFollowed) {
  const testing::ScratchDir dir("output_folder_link");
  const std::string target = dir.write("precious.txt", "keep me");
  fs::create_directory(dir / "out");
  fs::create_symlink(target, dir / "out/fit-1.csv");
  EXPECT_ERROR(prepare_run_folder(dir / "out", is_fit_file, false, "sample", "pass --overwrite"), "fit-1.csv");
  prepare_run_folder(dir / "out", is_fit_file, true, "sample", "pass --overwrite");
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir / "out/fit-1.csv")));
  std::ifstream in(target);
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "keep me");
}

}  // namespace
}  // namespace variate::data
