#include "loopdyn/analysis/independent_rows.hpp"

#include <numeric>

#include "loopdyn/common/check.hpp"
#include "loopdyn/common/errors.hpp"

#include "loopdyn/kinematics/scaling.hpp"

namespace loopdyn {

Scalar rowsSingularValueRatio(const Model& model, const KinematicsWorkspace& ws, const std::vector<int>& rows) {
  const SparseMatrix Cs = scaledSparseRows(model.scaling(), ws.C, rows);
  const SparseMatrix G = Cs * Cs.transpose();
  return gramSingularValueRatio(G);
}

SparseMatrix scaledGram(const Model& model, const KinematicsWorkspace& ws) {
  std::vector<int> rows(static_cast<std::size_t>(model.nc()));
  std::iota(rows.begin(), rows.end(), 0);
  const SparseMatrix Cs = scaledSparseRows(model.scaling(), ws.C, rows);
  return Cs * Cs.transpose();
}

Scalar singularValueRatio(const Model& model, const KinematicsWorkspace& ws) {
  return gramSingularValueRatio(scaledGram(model, ws));
}

void requireDenseSize(const Model& model, const KinematicsWorkspace& ws, std::string_view what) {
  if (model.nv() <= kLargestDenseSize && model.nc() <= kLargestDenseSize) return;
  const std::string problem = denseSizeProblem(
      model, what,
      detail::concat("it is asked for because the constraint equations are not certified independent here (sigma_min "
                     "/ sigma_max of the scaled C = ",
                     singularValueRatio(model, ws), ", below ", kCertifiedRatio,
                     "): loopdyn analyses a model this large only where its equations are independent -- no "
                     "redundant joint, a regular configuration"));
  throw InvalidArgument(problem);
}

}  // namespace loopdyn
