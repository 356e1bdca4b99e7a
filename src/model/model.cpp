#include "loopdyn/model/model.hpp"

#include "loopdyn/common/check.hpp"

namespace loopdyn {

BodyIndex Model::bodyIndex(const std::string& name) const {
  if (name == "ground") return kGround;
  for (std::size_t b = 0; b < bodies_.size(); ++b)
    if (bodies_[b].name == name) return static_cast<BodyIndex>(b);
  throw InvalidArgument("model '" + name_ + "' has no body '" + name + "'");
}

int Model::pairIndex(const std::string& name) const {
  for (std::size_t k = 0; k < pairs_.size(); ++k)
    if (pairs_[k].name == name) return static_cast<int>(k);
  throw InvalidArgument("model '" + name_ + "' has no joint or driver '" + name + "'");
}

const std::string& Model::bodyName(BodyIndex b) const {
  static const std::string ground = "ground";
  if (b == kGround) return ground;
  LOOPDYN_CHECK(b >= 0 && b < nb(), "body index ", b, " out of range [0, ", nb(), ")");
  return bodies_[static_cast<std::size_t>(b)].name;
}

}  // namespace loopdyn
