#include "variate/core/quote_input.hpp"

#include <gtest/gtest.h>

#include <string>

namespace variate {
namespace {

TEST(QuoteInput, QuotesShortTextAsItIs) {
  EXPECT_EQ(quote_input("1.5x"), "'1.5x'");
  EXPECT_EQ(quote_input(""), "''");
  EXPECT_EQ(quote_input("Misérables"), "'Misérables'");
}

TEST(QuoteInput, EscapesControlCharactersAndTheByteOrderMark) {
  EXPECT_EQ(quote_input("a\rb\nc\td"), "'a\\rb\\nc\\td'");
  EXPECT_EQ(quote_input(std::string("x\0y\x7F", 4)), "'x\\x00y\\x7F'");
  EXPECT_EQ(quote_input("\xEF\xBB\xBFy"), "'\\uFEFFy'");
}

TEST(QuoteInput, CutsLongTextAndGivesItsLength) {
  const std::string quoted = quote_input(std::string(50'000'000, 'a'));
  EXPECT_EQ(quoted, "'" + std::string(kQuotedInputLength, 'a') + "'... (50000000 bytes)");
  // Escapes count toward the limit, so a line of control characters stays as short.
  const std::string nuls = quote_input(std::string(1000, '\0'));
  EXPECT_LE(nuls.size(), kQuotedInputLength + 30);
  EXPECT_NE(nuls.find("... (1000 bytes)"), std::string::npos) << nuls;
}

TEST(QuoteInput, KeepsUtf8CharactersWhole) {
  const std::string text = std::string(kQuotedInputLength - 1, 'a') + "é" + std::string(10, 'b');
  const std::string quoted = quote_input(text);
  EXPECT_EQ(quoted,
            "'" + std::string(kQuotedInputLength - 1, 'a') + "é'... (" + std::to_string(text.size()) + " bytes)");
}

}  // namespace
}  // namespace variate
