#include "html_report.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "loopdyn/io/csv_file.hpp"
#include "loopdyn/io/json_writer.hpp"
#include "event_text.hpp"
#include "report_assets.hpp"  // kReportJs, kReportCss (generated from report/report.js, report.css)

namespace loopdyn::reports {

namespace {

/// The whole file, or nothing when it cannot be read.
bool readText(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return static_cast<bool>(in) || in.eof();
}

/// Text placed inside <script> or <style>: only "</script" or "</style" (any case) would end the
/// element early; in JSON and in JavaScript strings "<\/" reads as "</".
std::string inert(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  std::size_t from = 0;
  for (std::size_t at = text.find("</"); at != std::string::npos; at = text.find("</", at + 2)) {
    std::string tag = text.substr(at + 2, 6);
    for (char& c : tag) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (tag.rfind("script", 0) != 0 && tag.rfind("style", 0) != 0) continue;
    out.append(text, from, at + 1 - from);
    out += '\\';
    from = at + 1;
  }
  out.append(text, from, std::string::npos);
  return out;
}

/// JSON placed inside <script>: every "<" as the JSON escape \u003c (the same string once parsed).
/// Within a script element "<!--" followed by "<script" changes how the HTML parser looks for the
/// element's end (a model named "<!--<script>" hid the whole page); without a "<" nothing can.
std::string inertJson(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (const char c : json) {
    if (c == '<')
      out += "\\u003c";
    else
      out += c;
  }
  return out;
}

/// Text shown in the page: &, <, > and " as entities (names, paths and messages come from the user).
std::string escaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

void writePoint(io::TreeWriter& w, const Vec3& p) {
  w.beginArray();
  for (int k = 0; k < 3; ++k) w.value(p(k));
  w.endArray();
}

void writeMatrix(io::TreeWriter& w, const Mat3& m) {
  w.beginArray();
  for (int i = 0; i < 3; ++i) writePoint(w, m.row(i).transpose());
  w.endArray();
}

/// The box of the body's mass and rotational inertia (body frame): sides a, b, c along the
/// principal axes with I_1 = m (b^2 + c^2) / 12 and so on, so a^2 = 6 (I_2 + I_3 - I_1) / m.
void writeInertiaBox(io::TreeWriter& w, const Body& body, int dimension) {
  Eigen::SelfAdjointEigenSolver<Mat3> eigen(body.inertia);
  const Vec3 I = dimension == 2 ? Vec3::Constant(body.inertia(2, 2)) : Vec3(eigen.eigenvalues());
  Vec3 sides;
  for (int k = 0; k < 3; ++k)
    sides(k) = std::sqrt(std::max(0.0, 6 * (I.sum() - 2 * I(k)) / body.mass));
  w.key("box");
  writePoint(w, sides);
  Mat3 axes = dimension == 2 ? Mat3::Identity() : Mat3(eigen.eigenvectors());
  if (axes.determinant() < 0) axes.col(2) *= -1;  // a rotation, not a reflection
  w.key("box_axes");
  writeMatrix(w, axes);
}

/// The force elements the view draws: spring-dampers between their markers, body loads at theirs.
void writeForces(io::TreeWriter& w, const Model& model) {
  w.key("forces").beginArray();
  for (const Force& f : model.forces()) {
    if (f.spec.type == ForceType::JointEffort) continue;  // (acts inside its joint)
    w.beginObject();
    w.key("name").value(f.spec.name);
    w.key("type").value(f.spec.type == ForceType::SpringDamper ? "spring_damper" : "body_load");
    w.key("body").value(static_cast<int>(f.first.body));
    w.key("point");
    writePoint(w, f.first.position);
    if (f.spec.type == ForceType::SpringDamper) {
      w.key("body2").value(static_cast<int>(f.second.body));
      w.key("point2");
      writePoint(w, f.second.position);
    } else {
      w.key("direction");  // world axes
      writePoint(w, f.spec.force.norm() > 0 ? Vec3(f.spec.force.normalized()) : Vec3::Zero());
    }
    w.endObject();
  }
  w.endArray();
}

/// The mechanism's drawing: bodies with their markers (body frame) and inertia boxes, the pairs'
/// points, types and axes (their first marker's z, body frame), force elements, ground's points.
void writeModel(io::TreeWriter& w, const Model& model, const std::vector<bool>& pair_unique) {
  w.key("model").beginObject();
  w.key("name").value(model.name());
  w.key("dimension").value(model.dimension());
  w.key("bodies").beginArray();
  for (const Body& body : model.bodies()) {
    w.beginObject();
    w.key("name").value(body.name);
    w.key("markers").beginArray();
    for (const MarkerFrame& m : body.markers) writePoint(w, m.position);
    w.endArray();
    writeInertiaBox(w, body, model.dimension());
    w.endObject();
  }
  w.endArray();
  w.key("joints").beginArray();
  std::vector<Vec3> ground;
  for (std::size_t p = 0; p < model.pairs().size(); ++p) {
    const Pair& pair = model.pairs()[p];
    if (pair.type == "driver") continue;  // (drawn at its joint)
    w.beginObject();
    w.key("name").value(pair.name);
    w.key("body").value(static_cast<int>(pair.first.body));
    w.key("point");
    writePoint(w, pair.first.position);
    w.key("type").value(pair.type);
    w.key("axis");
    writePoint(w, pair.first.orientation.col(2));
    w.key("unique").value(p < pair_unique.size() ? static_cast<bool>(pair_unique[p]) : true);
    w.endObject();
    if (pair.first.body == kGround) ground.push_back(pair.first.position);
  }
  for (const Joint& joint : model.joints())
    if (joint.second.body == kGround && joint.type != JointType::KnifeEdge) ground.push_back(joint.second.position);
  w.endArray();
  w.key("ground").beginArray();
  for (const Vec3& p : ground) writePoint(w, p);
  w.endArray();
  writeForces(w, model);
  w.endObject();
}

/// The samples column by column, in the shortest digits that keep 9 significant ones.
std::string dataArrays(const ReportInput& in) {
  std::string out = "[";
  char buf[32];
  for (std::size_t c = 0; c < in.columns.size(); ++c) {
    out += c ? ",[" : "[";
    for (std::size_t r = 0; r < in.rows.size(); ++r) {
      const double x = c < in.rows[r].size() ? in.rows[r][c] : std::nan("");
      if (r) out += ',';
      if (std::isfinite(x)) {
        std::snprintf(buf, sizeof buf, "%.9g", x);
        out += buf;
      } else {
        out += "null";
      }
    }
    out += ']';
  }
  return out + ']';
}

}  // namespace

WebLibraries loadWebLibraries() {
  std::vector<std::string> places;
  if (const char* env = std::getenv("LOOPDYN_WEB_DIR"); env && *env) places.emplace_back(env);
  places.emplace_back(LOOPDYN_WEB_INSTALL_DIR);
  places.emplace_back(LOOPDYN_WEB_SOURCE_DIR);
  for (const std::string& dir : places) {
    WebLibraries libs;
    if (readText(dir + "/three/build/three.cjs", libs.three) && readText(dir + "/uplot/dist/uPlot.iife.min.js", libs.uplot) &&
        readText(dir + "/uplot/dist/uPlot.min.css", libs.uplot_css))
      return libs;
  }
  std::string list;
  for (const std::string& dir : places) list += (list.empty() ? "" : ", ") + dir;
  throw io::OutputError("the report's libraries (three.js, uPlot) are not installed: looked in " + list +
                        "; run scripts/setup.sh (it installs them with npm into third_party/web)");
}

std::string htmlReport(const ReportInput& in, const WebLibraries& libs) {
  const Model& model = *in.model;
  // the data: the model's drawing, the samples, the run's summary and analysis, the events
  io::JsonWriter w(0);
  w.beginObject();
  writeModel(w, model, in.pair_unique);
  w.key("gravity");
  writePoint(w, model.gravity());
  w.key("columns").array(in.columns);
  w.key("non_unique").array(in.non_unique);
  w.key("events").beginArray();
  for (const RunEvent& e : in.events) writeEvent(w, model, e);
  w.endArray();
  w.key("failure").value(in.failure);
  w.endObject();
  std::string data = w.str();
  data.pop_back();  // the closing brace: the large members follow
  data += ",\"data\":" + dataArrays(in) + ",\"summary\":" + in.simulation_json + ",\"analysis\":" + in.analysis_json + "}";

  std::string html;
  html += "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += "<title>loopdyn: " + escaped(model.name()) + "</title>\n";
  // errors from here on are collected for the page's self-test (report.js)
  html += "<script>window.loopdynErrors = []; window.addEventListener('error', function (e) { "
          "window.loopdynErrors.push(String(e.message)); }); (function () { var error = console.error; "
          "console.error = function () { window.loopdynErrors.push(Array.prototype.join.call(arguments, ' ')); "
          "error.apply(console, arguments); }; })();</script>\n";
  html += "<style>\n" + inert(libs.uplot_css) + "\n" + inert(kReportCss) + "\n</style>\n</head>\n<body>\n";
  html += "<h1>" + escaped(model.name()) + "</h1>\n<div class=\"subtitle\">" + escaped(model.description()) +
          " &mdash; " + escaped(in.model_path) + "</div>\n";
  if (!in.failure.empty()) html += "<div class=\"failed\">The simulation FAILED: " + escaped(in.failure) + "</div>\n";
  html += R"(<div class="columns">
<div>
<div id="view"></div>
<div class="controls"><button id="play">play</button>
<input id="time" type="range" min="0" value="0" step="1"><span id="clock"></span>
<label>speed <select id="speed"><option>0.25</option><option>0.5</option><option selected>1</option><option>2</option><option>4</option></select></label></div>
<div class="legend"><span class="unique">&#9679; unique reaction</span><span class="nonunique">&#9679; non-unique reaction</span><span>(3D: drag to turn, wheel to zoom)</span></div>
</div>
<div class="side">
<div id="plots"><div id="reactions"><label>reaction of <select id="pair"></select></label></div></div>
<h2>Run</h2><div id="summary"></div>
<h2>Events</h2><div id="events"></div>
<h2>Structure</h2><div id="structure"></div>
<h2>Reaction uniqueness</h2><div id="uniqueness"></div>
</div>
</div>
<pre id="loopdyn-selftest">pending</pre>
)";
  html += "<script type=\"application/json\" id=\"loopdyn-data\">" + inertJson(data) + "</script>\n";
  // three.js's CommonJS build, given a module object: window.THREE
  html += "<script>(function () { var module = { exports: {} }; var exports = module.exports;\n" + inert(libs.three) +
          "\nwindow.THREE = module.exports; })();</script>\n";
  html += "<script>\n" + inert(libs.uplot) + "\n</script>\n";
  html += "<script>\n" + inert(kReportJs) + "\n</script>\n</body>\n</html>\n";
  return html;
}

}  // namespace loopdyn::reports
