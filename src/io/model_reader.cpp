#include "loopdyn/io/model_reader.hpp"

#include <sys/stat.h>

#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <numbers>
#include <optional>
#include <sstream>

#include "loopdyn/common/spelling.hpp"
#include "loopdyn/model/units.hpp"
#include "loopdyn/spatial/rotation.hpp"
#include "yaml_document.hpp"

namespace loopdyn::io {

namespace {

/// Reads one file, collecting diagnostics instead of stopping at the first problem.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  SourceLocation where(const YamlNode& node) const {
    if (!node.IsDefined()) return {file_, 0, 0};
    const YAML::Mark mark = node.Mark();
    if (mark.line < 0) return {file_, 0, 0};
    return {file_, mark.line + 1, mark.column + 1};
  }

  template <typename... Args>
  void error(const YamlNode& node, const Args&... args) {
    diagnostics_.push_back({where(node), detail::concat(args...)});
  }
  template <typename... Args>
  void errorAt(const SourceLocation& at, const Args&... args) {
    diagnostics_.push_back({at, detail::concat(args...)});
  }
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  /// What looks wrong but is not an error: said, and the file read as written.
  template <typename... Args>
  void warnAt(const SourceLocation& at, const Args&... args) {
    warnings_.push_back({at, detail::concat(args...)});
  }
  const std::vector<Diagnostic>& warnings() const { return warnings_; }

  /// The file's units (`units:`, read first); every quantity below is converted to SI with them.
  Units units;

  /// Reports keys of `map` not in `allowed` (`what` names the map in the message), keys given
  /// twice (YAML lets the first win silently) and keys without a value.
  bool checkMap(const YamlNode& map, std::initializer_list<const char*> allowed, const std::string& what) {
    if (!map.IsMap()) {
      error(map, what, " must be a mapping of keys to values");
      return false;
    }
    std::vector<std::string> names(allowed.begin(), allowed.end());
    std::vector<std::pair<std::string, int>> seen;  // key, line
    for (auto it = map.begin(); it != map.end(); ++it) {
      const std::string key = it->first.as<std::string>("");
      if (std::find(names.begin(), names.end(), key) == names.end())
        error(it->first, "unknown key '", key, "' in ", what, didYouMean(key, names));
      const auto first = std::find_if(seen.begin(), seen.end(), [&](const auto& k) { return k.first == key; });
      if (first != seen.end())
        error(it->first, what, ": key '", key, "' given twice (first on line ", first->second, "): say it once");
      seen.emplace_back(key, where(it->first).line);
      if (it->second.IsNull()) noValue(it->second, key, what);
    }
    return true;
  }

  /// A key written without a value; said once for its place (checkMap and require both look).
  void noValue(const YamlNode& value, const std::string& key, const std::string& what) {
    const SourceLocation at = where(value);
    for (const Diagnostic& d : diagnostics_)
      if (d.where.line == at.line && d.where.column == at.column && d.message.find("has no value") != std::string::npos)
        return;
    errorAt(at, what, ": key '", key, "' has no value");
  }

  /// A list item written without a value (`- ` or `~`): YAML keeps it as null, which would be
  /// dropped without a word.
  bool nullItem(const YamlNode& item, const std::string& what) {
    if (!item.IsNull()) return false;
    error(item, what, ": an empty item in the list");
    return true;
  }

  bool scalar(const YamlNode& node, Scalar& out, const std::string& what) {
    if (!node.IsDefined() || node.IsNull()) return false;  // reported by require()
    if (node.IsScalar()) {
      try {
        out = node.as<Scalar>();
        if (std::isfinite(out)) return true;
      } catch (const YAML::Exception&) {
      }
    }
    error(node, what, ": expected a finite number, got ", describe(node));
    return false;
  }

  /// A number of quantity q in the file's units, converted to SI (an angle checked by lookLikeDegrees).
  bool quantity(const YamlNode& node, Quantity q, Scalar& out, const std::string& what) {
    if (!scalar(node, out, what)) return false;
    out *= units.factor(q);
    if (q == Quantity::Angle) lookLikeDegrees(node, out, what);
    return true;
  }

  /// A vector of quantity q in the file's units, converted to SI.
  bool vectorOf(const YamlNode& node, int dimension, Quantity q, Vec3& out, const std::string& what) {
    if (!vector(node, dimension, out, what)) return false;
    out *= units.factor(q);
    return true;
  }

