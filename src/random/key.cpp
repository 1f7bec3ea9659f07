#include "variate/random/key.hpp"

#include <ios>

#include "random/stream.hpp"

namespace variate::random {

namespace {

Key derive(Key key, std::uint64_t data, detail::Domain domain) {
  const auto block = detail::philox_block(key, data, 0, domain);
  return Key::from_words(block.v[0], block.v[1]);
}

// 64-bit FNV-1a (Fowler, Noll & Vo): short, stable across platforms and releases, which matters
// because site keys derived from names must reproduce old runs.
std::uint64_t fnv1a_64(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace

std::ostream& operator<<(std::ostream& out, const Key& key) {
  const auto flags = out.flags();
  out << "Key(0x" << std::hex << key.words[0] << ", 0x" << key.words[1] << ')';
  out.flags(flags);
  return out;
}

std::vector<Key> split(Key key, std::size_t n) {
  std::vector<Key> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = split_at(key, i);
  return keys;
}

std::pair<Key, Key> split(Key key) { return {split_at(key, 0), split_at(key, 1)}; }

Key split_at(Key key, std::uint64_t i) { return derive(key, i, detail::Domain::split); }

Key fold_in(Key key, std::uint64_t data) { return derive(key, data, detail::Domain::fold_in); }

Key fold_in(Key key, std::string_view name) { return derive(key, fnv1a_64(name), detail::Domain::fold_in_name); }

}  // namespace variate::random
