#include "variate/data/data_file.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "data/read_text.hpp"
#include "support/expect_error.hpp"
#include "support/scratch_dir.hpp"

namespace variate::data {
namespace {

using Shape = std::vector<std::int64_t>;
using Values = std::vector<double>;

// Each test writes its files into its own directory, removed afterwards.
class DataFileTest : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return dir_ / name; }
  std::string write(const std::string& name, const std::string& contents) const { return dir_.write(name, contents); }

  std::string write_gzip(const std::string& name, const std::string& contents) const {
    const gzFile file = gzopen(path(name).c_str(), "wb");
    EXPECT_NE(file, nullptr);
    EXPECT_EQ(gzwrite(file, contents.data(), static_cast<unsigned>(contents.size())), int(contents.size()));
    gzclose(file);
    return path(name);
  }

  // A zip archive of the given members, each stored (method 0) or deflated (method 8), laid out as
  // PKWARE's APPNOTE describes: local headers and data, the central directory, its end record.
  std::string write_zip(const std::string& name, const std::vector<std::pair<std::string, std::string>>& members,
                        bool deflated) const {
    std::string zip, directory;
    const auto u16 = [](std::string& out, std::uint32_t v) { out += char(v & 0xFF), out += char(v >> 8 & 0xFF); };
    const auto u32 = [&](std::string& out, std::uint32_t v) { u16(out, v & 0xFFFF), u16(out, v >> 16); };
    for (const auto& [member, text] : members) {
      std::string data = text;
      if (deflated) {
        z_stream s{};
        EXPECT_EQ(deflateInit2(&s, 9, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
        data.resize(deflateBound(&s, uLong(text.size())));
        s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
        s.avail_in = uInt(text.size());
        s.next_out = reinterpret_cast<Bytef*>(data.data());
        s.avail_out = uInt(data.size());
        EXPECT_EQ(deflate(&s, Z_FINISH), Z_STREAM_END);
        data.resize(s.total_out);
        deflateEnd(&s);
      }
      const auto crc = std::uint32_t(crc32(0, reinterpret_cast<const Bytef*>(text.data()), uInt(text.size())));
      const auto offset = std::uint32_t(zip.size());
      const std::uint32_t method = deflated ? 8 : 0;
      u32(zip, 0x04034b50), u16(zip, 20), u16(zip, 0), u16(zip, method), u32(zip, 0), u32(zip, crc);
      u32(zip, std::uint32_t(data.size())), u32(zip, std::uint32_t(text.size())),
          u16(zip, std::uint32_t(member.size()));
      u16(zip, 0), zip += member, zip += data;
      u32(directory, 0x02014b50), u16(directory, 20), u16(directory, 20), u16(directory, 0), u16(directory, method);
      u32(directory, 0), u32(directory, crc), u32(directory, std::uint32_t(data.size()));
      u32(directory, std::uint32_t(text.size())), u16(directory, std::uint32_t(member.size())), u16(directory, 0);
      u16(directory, 0), u16(directory, 0), u16(directory, 0), u32(directory, 0), u32(directory, offset);
      directory += member;
    }
    const auto start = std::uint32_t(zip.size());
    zip += directory;
    u32(zip, 0x06054b50), u16(zip, 0), u16(zip, 0), u16(zip, std::uint32_t(members.size()));
    u16(zip, std::uint32_t(members.size())), u32(zip, std::uint32_t(directory.size())), u32(zip, start), u16(zip, 0);
    return write(name, zip);
  }

  const variate::testing::ScratchDir dir_{"data_file_" + variate::testing::current_test_name()};
};

const DataArray& at(const DataFile& data, std::string_view name) {
  const auto it = data.find(name);
  if (it == data.end()) throw std::runtime_error("no variable " + std::string(name));
  return it->second;
}

TEST_F(DataFileTest, ReadsCmdStanJsonScalarsAndNestedArrays) {
  // The bernoulli example's data, and more shapes.
  const DataFile data = read_cmdstan_json(write("data.json", R"({
    "N": 10,
    "y": [0, 1, 0, 0, 0, 0, 0, 0, 0, 1],
    "sigma": 2.5,
    "X": [[1, 2.5, 3], [4, 5, 6]],
    "counts": [[[1, 2], [3, 4]], [[5, 6], [7, -8]]],
    "whole": 2.0,
    "big": 1e300,
    "none": [],
    "empty_rows": [[], []]
  })"));
  EXPECT_EQ(data.size(), 9u);

  EXPECT_EQ(at(data, "N").shape, Shape{});
  EXPECT_EQ(at(data, "N").values, Values{10});
  EXPECT_TRUE(at(data, "N").integer);

  EXPECT_EQ(at(data, "y").shape, Shape{10});
  EXPECT_EQ(at(data, "y").values, (Values{0, 1, 0, 0, 0, 0, 0, 0, 0, 1}));
  EXPECT_TRUE(at(data, "y").integer);

  EXPECT_EQ(at(data, "sigma").shape, Shape{});
  EXPECT_EQ(at(data, "sigma").values, Values{2.5});
  EXPECT_FALSE(at(data, "sigma").integer);

  // Row-major; one real value makes the whole array real.
  EXPECT_EQ(at(data, "X").shape, (Shape{2, 3}));
  EXPECT_EQ(at(data, "X").values, (Values{1, 2.5, 3, 4, 5, 6}));
  EXPECT_FALSE(at(data, "X").integer);

  EXPECT_EQ(at(data, "counts").shape, (Shape{2, 2, 2}));
  EXPECT_EQ(at(data, "counts").values, (Values{1, 2, 3, 4, 5, 6, 7, -8}));
  EXPECT_TRUE(at(data, "counts").integer);

  EXPECT_FALSE(at(data, "whole").integer);  // written with a decimal point
  EXPECT_EQ(at(data, "big").values, Values{1e300});

  EXPECT_EQ(at(data, "none").shape, Shape{0});
  EXPECT_TRUE(at(data, "none").values.empty());
  EXPECT_EQ(at(data, "empty_rows").shape, (Shape{2, 0}));
  EXPECT_TRUE(at(data, "empty_rows").values.empty());
}

TEST_F(DataFileTest, MalformedJsonValuesAreErrorsNamingTheVariableAndPosition) {
  const std::string file = write("ragged.json", R"({"ok": 1, "y": [[1, 2, 3], [4, 5]]})");
  EXPECT_ERROR(read_cmdstan_json(file), "read_cmdstan_json: " + file + ": variable 'y' is not a rectangular array");
  EXPECT_ERROR(read_cmdstan_json(file), "y[1] is an array of 2 elements, expected an array of 3 elements like y[0]");
  EXPECT_ERROR(read_cmdstan_json(write("deep.json", R"({"z": [[1, [2]], [3, 4]]})")),
               "variable 'z': z[0][1] is an array, expected a number like z[0][0] (the array is not rectangular)");
  EXPECT_ERROR(read_cmdstan_json(write("flat.json", R"({"z": [[1, 2], 3]})")),
               "z[1] is a number, expected an array of 2 elements like z[0]");
  EXPECT_ERROR(read_cmdstan_json(write("empty_row.json", R"({"z": [[], [1]]})")),
               "z[1] is an array of 1 elements, expected an array of 0 elements");

  EXPECT_ERROR(read_cmdstan_json(write("bool.json", R"({"flag": true})")),
               "variable 'flag' is a boolean, expected a number or an array of numbers");
  EXPECT_ERROR(read_cmdstan_json(write("bool_in.json", R"({"flags": [1, false]})")),
               "variable 'flags': flags[1] is a boolean, expected a number");
  EXPECT_ERROR(read_cmdstan_json(write("string.json", R"({"name": "abc"})")),
               "variable 'name' is a string ('abc'), expected a number");
  EXPECT_ERROR(read_cmdstan_json(write("object.json", R"({"obj": {"a": 1}})")), "variable 'obj' is an object");
  EXPECT_ERROR(read_cmdstan_json(write("null.json", R"({"x": [1, null]})")), "variable 'x': x[1] is null");

  // CmdStan's spellings of special values parse, but model data must be finite.
  EXPECT_ERROR(read_cmdstan_json(write("nan.json", R"({"x": [1, "NaN"]})")),
               "variable 'x': x[1] is \"NaN\" (not finite), expected a finite number");
  EXPECT_ERROR(read_cmdstan_json(write("inf.json", R"({"x": "Infinity"})")), "variable 'x': x is \"Infinity\"");
  EXPECT_ERROR(read_cmdstan_json(write("ninf.json", R"({"x": [["-Infinity"]]})")),
               "x[0][0] is \"-Infinity\" (not finite)");
}

TEST_F(DataFileTest, JsonTextReadsAsAFileWithItsContentDoes) {
  const std::string text = R"({"N": 3, "y": [[1, 2.5], [3, 4]]})";
  const DataFile from_text = parse_cmdstan_json(text, "the text");
  const DataFile from_file = read_cmdstan_json(write("same.json", text));
  ASSERT_EQ(from_text.size(), 2u);
  for (const auto& [name, array] : from_file) {
    EXPECT_EQ(from_text.at(name).shape, array.shape) << name;
    EXPECT_EQ(from_text.at(name).values, array.values) << name;
    EXPECT_EQ(from_text.at(name).integer, array.integer) << name;
  }
  EXPECT_ERROR(parse_cmdstan_json(R"({"y": [1, 2],)", "the data string"), "the data string: invalid JSON");
  EXPECT_ERROR(parse_cmdstan_json("  ", "the data string"), "the data string: the text is empty");
}

TEST_F(DataFileTest, MalformedJsonFilesAreErrors) {
  const std::string bad = write("bad.json", "{\"N\": 3,\n \"y\": [1, 2,]}");
  EXPECT_ERROR(read_cmdstan_json(bad), "read_cmdstan_json: " + bad + ": invalid JSON at byte 22");
  EXPECT_ERROR(read_cmdstan_json(bad), "parse error at line 2");
  EXPECT_ERROR(read_cmdstan_json(write("huge.json", R"({"x": 1e999})")), "huge.json: cannot read the JSON");
  EXPECT_ERROR(read_cmdstan_json(write("array.json", "[1, 2]")),
               "array.json: the top level is array, expected an object");
  EXPECT_ERROR(read_cmdstan_json(write("twice.json", R"({"N": 1, "y": {"N": 2}, "N": 2})")),
               "twice.json: variable 'N' is given twice");
  // As a CSV header's empty column name is (found by the JSON fuzzer).
  EXPECT_ERROR(read_cmdstan_json(write("unnamed.json", R"({"": [0, 1]})")),
               "unnamed.json: a variable has an empty name; expected a variable name");
  EXPECT_ERROR(read_cmdstan_json(write("empty.json", " \n")), "empty.json: the file is empty");
  // 10,000 levels overflowed the stack in the recursive shape check.
  const std::string deep = "{\"x\": " + std::string(10000, '[') + std::string(10000, ']') + "}";
  EXPECT_ERROR(read_cmdstan_json(write("deep.json", deep)),
               "deep.json: arrays nested more than 32 deep; expected a variable of at most 32 dimensions");
  const std::string dims32 = "{\"x\": " + std::string(32, '[') + "1" + std::string(32, ']') + "}";
  EXPECT_EQ(read_cmdstan_json(write("dims32.json", dims32)).at("x").shape, std::vector<std::int64_t>(32, 1));
  const std::string absent = path("absent.json");
  EXPECT_ERROR(read_cmdstan_json(absent), "read_cmdstan_json: cannot open file '" + absent + "'");
}

TEST_F(DataFileTest, ReadsCsvTablesPlainAndGzip) {
  const std::string table = "x,\"y\" , count\r\n1.5,2,3\r\n\r\n-4e-1,5,-6\r\n";
  for (const std::string& file : {write("table.csv", table), write_gzip("table.csv.gz", table)}) {
    const DataFile data = read_csv_table(file);
    ASSERT_EQ(data.size(), 3u) << file;
    EXPECT_EQ(at(data, "x").shape, Shape{2});
    EXPECT_EQ(at(data, "x").values, (Values{1.5, -0.4}));
    EXPECT_FALSE(at(data, "x").integer);
    EXPECT_EQ(at(data, "y").values, (Values{2, 5}));
    EXPECT_TRUE(at(data, "y").integer);
    EXPECT_EQ(at(data, "count").values, (Values{3, -6}));
    EXPECT_TRUE(at(data, "count").integer);
  }
  // A header without rows gives empty columns.
  const DataFile empty = read_csv_table(write("header_only.csv", "a,b\n"));
  EXPECT_EQ(at(empty, "a").shape, Shape{0});
  EXPECT_TRUE(at(empty, "b").values.empty());
}

TEST_F(DataFileTest, MalformedCsvTablesAreErrorsNamingLineAndColumn) {
  const std::string dup = write("dup.csv", "a,b,a\n1,2,3\n");
  EXPECT_ERROR(read_csv_table(dup), "read_csv_table: " + dup + ":1: column name 'a' appears twice (columns 1 and 3)");
  EXPECT_ERROR(read_csv_table(write("unnamed.csv", "\n a,,b\n")),
               "unnamed.csv:2: column 2 of the header has an empty name");
  EXPECT_ERROR(read_csv_table(write("short.csv", "a,b\n1,2\n3\n")),
               "short.csv:3: found 1 fields, expected 2 (one per column of the header on line 1)");
  EXPECT_ERROR(read_csv_table(write("text.csv", "a,b\n1,2\n3,four\n")),
               "text.csv:3: column 'b' (2): 'four' is not a number");
  EXPECT_ERROR(read_csv_table(write("gap.csv", "a,b\n1, \n")), "gap.csv:2: column 'b' (2) is empty, expected a number");
  EXPECT_ERROR(read_csv_table(write("nan.csv", "a,b\nnan,2\n")),
               "nan.csv:2: column 'a' (1): 'nan' is not finite, expected a finite number");
  EXPECT_ERROR(read_csv_table(write("inf.csv", "a,b\n1,-inf\n")), "inf.csv:2: column 'b' (2): '-inf' is not finite");
  EXPECT_ERROR(read_csv_table(write("empty.csv", "\n\n")), "empty.csv: the file is empty");
  const std::string absent = path("absent.csv");
  EXPECT_ERROR(read_csv_table(absent), "read_csv_table: cannot open file '" + absent + "'");
}

TEST_F(DataFileTest, ReadDataFileDispatchesOnTheExtension) {
  EXPECT_EQ(at(read_data_file(write("d.json", R"({"N": 2})")), "N").values, Values{2});
  EXPECT_EQ(at(read_data_file(write("d.csv", "N\n2\n")), "N").shape, Shape{1});
  EXPECT_EQ(at(read_data_file(write_gzip("d.csv.gz", "N\n2\n3\n")), "N").values, (Values{2, 3}));
  EXPECT_EQ(at(read_data_file(write("D.JSON", R"({"N": 2})")), "N").values, Values{2});

  const std::string txt = write("d.txt", "N\n2\n");
  EXPECT_ERROR(read_data_file(txt), "read_data_file: " + txt + ": unknown extension '.txt'");
  EXPECT_ERROR(read_data_file(txt), "expected .json, .json.gz or .json.zip (CmdStan JSON");
  EXPECT_ERROR(read_data_file(txt), "or .csv / .csv.gz");
  EXPECT_ERROR(read_data_file(write("d.tsv.gz", "")), "unknown extension '.tsv.gz'");
  EXPECT_ERROR(read_data_file(write("data", "")), "the file name has no extension");
}

TEST_F(DataFileTest, ReadsJsonFromZipArchivesAndGzip) {
  const std::string json = R"({"N": 3, "y": [1.5, 2, -3]})";
  for (bool deflated : {false, true}) {
    const DataFile data = read_data_file(write_zip("d.json.zip", {{"d.json", json}}, deflated));
    EXPECT_EQ(at(data, "y").values, (Values{1.5, 2, -3})) << (deflated ? "deflated" : "stored");
  }
  EXPECT_EQ(at(read_data_file(write_gzip("d.json.gz", json)), "N").values, Values{3});
  // Folders in the archive are not members.
  EXPECT_EQ(at(read_data_file(write_zip("f.json.zip", {{"data/", ""}, {"data/d.json", json}}, true)), "N").values,
            Values{3});
}

TEST_F(DataFileTest, BrokenZipArchivesAreErrors) {
  const std::string two = write_zip("two.json.zip", {{"a.json", "{}"}, {"b.json", "{}"}}, true);
  EXPECT_ERROR(read_data_file(two), "a zip archive must hold exactly one file, found 2: a.json, b.json");
  std::string bytes = "PK\x03\x04 not really a zip";
  EXPECT_ERROR(read_data_file(write("junk.json.zip", bytes)), "not a readable zip archive");
  // Flip a byte of a stored member: its CRC-32 no longer matches.
  const std::string good = write_zip("good.json.zip", {{"d.json", R"({"N": 3})"}}, false);
  std::ifstream in(good, std::ios::binary);
  std::string zip((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  zip[30 + 6 + 2] = '4';  // inside the data, after the local header and the name
  EXPECT_ERROR(read_data_file(write("bad.json.zip", zip)), "CRC-32 mismatch");
}

// posteriordb ships its data as zip archives; read one when the data set is present.
TEST_F(DataFileTest, ReadsPosteriordbData) {
  const std::string file = std::string(VARIATE_SOURCE_DIR) + "/../shared/data/posteriordb/data/eight_schools.json.zip";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << "posteriordb data not found at " << file;
  const DataFile data = read_data_file(file);
  EXPECT_EQ(at(data, "J").values, Values{8});
  EXPECT_EQ(at(data, "y").values, (Values{28, 8, -3, 7, -1, 1, 18, 12}));
  EXPECT_TRUE(at(data, "sigma").integer);
}

// Editors on Windows start UTF-8 files with a byte-order mark: both formats read past it.
TEST_F(DataFileTest, AByteOrderMarkIsAcceptedInJsonAndCsv) {
  const std::string bom = "\xEF\xBB\xBF";
  const DataFile json = read_cmdstan_json(write("bom.json", bom + R"({"y": [1, 2]})"));
  EXPECT_EQ(json.at("y").values, (Values{1, 2}));
  const DataFile csv = read_csv_table(write("bom.csv", bom + "y,x\n1,2\n"));
  ASSERT_EQ(csv.count("y"), 1u);
  EXPECT_EQ(csv.at("y").values, (Values{1}));
  const DataFile gz = read_csv_table(write_gzip("bom.csv.gz", bom + "y\n3\n"));
  EXPECT_EQ(gz.at("y").values, (Values{3}));
}

// /dev/zero, /dev/urandom or a folder named as data would be read forever or make no sense.
TEST_F(DataFileTest, DevicesAndFoldersAreRefused) {
  EXPECT_ERROR(read_csv_table("/dev/zero"), "read_csv_table: '/dev/zero' is not a regular file (a device");
  EXPECT_ERROR(read_cmdstan_json("/dev/urandom"), "'/dev/urandom' is not a regular file");
  std::filesystem::create_symlink("/dev/zero", path("zero.csv"));
  EXPECT_ERROR(read_data_file(path("zero.csv")), "zero.csv' is not a regular file");
  std::filesystem::create_directory(path("folder.json"));
  EXPECT_ERROR(read_data_file(path("folder.json")), "folder.json' is a folder; expected a data file");
}

// A small file that inflates past the limit (lowered here from its 2 GiB) is refused while it
// inflates, whether gzip, zip or gzip in memory.
TEST_F(DataFileTest, CompressedDataInflatingPastTheLimitIsRefused) {
  const std::string zeros(1 << 20, '0');
  const std::string gz = write_gzip("bomb.csv.gz", "y\n" + zeros + "\n");
  ASSERT_LT(std::filesystem::file_size(gz), 10000u);
  constexpr std::size_t kLimit = 1 << 16;
  EXPECT_ERROR(detail::read_text_file(gz, "test", kLimit),
               "test: " + gz + ": holds more than 65536 bytes (after decompression), the limit for an input file");
  EXPECT_EQ(detail::read_text_file(gz, "test").size(), zeros.size() + 3);
  const std::string zip = write_zip("bomb.json.zip", {{"bomb.json", zeros}}, true);
  EXPECT_ERROR(detail::read_text_file(zip, "test", kLimit), "holds more than 65536 bytes");
  std::ifstream in(gz, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::span<const unsigned char> raw(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  EXPECT_ERROR(detail::gunzip(raw, "test", "memory", kLimit), "test: memory: holds more than 65536 bytes");
}

// Whatever the input holds, a bad input gives one line of at most 300 characters.
TEST_F(DataFileTest, ErrorsQuoteInputBoundedAndEscaped) {
  const std::string huge(5'000'000, 'a');
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"long_field.csv", "y\n" + huge + "\n"},
      {"long_name.csv", huge + ",y," + huge + "\n1,2,x\n"},
      {"control.csv", "y\n1\r2\x00\n"},
      {"long_string.json", R"({"y": ")" + huge + R"("})"},
      {"long_key.json", R"({")" + huge + R"(": [1, "a"]})"},
      {"control.json", "{\"y\": \"a\rb\"}"},
      {"bad_token.json", R"({"y": ")" + huge + "\r"},
      {"nul.json", std::string("{\"y\": 1\0}", 10)},
  };
  for (const auto& [name, contents] : cases) {
    const std::string message = testing::error_of([&] { read_data_file(write(name, contents)); });
    EXPECT_NE(message.find(name), std::string::npos) << message.substr(0, 300);
    EXPECT_LE(message.size(), 300u) << name << ": " << message.substr(0, 400);
    EXPECT_EQ(message.find_first_of(std::string("\r\n\0", 3)), std::string::npos) << name << ": " << message;
  }
  EXPECT_ERROR(read_csv_table(write("cr.csv", "y\n1\r2\n")), "column 'y' (1): '1\\r2' is not a number");
  const std::string shown = std::string(80, 'a') + "'... (5000000 bytes) is not a number";
  EXPECT_ERROR(read_csv_table(path("long_field.csv")), ": column 'y' (1): '" + shown);
}

}  // namespace
}  // namespace variate::data