  /// `size` angles in the file's units, converted to radians.
  bool angles(const YamlNode& node, int size, std::vector<Scalar>& out, const std::string& what) {
    if (!numbers(node, size, out, what)) return false;
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i] *= units.factor(Quantity::Angle);
      lookLikeDegrees(node[i], out[i], what);
    }
    return true;
  }

  /// An angle in radians of more than a turn, written as a whole number: most likely degrees.
  void lookLikeDegrees(const YamlNode& node, Scalar radians, const std::string& what) {
    if (units.angle.to_si != 1 || std::abs(radians) <= 2 * std::numbers::pi) return;
    const std::string& text = node.Scalar();
    if (text.find_first_of(".eE") != std::string::npos) return;
    warnAt(where(node), what, ": ", text, " rad is more than a turn, and written as a whole number it looks like degrees; "
         "write radians or declare `units: {angle: deg}`");
  }

  bool integer(const YamlNode& node, int& out, const std::string& what) {
    if (!node.IsDefined() || node.IsNull()) return false;  // reported by require()
    if (node.IsScalar()) {
      try {
        out = node.as<int>();
        return true;
      } catch (const YAML::Exception&) {
      }
    }
    error(node, what, ": expected an integer, got ", describe(node));
    return false;
  }

  bool flag(const YamlNode& node, bool& out, const std::string& what) {
    if (node.IsScalar() && node.decodeBool(out)) return true;
    error(node, what, ": expected true or false, got ", describe(node));
    return false;
  }

  bool text(const YamlNode& node, std::string& out, const std::string& what) {
    if (!node.IsDefined() || node.IsNull()) return false;  // reported by require()
    if (node.IsScalar() && !node.Scalar().empty()) {
      out = node.Scalar();
      return true;
    }
    error(node, what, ": expected a name, got ", describe(node));
    return false;
  }

  /// A name: text without control characters, commas or double quotes (they would break a
  /// diagnostic's line or a CSV column); without '.' unless `dot` (a body's: "body.marker").
  bool name(const YamlNode& node, std::string& out, const std::string& what, bool dot = true) {
    if (!text(node, out, what)) return false;
    for (const char c : out) {
      const auto byte = static_cast<unsigned char>(c);
      const char* why = byte < 0x20 || byte == 0x7F ? "a control character (a line break, a tab)"
                        : c == ','                  ? "a comma, which would split a CSV column"
                        : c == '"'                  ? "a double quote, which would open a quoted CSV column"
                        : !dot && c == '.'          ? "a '.', which separates a body from its marker (body.marker)"
                                                    : nullptr;
      if (why != nullptr) {
        error(node, what, " '", out, "' holds ", why);
        return false;
      }
    }
    return true;
  }

  /// A list of exactly `size` numbers (size -1: any length >= 1).
  bool numbers(const YamlNode& node, int size, std::vector<Scalar>& out, const std::string& what) {
    if (!node.IsDefined() || node.IsNull()) return false;  // reported by require()
    out.clear();
    if (!node.IsSequence() || (size >= 0 && static_cast<int>(node.size()) != size) || node.size() == 0) {
      error(node, what, ": expected a list of ", size >= 0 ? std::to_string(size) : std::string("one or more"),
            " numbers, got ", describe(node));
      return false;
    }
    bool ok = true;
    for (const YamlNode& item : node) {
      Scalar value = 0;
      ok = !nullItem(item, what) && scalar(item, value, what) && ok;
      out.push_back(value);
    }
    return ok;
  }

  bool vector(const YamlNode& node, int dimension, Vec3& out, const std::string& what) {
    std::vector<Scalar> values;
    if (!numbers(node, dimension, values, what)) return false;
    out.setZero();
    for (int i = 0; i < dimension; ++i) out(i) = values[static_cast<std::size_t>(i)];
    return true;
  }

  /// A nonzero direction (zero-length axes are errors).
  bool direction(const YamlNode& node, Vec3& out, const std::string& what) {
    if (!vector(node, 3, out, what)) return false;
    if (out.norm() <= 1e-12) {
      error(node, what, ": zero-length axis");
      return false;
    }
    return true;
  }

  /// "body.marker".
  bool markerRef(const YamlNode& node, MarkerRef& out, const std::string& what) {
    std::string s;
    if (nullItem(node, what) || !text(node, s, what)) return false;
    const std::size_t dot = s.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == s.size()) {
      error(node, what, ": expected 'body.marker', got '", s, "'");
      return false;
    }
    out = MarkerRef{s.substr(0, dot), s.substr(dot + 1), where(node)};
    return true;
  }

  static std::string describe(const YamlNode& node) {
    if (!node.IsDefined() || node.IsNull()) return "nothing";
    if (node.IsScalar()) return "'" + node.Scalar() + "'";
    if (node.IsSequence()) return "a list of " + std::to_string(node.size());
    return "a mapping";
  }

 private:
  std::string file_;
  std::vector<Diagnostic> diagnostics_, warnings_;
};

/// A required key: reports it missing (at the map) and returns an undefined node.
YamlNode require(Reader& r, const YamlNode& map, const char* key, const std::string& what) {
  const YamlNode node = map[key];
  if (!node.IsDefined()) {
    // a misspelt key was already reported with a "did you mean" hint: say it once
    bool misspelt = false;
    for (auto it = map.begin(); map.IsMap() && it != map.end(); ++it)
      misspelt = misspelt || editDistance(it->first.as<std::string>(""), key) <= spellingTolerance(key);
    if (!misspelt) r.error(map, what, ": missing required key '", key, "'");
    // (yaml-cpp's node for a missing key throws on every question but IsDefined; this one answers)
    return YamlNode();
  } else if (node.IsNull()) {
    r.noValue(node, key, what);
  }
  return node;
}

/// map[key]; for a missing key an undefined node that answers every question (the one yaml-cpp
/// returns throws on all of them but IsDefined, and a misspelt key must give a located error).
YamlNode at(const YamlNode& map, const char* key) {
  const YamlNode node = map[key];
  return node.IsDefined() ? node : YamlNode();
}

bool has(const YamlNode& map, const char* key) {
  const YamlNode node = map[key];
  return node.IsDefined() && !node.IsNull();
}

