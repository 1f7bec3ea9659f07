#include "variate/random/key.hpp"

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "random/stream.hpp"
#include "variate/random/samplers.hpp"

namespace variate::random {
namespace {

std::pair<std::uint32_t, std::uint32_t> words(Key k) { return {k.words[0], k.words[1]}; }

TEST(Key, PhiloxMatchesRandom123KnownAnswers) {
  // Known-answer vectors published with Random123 (kat_vectors, philox4x32 10). They also pin how a
  // counter is laid out: word 0 = low half of the index, word 1 = high half, word 2 = j, word 3 =
  // domain.
  const auto zero = detail::philox_block(Key(0), 0, 0, detail::Domain::sample);
  EXPECT_EQ(zero.v[0], 0x6627e8d5u);
  EXPECT_EQ(zero.v[1], 0xe169c58du);
  EXPECT_EQ(zero.v[2], 0xbc57ac4cu);
  EXPECT_EQ(zero.v[3], 0x9b00dbd8u);
  const auto pi = detail::philox_block(Key::from_words(0xa4093822, 0x299f31d0), 0x85a308d3243f6a88, 0x13198a2e,
                                       detail::Domain(0x03707344));
  EXPECT_EQ(pi.v[0], 0xd16cfe09u);
  EXPECT_EQ(pi.v[1], 0x94fdccebu);
  EXPECT_EQ(pi.v[2], 0x5001e420u);
  EXPECT_EQ(pi.v[3], 0x24126ea1u);
}

TEST(Key, SeedIsSplitIntoLowAndHighWords) {
  EXPECT_EQ(words(Key(0x1234567890abcdefULL)), std::make_pair(0x90abcdefu, 0x12345678u));
  EXPECT_EQ(Key(), Key(0));
  EXPECT_EQ(Key::from_words(5, 6), Key(0x0000000600000005ULL));
}

// Every seeded result in the library depends on these derivations; a change here changes all of
// them and must be deliberate.
TEST(Key, DerivationsAreStableAcrossReleases) {
  EXPECT_EQ(words(split_at(Key(0), 0)), std::make_pair(0x2dce73e5u, 0x1348e23fu));
  EXPECT_EQ(words(split_at(Key(0), 1)), std::make_pair(0xe9535be3u, 0x510c4549u));
  EXPECT_EQ(words(fold_in(Key(42), 7)), std::make_pair(0x72f51705u, 0xeb96c96fu));
  EXPECT_EQ(words(fold_in(Key(42), "theta")), std::make_pair(0x2c968ed3u, 0x413840afu));
  const Tensor u = uniform(Key(0), {3});
  EXPECT_EQ(u.at(0), 0x1.c2d38b1acc4fdp-1);
  EXPECT_EQ(u.at(1), 0x1.72c8036fe3932p-2);
  EXPECT_EQ(u.at(2), 0x1.471cca9813ea8p-2);
}

TEST(Key, DerivationIsDeterministic) {
  EXPECT_EQ(split(Key(7), 5), split(Key(7), 5));
  EXPECT_EQ(fold_in(Key(7), 3), fold_in(Key(7), 3));
  EXPECT_EQ(fold_in(Key(7), "mu"), fold_in(Key(7), std::string("mu")));
}

TEST(Key, SplitGivesDistinctKeysConsistentAcrossForms) {
  const Key key(2024);
  const std::vector<Key> keys = split(key, 1000);
  std::set<std::pair<std::uint32_t, std::uint32_t>> seen{words(key)};
  for (const Key& k : keys) seen.insert(words(k));
  EXPECT_EQ(seen.size(), 1001u);
  for (std::uint64_t i = 0; i < keys.size(); ++i) EXPECT_EQ(split_at(key, i), keys[i]);
  EXPECT_EQ(split(key, 3)[2], keys[2]);  // split(key, n)[i] does not depend on n
  const auto [a, b] = split(key);
  EXPECT_EQ(a, keys[0]);
  EXPECT_EQ(b, keys[1]);
  EXPECT_TRUE(split(key, 0).empty());
  EXPECT_NE(split_at(Key(2025), 0), keys[0]);
}

TEST(Key, FoldInGivesDistinctKeysPerDataAndDomain) {
  const Key key(99);
  std::set<std::pair<std::uint32_t, std::uint32_t>> seen;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    seen.insert(words(fold_in(key, i)));
    seen.insert(words(split_at(key, i)));  // split and fold_in are separate domains
  }
  for (const char* name : {"", "mu", "sigma", "theta", "theta0", "3"}) seen.insert(words(fold_in(key, name)));
  EXPECT_EQ(seen.size(), 2006u);
  EXPECT_NE(fold_in(key, "3"), fold_in(key, 3));
  EXPECT_NE(fold_in(Key(98), 0), fold_in(key, 0));
  // Large data values use both counter words.
  EXPECT_NE(fold_in(key, 1ULL << 32), fold_in(key, 0));
}

TEST(Key, Prints) {
  std::ostringstream out;
  out << Key::from_words(0x2a, 0) << ' ' << 17;
  EXPECT_EQ(out.str(), "Key(0x2a, 0x0) 17");  // the stream's formatting is restored
}

}  // namespace
}  // namespace variate::random
