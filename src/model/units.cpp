#include "loopdyn/model/units.hpp"

#include <map>
#include <numbers>

namespace loopdyn {

namespace {

/// Each base quantity's units with their factors to SI (exact definitions: 1 in = 25.4 mm,
/// 1 lb = 0.45359237 kg, 1 lbf = 1 lb x 9.80665 m/s^2).
const std::map<std::string, std::vector<Unit>>& unitTable() {
  static const std::map<std::string, std::vector<Unit>> table = {
      {"length", {{"m", 1}, {"cm", 1e-2}, {"mm", 1e-3}, {"km", 1e3}, {"in", 0.0254}, {"ft", 0.3048}}},
      {"angle", {{"rad", 1}, {"deg", std::numbers::pi / 180}}},
      {"mass", {{"kg", 1}, {"g", 1e-3}, {"t", 1e3}, {"lb", 0.45359237}}},
      {"time", {{"s", 1}, {"ms", 1e-3}, {"min", 60}}},
      {"force", {{"N", 1}, {"kN", 1e3}, {"mN", 1e-3}, {"lbf", 0.45359237 * 9.80665}}},
  };
  return table;
}

}  // namespace

Scalar Units::factor(Quantity q) const {
  const Scalar L = length.to_si, A = angle.to_si, M = mass.to_si, T = time.to_si, F = force.to_si;
  switch (q) {
    case Quantity::Length: return L;
    case Quantity::Angle: return A;
    case Quantity::Mass: return M;
    case Quantity::Time: return T;
    case Quantity::Force: return F;
    case Quantity::Torque: return F * L;
    case Quantity::Inertia: return M * L * L;
    case Quantity::Velocity: return L / T;
    case Quantity::AngularVelocity: return A / T;
    case Quantity::Acceleration: return L / (T * T);
    case Quantity::Frequency: return 1 / T;
    case Quantity::Stiffness: return F / L;
    case Quantity::Damping: return F * T / L;
    case Quantity::Dimensionless: return 1;
  }
  return 1;
}

std::string Units::describe() const {
  std::string text;
  for (const auto& [quantity, unit] : {std::pair{"length", &length}, {"angle", &angle}, {"mass", &mass},
                                       {"time", &time}, {"force", &force}}) {
    if (unit->to_si == 1) continue;
    text += (text.empty() ? "" : ", ") + std::string(quantity) + " " + unit->name;
  }
  return text.empty() ? "SI" : text;
}

const std::vector<std::string>& unitNames(const std::string& quantity) {
  static const std::map<std::string, std::vector<std::string>> names = [] {
    std::map<std::string, std::vector<std::string>> out;
    for (const auto& [q, units] : unitTable())
      for (const Unit& u : units) out[q].push_back(u.name);
    return out;
  }();
  static const std::vector<std::string> none;
  const auto it = names.find(quantity);
  return it == names.end() ? none : it->second;
}

std::optional<Unit> unitNamed(const std::string& quantity, const std::string& name) {
  const auto it = unitTable().find(quantity);
  if (it == unitTable().end()) return std::nullopt;
  for (const Unit& u : it->second)
    if (u.name == name) return u;
  return std::nullopt;
}

}  // namespace loopdyn
