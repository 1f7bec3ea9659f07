#include "variate/data/digits.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

#include "support/scratch_dir.hpp"

namespace variate::data {
namespace {

TEST(Digits, HasScikitLearnShapeLabelsAndPixelRange) {
  const Dataset d = digits();
  ASSERT_EQ(d.features.shape(), (Shape{1797, 64}));
  ASSERT_EQ(d.labels.shape(), (Shape{1797}));
  EXPECT_EQ(d.features.dtype(), DType::f64);
  EXPECT_EQ(d.labels.dtype(), DType::i64);

  // Class counts as reported by sklearn.datasets.load_digits().
  std::array<int, 10> counts{};
  for (std::int64_t y : d.labels.to_vector<std::int64_t>()) {
    ASSERT_GE(y, 0);
    ASSERT_LE(y, 9);
    ++counts[std::size_t(y)];
  }
  EXPECT_EQ(counts, (std::array<int, 10>{178, 182, 177, 183, 181, 182, 181, 179, 174, 180}));

  const std::vector<double> pixels = d.features.to_vector<double>();
  EXPECT_EQ(*std::min_element(pixels.begin(), pixels.end()), 0.0);
  EXPECT_EQ(*std::max_element(pixels.begin(), pixels.end()), 16.0);
}

// Each test writes its files into its own directory, removed afterwards.
class CsvFile : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& contents) const { return dir_.write(name, contents); }

  // Expects load_csv_dataset to throw variate::Error whose message contains every fragment.
  static void expect_error(const std::string& path, std::initializer_list<std::string> fragments) {
    try {
      load_csv_dataset(path);
      ADD_FAILURE() << "no error for " << path;
    } catch (const Error& e) {
      const std::string message = e.what();
      for (const std::string& f : fragments) EXPECT_NE(message.find(f), std::string::npos) << message;
    }
  }

  const variate::testing::ScratchDir dir_{"csv_" + variate::testing::current_test_name()};
};

TEST_F(CsvFile, ReadsFeaturesAndLabels) {
  // Windows line ends, spaces around fields and blank lines are tolerated.
  const std::string path = write("small.csv", "1, -2.5,3\r\n\n4e1,5,6\r\n   \n");
  const Dataset last = load_csv_dataset(path);
  EXPECT_EQ(last.features.shape(), (Shape{2, 2}));
  EXPECT_EQ(last.features.to_vector<double>(), (std::vector<double>{1, -2.5, 40, 5}));
  EXPECT_EQ(last.labels.to_vector<std::int64_t>(), (std::vector<std::int64_t>{3, 6}));

  const Dataset first = load_csv_dataset(path, 0);
  EXPECT_EQ(first.features.to_vector<double>(), (std::vector<double>{-2.5, 3, 5, 6}));
  EXPECT_EQ(first.labels.to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 40}));
}

TEST_F(CsvFile, RoundTripsDigitsThroughPlainAndGzipFiles) {
  const Dataset d = digits();
  std::string csv;
  const std::vector<double> x = d.features.to_vector<double>();
  const std::vector<std::int64_t> y = d.labels.to_vector<std::int64_t>();
  for (std::size_t i = 0; i < y.size(); ++i) {
    for (std::size_t j = 0; j < 64; ++j) csv += std::to_string(x[i * 64 + j]) + ",";
    csv += std::to_string(y[i]) + "\n";
  }
  // The gzip file is the one the library embeds, so both paths must give the embedded data.
  for (const std::string& path : {write("digits.csv", csv), std::string(VARIATE_SOURCE_DIR "/data/digits.csv.gz")}) {
    const Dataset back = load_csv_dataset(path);
    EXPECT_EQ(back.features.shape(), d.features.shape()) << path;
    EXPECT_EQ(back.features.to_vector<double>(), x) << path;
    EXPECT_EQ(back.labels.to_vector<std::int64_t>(), y) << path;
  }
}

TEST_F(CsvFile, MissingFileIsAnErrorNamingIt) {
  const std::string path = dir_ / "absent.csv";
  expect_error(path, {"load_csv_dataset", path, "No such file"});
}

TEST_F(CsvFile, TruncatedGzipFileIsAnError) {
  std::ifstream in(VARIATE_SOURCE_DIR "/data/digits.csv.gz", std::ios::binary);
  std::string bytes(1000, '\0');
  ASSERT_TRUE(in.read(bytes.data(), std::streamsize(bytes.size())));
  const std::string path = write("truncated.csv.gz", bytes);
  expect_error(path, {"cannot read file", path});
}

TEST_F(CsvFile, RaggedRowIsAnErrorNamingTheLine) {
  const std::string path = write("ragged.csv", "1,2,3\n4,5,6\n7,8\n");
  expect_error(path, {path + ":3:", "expected 3 columns", "found 2"});
}

TEST_F(CsvFile, NonNumericFieldIsAnErrorNamingTheLineAndField) {
  const std::string path = write("text.csv", "1,2,3\n4,five,6\n");
  expect_error(path, {path + ":2:", "column 2", "'five' is not a number"});
  expect_error(write("suffix.csv", "1,2x,3\n"), {":1:", "'2x' is not a number"});
  expect_error(write("empty_field.csv", "1,,3\n"), {":1:", "column 2"});
}

TEST_F(CsvFile, NonFiniteValueIsAnError) {
  expect_error(write("nan.csv", "1,2,3\n4,nan,6\n"), {":2:", "column 2", "not a finite number"});
  expect_error(write("inf.csv", "-inf,2,3\n"), {":1:", "column 1", "not a finite number"});
}

TEST_F(CsvFile, MalformedLabelsAndEmptyFilesAreErrors) {
  expect_error(write("fractional.csv", "1,2,3.5\n"), {":1:", "3.5 is not an integer"});
  expect_error(write("one_column.csv", "1\n2\n"), {":1:", "found 1 column"});
  expect_error(write("empty.csv", "\n\n"), {"no rows"});
  EXPECT_THROW(load_csv_dataset(write("small.csv", "1,2\n"), 2), Error);
}

}  // namespace
}  // namespace variate::data