/// A 3D orientation: exactly one of zxz, quaternion, axis_angle, matrix.
bool readOrientation(Reader& r, const YamlNode& node, Mat3& out, const std::string& what) {
  if (!r.checkMap(node, {"zxz", "quaternion", "axis_angle", "matrix"}, what)) return false;
  if (node.size() != 1) {
    r.error(node, what, ": give exactly one of zxz, quaternion, axis_angle, matrix");
    return false;
  }
  std::vector<Scalar> v;
  if (has(node, "zxz")) {
    if (!r.angles(at(node, "zxz"), 3, v, what + ".zxz")) return false;
    out = rotationZXZ(v[0], v[1], v[2]);
  } else if (has(node, "quaternion")) {
    if (!r.numbers(at(node, "quaternion"), 4, v, what + ".quaternion")) return false;
    const Quat q(v[0], v[1], v[2], v[3]);
    if (q.norm() < 1e-12) {
      r.error(at(node, "quaternion"), what, ".quaternion: zero quaternion");
      return false;
    }
    out = q.normalized().toRotationMatrix();
  } else if (has(node, "axis_angle")) {
    const YamlNode aa = at(node, "axis_angle");
    if (!r.checkMap(aa, {"axis", "angle"}, what + ".axis_angle")) return false;
    Vec3 axis;
    Scalar angle = 0;
    if (!r.direction(require(r, aa, "axis", what + ".axis_angle"), axis, what + ".axis_angle.axis")) return false;
    if (!r.quantity(require(r, aa, "angle", what + ".axis_angle"), Quantity::Angle, angle, what + ".axis_angle.angle"))
      return false;
    out = rotationAxisAngle(axis, angle);
  } else if (has(node, "matrix")) {
    const YamlNode m = at(node, "matrix");
    if (!m.IsSequence() || m.size() != 3) {
      r.error(m, what, ".matrix: expected 3 rows of 3 numbers");
      return false;
    }
    for (int i = 0; i < 3; ++i) {
      if (!r.numbers(m[i], 3, v, what + ".matrix")) return false;
      for (int j = 0; j < 3; ++j) out(i, j) = v[static_cast<std::size_t>(j)];
    }
    if ((out.transpose() * out - Mat3::Identity()).norm() > 1e-6 || out.determinant() < 0) {
      r.error(m, what, ".matrix: not a rotation matrix (must be orthonormal with determinant +1)");
      return false;
    }
  } else {
    r.error(node, what, ": give exactly one of zxz, quaternion, axis_angle, matrix, with its value");
    return false;
  }
  return true;
}

/// A 3D marker's `axis` (its z-axis) and, when given, `x_axis` (made perpendicular to it); without
/// x_axis, frameWithZAxis's rule (spatial/rotation.hpp).
void readAxes(Reader& r, const YamlNode& node, const std::string& label, MarkerSpec& out) {
  Vec3 axis;
  if (!r.direction(at(node, "axis"), axis, label + " axis")) return;
  if (!has(node, "x_axis")) {
    out.orientation = frameWithZAxis(axis);
    return;
  }
  Vec3 x;
  if (!r.direction(at(node, "x_axis"), x, label + " x_axis")) return;
  if (x.normalized().cross(axis.normalized()).norm() < 1e-6) {
    r.error(at(node, "x_axis"), label, " x_axis: parallel to the axis; it must have a part perpendicular to it");
    return;
  }
  out.orientation = frameWithAxes(axis, x);
}

void readMarker(Reader& r, const YamlNode& node, int dimension, MarkerSpec& out, const std::string& owner) {
  const std::string what = "marker of " + owner;
  if (dimension == 2) {
    if (!r.checkMap(node, {"name", "position", "angle"}, what)) return;
  } else if (!r.checkMap(node, {"name", "position", "axis", "x_axis", "orientation"}, what)) {
    return;
  }
  out.where = r.where(node);
  r.name(require(r, node, "name", what), out.name, what + " name");
  const std::string label = "marker '" + out.name + "'";
  if (has(node, "position"))
    r.vectorOf(at(node, "position"), dimension, Quantity::Length, out.position, label + " position");
  if (dimension == 2 && has(node, "angle") && r.quantity(at(node, "angle"), Quantity::Angle, out.angle, label + " angle"))
    out.orientation = rotationZ(out.angle);
  if (dimension == 3) {
    if (has(node, "axis") && has(node, "orientation")) {
      r.error(node, label, ": give either axis or orientation, not both");
    } else if (has(node, "x_axis") && !has(node, "axis")) {
      r.error(node, label, ": x_axis needs axis (the joint axis it is perpendicular to)");
    } else if (has(node, "axis")) {
      readAxes(r, node, label, out);
    } else if (has(node, "orientation")) {
      readOrientation(r, at(node, "orientation"), out.orientation, label + " orientation");
    }
  }
}

void readMarkers(Reader& r, const YamlNode& node, int dimension, std::vector<MarkerSpec>& out,
                 const std::string& owner) {
  if (!node.IsDefined() || node.IsNull()) return;
  if (!node.IsSequence()) {
    r.error(node, "markers of ", owner, ": expected a list");
    return;
  }
  for (const YamlNode& item : node) {
    MarkerSpec marker;
    readMarker(r, item, dimension, marker, owner);
    out.push_back(std::move(marker));
  }
}

