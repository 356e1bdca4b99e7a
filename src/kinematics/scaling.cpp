#include "loopdyn/kinematics/scaling.hpp"

namespace loopdyn {

ConstraintScaling constraintScaling(const Model& model) {
  const Scalar L = model.characteristicLength();
  ConstraintScaling s{VecX::Ones(model.nc()), VecX::Ones(model.nv())};
  for (int r = 0; r < model.nc(); ++r)
    if (model.equations()[static_cast<std::size_t>(r)].kind == EquationKind::Angular) s.row(r) = L;
  const int nvb = model.vPerBody();
  const int first_rotational = model.dimension() == 2 ? 2 : 3;
  for (int b = 0; b < model.nb(); ++b)
    for (int k = first_rotational; k < nvb; ++k) s.col(b * nvb + k) = 1 / L;
  return s;
}

}  // namespace loopdyn
