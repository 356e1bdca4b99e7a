#pragma once
// The rows a facade function kept, as one matrix (private to the facade, src/).

#include <vector>

#include "loopdyn/common/types.hpp"

namespace loopdyn::detail {

/// rows[i][j] as entry (i, j) of a rows.size() x columns matrix.
inline MatX rowMatrix(const std::vector<std::vector<double>>& rows, std::size_t columns) {
  MatX values(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(columns));
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < rows[i].size(); ++j)
      values(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = rows[i][j];
  return values;
}

}  // namespace loopdyn::detail