/// The inertia in any of its forms; false (the problem reported) when it cannot be read.
bool readInertia(Reader& r, const YamlNode& node, int dimension, Mat3& out, const std::string& what) {
  if (dimension == 2) {
    Scalar izz = 0;
    if (!r.scalar(node, izz, what + " inertia")) return false;
    out(2, 2) = izz;
    return true;
  }
  std::vector<Scalar> v;
  if (node.IsMap()) {
    if (!r.checkMap(node, {"principal", "orientation"}, what + " inertia")) return false;
    Mat3 axes = Mat3::Identity();
    if (!r.numbers(require(r, node, "principal", what + " inertia"), 3, v, what + " inertia.principal")) return false;
    if (has(node, "orientation") && !readOrientation(r, at(node, "orientation"), axes, what + " inertia.orientation"))
      return false;
    out = axes * Vec3(v[0], v[1], v[2]).asDiagonal() * axes.transpose();
    out = 0.5 * (out + out.transpose()).eval();
    return true;
  }
  if (node.IsSequence() && node.size() == 3 && node[0].IsScalar()) {
    if (!r.numbers(node, 3, v, what + " inertia")) return false;
    out = Vec3(v[0], v[1], v[2]).asDiagonal();
    return true;
  }
  if (node.IsSequence() && node.size() == 3) {
    for (int i = 0; i < 3; ++i) {
      if (!r.numbers(node[i], 3, v, what + " inertia")) return false;
      for (int j = 0; j < 3; ++j) out(i, j) = v[static_cast<std::size_t>(j)];
    }
    return true;
  }
  r.error(node, what, " inertia: expected [Ixx, Iyy, Izz], a 3x3 tensor, or {principal, orientation}");
  return false;
}

void readBody(Reader& r, const YamlNode& node, int dimension, BodySpec& out) {
  if (dimension == 2) {
    if (!r.checkMap(node, {"name", "mass", "inertia", "position", "angle", "velocity", "markers", "hold"}, "body"))
      return;
  } else if (!r.checkMap(node, {"name", "mass", "inertia", "position", "orientation", "velocity", "markers", "hold"},
                         "body")) {
    return;
  }
  out.where = r.where(node);
  r.name(require(r, node, "name", "body"), out.name, "body name", false);
  const std::string what = "body '" + out.name + "'";
  // each value checked where it stands, so that every problem of the file is reported together
  const YamlNode mass = require(r, node, "mass", what);
  if (r.quantity(mass, Quantity::Mass, out.mass, what + " mass"))
    if (const std::string problem = massProblem(out.mass); !problem.empty()) r.error(mass, what, ": ", problem);
  const YamlNode inertia = require(r, node, "inertia", what);
  if (inertia.IsDefined() && !inertia.IsNull() && readInertia(r, inertia, dimension, out.inertia, what) &&
      (out.inertia *= r.units.factor(Quantity::Inertia), true))
    if (const std::string problem = inertiaProblem(out.inertia, dimension); !problem.empty())
      r.error(inertia, what, ": ", problem);
  if (has(node, "position")) r.vectorOf(at(node, "position"), dimension, Quantity::Length, out.position, what + " position");
  if (dimension == 2 && has(node, "angle") && r.quantity(at(node, "angle"), Quantity::Angle, out.angle, what + " angle"))
    out.orientation = rotationZ(out.angle);
  if (dimension == 3 && has(node, "orientation"))
    readOrientation(r, at(node, "orientation"), out.orientation, what + " orientation");
  if (has(node, "velocity")) {
    const YamlNode v = at(node, "velocity");
    if (r.checkMap(v, {"linear", "angular"}, what + " velocity")) {
      Vec3 value = Vec3::Zero();
      if (has(v, "linear") && r.vectorOf(at(v, "linear"), dimension, Quantity::Velocity, value, what + " velocity.linear"))
        out.linear_velocity = value;
      if (has(v, "angular")) {
        value.setZero();
        if (dimension == 2) {
          if (r.quantity(at(v, "angular"), Quantity::AngularVelocity, value.z(), what + " velocity.angular"))
            out.angular_velocity = value;
        } else if (r.vectorOf(at(v, "angular"), 3, Quantity::AngularVelocity, value, what + " velocity.angular")) {
          out.angular_velocity = value;
        }
      }
    }
  }
  if (bool hold = false; has(node, "hold") && r.flag(at(node, "hold"), hold, what + " hold")) out.hold = hold;
  readMarkers(r, at(node, "markers"), dimension, out.markers, what);
}

std::vector<std::string> jointTypeNames() {
  return {"revolute", "prismatic", "cylindrical", "universal", "spherical", "planar", "fixed", "distance",
          "knife_edge"};
}

void readJoint(Reader& r, const YamlNode& node, JointSpec& out) {
  if (!r.checkMap(node, {"name", "type", "between", "at", "length", "cut"}, "joint")) return;
  out.where = r.where(node);
  r.name(require(r, node, "name", "joint"), out.name, "joint name");
  const std::string what = "joint '" + out.name + "'";
  std::string type;
  const YamlNode type_node = require(r, node, "type", what);
  if (!r.text(type_node, type, what + " type")) return;
  const auto parsed = jointTypeFromName(type);
  if (!parsed) {
    r.error(type_node, what, ": unknown joint type '", type, "'", didYouMean(type, jointTypeNames()));
    return;
  }
  out.type = *parsed;
  if (out.type == JointType::KnifeEdge) {
    if (has(node, "between")) r.error(at(node, "between"), what, ": a knife edge acts at one marker: use 'at: body.marker'");
    r.markerRef(require(r, node, "at", what), out.first, what + " at");
  } else {
    if (has(node, "at")) r.error(at(node, "at"), what, ": 'at' is for knife edges; use 'between: [body.marker, body.marker]'");
    const YamlNode between = require(r, node, "between", what);
    if (between.IsDefined() && !between.IsNull()) {
      if (!between.IsSequence() || between.size() != 2) {
        r.error(between, what, " between: expected [body.marker, body.marker]");
      } else {
        r.markerRef(between[0], out.first, what + " between");
        r.markerRef(between[1], out.second, what + " between");
      }
    }
  }
  if (bool cut = false; has(node, "cut") && r.flag(at(node, "cut"), cut, what + " cut")) out.cut = cut;
  if (out.type == JointType::Distance) {
    r.quantity(require(r, node, "length", what), Quantity::Length, out.length, what + " length");
  } else if (has(node, "length")) {
    r.error(at(node, "length"), what, ": 'length' is only for distance joints");
  }
}

