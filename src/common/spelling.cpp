#include "loopdyn/common/spelling.hpp"

#include <algorithm>
#include <numeric>

namespace loopdyn {

std::size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::size_t spellingTolerance(std::string_view word) {
  // short words: one edit; longer ones: a third of their length, 2 to 3 edits
  if (word.size() <= 3) return 1;
  return std::clamp<std::size_t>(word.size() / 3, 2, 3);
}

std::string didYouMean(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string* best = nullptr;
  std::size_t best_distance = 0;
  bool tied = false;
  for (const std::string& c : candidates) {
    const std::size_t d = editDistance(word, c);
    if (best != nullptr && d == best_distance && c != *best) tied = true;
    if (best == nullptr || d < best_distance) {
      best = &c;
      best_distance = d;
      tied = false;
    }
  }
  // a tie means the guess would be arbitrary (e.g. 'X' is one edit from every one-letter name)
  const std::size_t limit = spellingTolerance(word);
  if (best == nullptr || best_distance > limit || tied) return {};
  return " (did you mean '" + *best + "'?)";
}

}  // namespace loopdyn
