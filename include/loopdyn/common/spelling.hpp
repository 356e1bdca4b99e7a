#pragma once
/// Spelling help for error messages.

#include <string>
#include <string_view>
#include <vector>

namespace loopdyn {

/// Levenshtein edit distance between two words.
std::size_t editDistance(std::string_view a, std::string_view b);

/// How many edits a misspelling of `word` may have and still be recognised.
std::size_t spellingTolerance(std::string_view word);

/// " (did you mean 'x'?)" for the closest candidate within a small edit distance, else "" (also
/// when several candidates are equally close).
std::string didYouMean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace loopdyn