/// A profile of quantity `value` over time, converted to SI: its values (a polynomial's c_k in
/// value / time^k), its times, a sine's frequency (per time) and phase (an angle).
void readProfile(Reader& r, const YamlNode& node, Profile& out, const std::string& owner, Quantity value_quantity) {
  const Scalar Q = r.units.factor(value_quantity), T = r.units.factor(Quantity::Time);
  const std::string what = owner + " profile";
  if (!node.IsMap()) {
    r.error(node, what, ": expected a mapping with a 'type'");
    return;
  }
  std::string type;
  if (!r.text(require(r, node, "type", what), type, what + " type")) return;
  std::vector<Scalar> v;
  if (type == "constant") {
    if (!r.checkMap(node, {"type", "value"}, what)) return;
    Scalar value = 0;
    if (r.scalar(require(r, node, "value", what), value, what + " value")) out = Profile::constant(Q * value);
  } else if (type == "polynomial") {
    if (!r.checkMap(node, {"type", "coefficients"}, what)) return;
    if (r.numbers(require(r, node, "coefficients", what), -1, v, what + " coefficients")) {
      for (std::size_t k = 0; k < v.size(); ++k) v[k] *= Q / std::pow(T, static_cast<Scalar>(k));
      out = Profile::polynomial(v);
    }
  } else if (type == "sine") {
    if (!r.checkMap(node, {"type", "offset", "amplitude", "frequency", "phase"}, what)) return;
    Scalar offset = 0, amplitude = 0, frequency = 0, phase = 0;
    bool ok = r.quantity(require(r, node, "amplitude", what), value_quantity, amplitude, what + " amplitude");
    ok = r.quantity(require(r, node, "frequency", what), Quantity::Frequency, frequency, what + " frequency") && ok;
    if (has(node, "offset")) ok = r.quantity(at(node, "offset"), value_quantity, offset, what + " offset") && ok;
    if (has(node, "phase")) ok = r.quantity(at(node, "phase"), Quantity::Angle, phase, what + " phase") && ok;
    if (ok) out = Profile::sine(offset, amplitude, frequency, phase);
  } else if (type == "table") {
    if (!r.checkMap(node, {"type", "t", "value"}, what)) return;
    std::vector<Scalar> t;
    const YamlNode tn = require(r, node, "t", what);
    if (!r.numbers(tn, -1, t, what + " t") || !r.numbers(require(r, node, "value", what), -1, v, what + " value"))
      return;
    if (t.size() != v.size() || t.size() < 2) {
      r.error(node, what, ": 't' and 'value' must have the same length, at least 2 (got ", t.size(), " and ",
              v.size(), ")");
      return;
    }
    for (std::size_t i = 1; i < t.size(); ++i) {
      if (!(t[i] > t[i - 1])) {
        r.error(tn[i], what, ": times must increase strictly (t[", i, "] = ", t[i], " after ", t[i - 1], ")");
        return;
      }
    }
    for (Scalar& x : t) x *= T;
    for (Scalar& x : v) x *= Q;
    out = Profile::table(t, v);
  } else {
    r.error(at(node, "type"), what, ": unknown profile type '", type, "'",
            didYouMean(type, {"constant", "polynomial", "sine", "table"}));
  }
}

void readDriver(Reader& r, const YamlNode& node, const std::vector<JointSpec>& joints, DriverSpec& out) {
  if (!r.checkMap(node, {"name", "joint", "coordinate", "between", "profile"}, "driver")) return;
  out.where = r.where(node);
  r.name(require(r, node, "name", "driver"), out.name, "driver name");
  const std::string what = "driver '" + out.name + "'";
  if (has(node, "joint") == has(node, "between")) {
    r.error(node, what, ": give either 'joint' (a joint coordinate) or 'between' (a distance)");
  } else if (has(node, "between")) {
    out.target = DriverTarget::Distance;
    const YamlNode between = at(node, "between");
    if (!between.IsSequence() || between.size() != 2) {
      r.error(between, what, " between: expected [body.marker, body.marker]");
    } else {
      r.markerRef(between[0], out.first, what + " between");
      r.markerRef(between[1], out.second, what + " between");
    }
  } else {
    r.text(at(node, "joint"), out.joint, what + " joint");
    std::string coordinate;
    if (has(node, "coordinate")) {
      if (r.text(at(node, "coordinate"), coordinate, what + " coordinate") && coordinate != "rotation" &&
          coordinate != "translation") {
        r.error(at(node, "coordinate"), what, ": coordinate must be 'rotation' or 'translation', got '", coordinate, "'");
      }
    } else {
      // the joint's natural coordinate; a cylindrical joint has two and needs the key
      for (const JointSpec& j : joints) {
        if (j.name != out.joint) continue;
        if (j.type == JointType::Cylindrical)
          r.error(node, what, ": joint '", j.name, "' is cylindrical: say coordinate: rotation or translation");
        coordinate = j.type == JointType::Prismatic ? "translation" : "rotation";
      }
    }
    out.target = coordinate == "translation" ? DriverTarget::JointTranslation : DriverTarget::JointRotation;
  }
  const YamlNode profile = require(r, node, "profile", what);
  const Quantity driven = out.target == DriverTarget::JointRotation ? Quantity::Angle : Quantity::Length;
  if (profile.IsDefined() && !profile.IsNull()) readProfile(r, profile, out.profile, what, driven);
}

/// What a joint effort on `joint` exerts: a force on a prismatic joint, else a torque.
Quantity effortQuantity(const std::vector<JointSpec>& joints, const std::string& joint) {
  for (const JointSpec& j : joints)
    if (j.name == joint) return j.type == JointType::Prismatic ? Quantity::Force : Quantity::Torque;
  return Quantity::Torque;  // (an unknown joint is compile()'s error)
}

void readForce(Reader& r, const YamlNode& node, int dimension, const std::vector<JointSpec>& joints, ForceSpec& out) {
  if (!node.IsMap()) {
    r.error(node, "force: expected a mapping");
    return;
  }
  out.where = r.where(node);
  std::string type;
  r.name(require(r, node, "name", "force"), out.name, "force name");
  const std::string what = "force '" + out.name + "'";
  if (!r.text(require(r, node, "type", what), type, what + " type")) return;
  if (type == "spring_damper") {
    out.type = ForceType::SpringDamper;
    if (!r.checkMap(node, {"name", "type", "between", "stiffness", "damping", "free_length"}, what)) return;
    const YamlNode between = require(r, node, "between", what);
    if (between.IsSequence() && between.size() == 2) {
      r.markerRef(between[0], out.first, what + " between");
      r.markerRef(between[1], out.second, what + " between");
    } else if (between.IsDefined()) {
      r.error(between, what, " between: expected [body.marker, body.marker]");
    }
    if (has(node, "stiffness")) r.quantity(at(node, "stiffness"), Quantity::Stiffness, out.stiffness, what + " stiffness");
    if (has(node, "damping")) r.quantity(at(node, "damping"), Quantity::Damping, out.damping, what + " damping");
    if (has(node, "free_length"))
      r.quantity(at(node, "free_length"), Quantity::Length, out.free_length, what + " free_length");
  } else if (type == "body_load") {
    out.type = ForceType::BodyLoad;
    if (!r.checkMap(node, {"name", "type", "at", "force", "torque", "profile"}, what)) return;
    r.markerRef(require(r, node, "at", what), out.first, what + " at");
    if (has(node, "force")) r.vectorOf(at(node, "force"), dimension, Quantity::Force, out.force, what + " force");
    if (has(node, "torque")) {
      if (dimension == 2) {
        r.quantity(at(node, "torque"), Quantity::Torque, out.torque.z(), what + " torque");
      } else {
        r.vectorOf(at(node, "torque"), 3, Quantity::Torque, out.torque, what + " torque");
      }
    }
    if (has(node, "profile")) readProfile(r, at(node, "profile"), out.profile, what, Quantity::Dimensionless);
  } else if (type == "joint_effort") {
    out.type = ForceType::JointEffort;
    if (!r.checkMap(node, {"name", "type", "joint", "profile"}, what)) return;
    r.text(require(r, node, "joint", what), out.joint, what + " joint");
    const YamlNode profile = require(r, node, "profile", what);
    if (profile.IsDefined() && !profile.IsNull())
      readProfile(r, profile, out.profile, what, effortQuantity(joints, out.joint));
  } else {
    r.error(at(node, "type"), what, ": unknown force type '", type, "'",
            didYouMean(type, {"spring_damper", "body_load", "joint_effort"}));
  }
}

void readGroup(Reader& r, const YamlNode& node, GroupSpec& out) {
  if (!r.checkMap(node, {"name", "pairs", "body"}, "group")) return;
  out.where = r.where(node);
  r.name(require(r, node, "name", "group"), out.name, "group name");
  const std::string what = "group '" + out.name + "'";
  r.text(require(r, node, "body", what), out.body, what + " body");
  const YamlNode pairs = require(r, node, "pairs", what);
  if (!pairs.IsDefined() || pairs.IsNull()) return;
  if (!pairs.IsSequence() || pairs.size() == 0) {
    r.error(pairs, what, " pairs: expected a list of joint or driver names");
    return;
  }
  for (const YamlNode& item : pairs) {
    std::string name;
    if (!r.nullItem(item, what + " pairs") && r.text(item, name, what + " pairs")) out.pairs.push_back(name);
  }
}

template <typename Item, typename ReadOne>
void readList(Reader& r, const YamlNode& root, const char* key, std::vector<Item>& out, ReadOne readOne) {
  const YamlNode list = root[key];
  if (!list.IsDefined() || list.IsNull()) return;
  if (!list.IsSequence()) {
    r.error(list, "'", key, "' must be a list");
    return;
  }
  for (const YamlNode& item : list) {
    Item value;
    readOne(item, value);
    out.push_back(std::move(value));
  }
}

std::string commaSeparated(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += (text.empty() ? "" : ", ") + n;
  return text;
}

/// `units: {length: mm, angle: deg, ...}`: each key a base quantity, each value one of its units.
void readUnits(Reader& r, const YamlNode& node) {
  if (!r.checkMap(node, {"length", "angle", "mass", "time", "force"}, "units")) return;
  r.units.declared = true;
  for (const auto& [key, unit] : {std::pair{"length", &r.units.length}, {"angle", &r.units.angle},
                                  {"mass", &r.units.mass}, {"time", &r.units.time}, {"force", &r.units.force}}) {
    std::string name;
    if (!has(node, key) || !r.text(at(node, key), name, std::string("units ") + key)) continue;
    if (const std::optional<Unit> u = unitNamed(key, name))
      *unit = *u;
    else
      r.error(at(node, key), "units: unknown ", key, " unit '", name, "'", didYouMean(name, unitNames(key)),
              " (one of ", commaSeparated(unitNames(key)), ")");
  }
}

/// Lengths and gravity that do not fit one system of units: a model drawn in millimetres with
/// gravity 9.81 (bodies hundreds of "metres" across), or gravity 9.81 beside declared millimetres
/// (9.81 mm/s^2).
void warnOfLengthsAndGravity(Reader& r, const ModelSpec& spec) {
  const Scalar g = spec.gravity.norm(), written = g / r.units.factor(Quantity::Acceleration);
  const SourceLocation at = spec.gravity_where.known() ? spec.gravity_where : spec.where;
  const bool earth_as_written = written > 9.7 && written < 9.9;
  if (earth_as_written && r.units.factor(Quantity::Acceleration) != 1) {
    r.warnAt(at, "gravity ", written, " is read in ", r.units.length.name, "/", r.units.time.name, "^2 (", g,
             " m/s^2); Earth's gravity in these units is ", 9.81 / r.units.factor(Quantity::Acceleration));
    return;
  }
  if (!earth_as_written || r.units.length.to_si != 1) return;
  // a body's own size (its markers from its origin): a long chain of small links is no mistake
  Scalar largest = 0;
  for (const BodySpec& b : spec.bodies)
    for (const MarkerSpec& m : b.markers) largest = std::max(largest, m.position.norm());
  if (largest > 100)
    r.warnAt(at, "markers up to ", largest, " m from their body's origin beside gravity ", g,
             " m/s^2: bodies that large are rare; a model drawn in millimetres needs `units: {length: mm}` (and "
             "gravity in mm/s^2, 9810)");
}

ModelSpec parseRoot(Reader& r, const YamlNode& root, const std::string& file_name) {
  ModelSpec spec;
  spec.where = {file_name, 1, 1};  // problems of the whole file point at its start
  if (!r.checkMap(root, {"name", "description", "dimension", "units", "gravity", "characteristic_length", "ground",
                         "bodies", "joints", "drivers", "forces", "groups"},
                  "the model")) {
    return spec;
  }
  if (has(root, "name")) r.name(at(root, "name"), spec.name, "name");
  if (has(root, "description")) {
    if (at(root, "description").IsScalar())
      spec.description = at(root, "description").Scalar();
    else
      r.error(at(root, "description"), "description: expected text, got ", Reader::describe(at(root, "description")));
  }
  const YamlNode dim = require(r, root, "dimension", "the model");
  if (!dim.IsDefined() || dim.IsNull() || !r.integer(dim, spec.dimension, "dimension")) return spec;
  if (spec.dimension != 2 && spec.dimension != 3) {
    r.error(dim, "dimension must be 2 (planar) or 3 (spatial), got ", spec.dimension);
    return spec;
  }
  if (has(root, "units")) readUnits(r, at(root, "units"));
  spec.units = r.units;
  if (has(root, "gravity")) {
    spec.gravity_where = r.where(at(root, "gravity"));
    r.vectorOf(at(root, "gravity"), spec.dimension, Quantity::Acceleration, spec.gravity, "gravity");
  }
  if (has(root, "characteristic_length")) {
    const YamlNode node = at(root, "characteristic_length");
    if (r.quantity(node, Quantity::Length, spec.characteristic_length, "characteristic_length") &&
        !(spec.characteristic_length > 0))
      r.error(node, "characteristic_length must be positive");
  }
  if (has(root, "ground")) {
    const YamlNode ground = at(root, "ground");
    if (r.checkMap(ground, {"markers"}, "ground"))
      readMarkers(r, at(ground, "markers"), spec.dimension, spec.ground_markers, "ground");
  }
  const int d = spec.dimension;
  if (!has(root, "bodies")) r.error(root, "the model: missing required key 'bodies'");
  readList(r, root, "bodies", spec.bodies, [&](const YamlNode& n, BodySpec& b) { readBody(r, n, d, b); });
  readList(r, root, "joints", spec.joints, [&](const YamlNode& n, JointSpec& j) { readJoint(r, n, j); });
  readList(r, root, "drivers", spec.drivers,
           [&](const YamlNode& n, DriverSpec& dr) { readDriver(r, n, spec.joints, dr); });
  readList(r, root, "forces", spec.forces,
           [&](const YamlNode& n, ForceSpec& f) { readForce(r, n, d, spec.joints, f); });
  readList(r, root, "groups", spec.groups, [&](const YamlNode& n, GroupSpec& g) { readGroup(r, n, g); });
  warnOfLengthsAndGravity(r, spec);
  return spec;
}

/// Where `text` stops being UTF-8 text: a control character other than tab, line feed and carriage
/// return, or a byte sequence that is not UTF-8. None for text.
std::optional<SourceLocation> firstNonText(const std::string& text, const std::string& file_name) {
  int line = 1, column = 1;
  for (std::size_t i = 0; i < text.size(); ++column) {
    const auto byte = static_cast<unsigned char>(text[i]);
    // the length of the UTF-8 sequence this byte starts (0: it cannot start one)
    const std::size_t length = byte < 0x80 ? 1 : (byte >> 5) == 0x6 ? 2 : (byte >> 4) == 0xE ? 3 : (byte >> 3) == 0x1E ? 4 : 0;
    bool valid = length > 0 && i + length <= text.size() && (byte >= 0x20 || byte == '\t' || byte == '\n' || byte == '\r') &&
                 byte != 0x7F;
    for (std::size_t k = 1; valid && k < length; ++k) valid = (static_cast<unsigned char>(text[i + k]) >> 6) == 0x2;
    if (!valid) return SourceLocation{file_name, line, column};
    if (byte == '\n') {
      ++line;
      column = 0;
    }
    i += length;
  }
  return std::nullopt;
}

[[noreturn]] void fileProblem(const std::string& path, const std::string& what) {
  throw ModelError({{SourceLocation{path, 0, 0}, what}});
}

std::string megabytes(std::uintmax_t bytes) {
  std::ostringstream os;
  os.precision(3);
  os << static_cast<double>(bytes) / (1024.0 * 1024.0) << " MB";
  return os.str();
}

/// Parses text known to be at most kMaxModelBytes.
ModelSpec parseModelText(const std::string& text, const std::string& file_name) {
  Reader r(file_name);
  if (const std::optional<SourceLocation> bad = firstNonText(text, file_name))
    throw ModelError({{*bad, "not a text file: the byte here is not UTF-8 text (a binary file?)"}});
  std::optional<YamlDocument> document;
  try {
    document.emplace(text);
  } catch (const YAML::ParserException& e) {
    throw ModelError({{SourceLocation{file_name, e.mark.line + 1, e.mark.column + 1}, "YAML syntax: " + e.msg}});
  }
  const YamlNode root = document->root();
  if (!root.IsDefined() || root.IsNull()) throw ModelError({{SourceLocation{file_name, 1, 1}, "the model file is empty"}});
  ModelSpec spec;
  try {
    spec = parseRoot(r, root, file_name);
  } catch (const YAML::Exception& e) {
    // a question the reader should not have asked of this node (the fuzzer's findings are fixed
    // where they are found; this keeps the promise of a located error for any that remain)
    std::vector<Diagnostic> found = r.diagnostics();
    const int line = e.mark.line >= 0 ? e.mark.line + 1 : 1, column = e.mark.column >= 0 ? e.mark.column + 1 : 1;
    found.push_back({SourceLocation{file_name, line, column}, "unexpected structure here (" + e.msg + ")"});
    throw ModelError(found);
  }
  if (!r.diagnostics().empty()) throw ModelError(r.diagnostics());
  spec.warnings = r.warnings();
  return spec;
}

}  // namespace

ModelSpec parseModel(const std::string& text, const std::string& file_name) {
  if (text.size() > kMaxModelBytes)
    throw ModelError({{SourceLocation{file_name, 0, 0}, "the model is " + megabytes(text.size()) + ", more than the " +
                                                            megabytes(kMaxModelBytes) + " loopdyn reads"}});
  try {
    return parseModelText(text, file_name);
  } catch (const std::bad_alloc&) {
    throw ModelError({{SourceLocation{file_name, 0, 0}, "not enough memory to read this model (" +
                                                            megabytes(text.size()) + " of YAML)"}});
  }
}

ModelSpec readModelFile(const std::string& path) {
  if (path.find('\0') != std::string::npos) fileProblem(printable(path), "the file name holds a NUL byte");
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) fileProblem(path, std::string("cannot open the model file: ") + std::strerror(errno));
  if (S_ISDIR(info.st_mode)) fileProblem(path, "is a directory, not a model file");
  // a device (/dev/zero, /dev/urandom) never ends: read only files and pipes (`<(generate)`)
  if (!S_ISREG(info.st_mode) && !S_ISFIFO(info.st_mode)) fileProblem(path, "is a device, not a model file");
  if (S_ISREG(info.st_mode) && static_cast<std::uintmax_t>(info.st_size) > kMaxModelBytes)
    fileProblem(path, "the model file is " + megabytes(static_cast<std::uintmax_t>(info.st_size)) +
                          ", more than the " + megabytes(kMaxModelBytes) + " loopdyn reads");
  std::ifstream in(path, std::ios::binary);
  if (!in) fileProblem(path, std::string("cannot open the model file: ") + std::strerror(errno));
  std::string text;
  std::array<char, 65536> buffer{};
  while (in.read(buffer.data(), buffer.size()) || in.gcount() > 0) {
    text.append(buffer.data(), static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxModelBytes)
      fileProblem(path, "the model is more than the " + megabytes(kMaxModelBytes) + " loopdyn reads");
  }
  if (in.bad()) fileProblem(path, std::string("cannot read the model file: ") + std::strerror(errno));
  return parseModel(text, path);
}

}  // namespace loopdyn::io
