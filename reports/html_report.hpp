#pragma once
// `loopdyn simulate --report FILE.html` (issue 19): one self-contained HTML page that opens offline
// -- the mechanism animated (2D canvas, or three.js in 3D), time plots (uPlot: energy balance,
// constraint violation, the coordinates the integrator carries, each pair's reaction with the
// non-unique components dashed, singular passages and other events marked on the time axis), the
// run's summary and the uniqueness table. The page's own code is reports/page/report.js and
// report.css (compiled in); three.js and uPlot come from the npm registry through
// scripts/setup.sh (third_party/web) and are embedded into every report.

#include <string>
#include <utility>
#include <vector>

#include "loopdyn/dynamics/run_event.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn::reports {

/// What one report shows.
struct ReportInput {
  const Model* model = nullptr;
  std::string model_path;
  std::vector<std::string> columns;        ///< the CSV's column names
  std::vector<std::string> non_unique;     ///< the non-unique ones (SampleColumns::nonUniqueNames)
  std::vector<std::vector<double>> rows;   ///< the samples, row by row (thinned to kReportRows)
  std::vector<bool> pair_unique;           ///< per Model::pairs(): its reaction is unique
  std::string simulation_json;             ///< simulationJson of the run
  std::string analysis_json;               ///< analysisJson at the initial state
  std::vector<RunEvent> events;            ///< SimulationResult::events
  std::string failure;                     ///< a failed run: why (a banner on the page)
};

/// At most this many samples go into a page (evenly thinned beyond, the last one kept).
inline constexpr std::size_t kReportRows = 4000;

/// The embedded libraries' text.
struct WebLibraries {
  std::string three;      ///< three.js, its CommonJS build
  std::string uplot;      ///< uPlot, its browser build
  std::string uplot_css;  ///< uPlot's style sheet
};

/// Reads the libraries from $LOOPDYN_WEB_DIR, else the installed share/loopdyn/web, else the source
/// tree's third_party/web/node_modules. Throws io::OutputError naming the places looked in and
/// scripts/setup.sh when none has them.
WebLibraries loadWebLibraries();

/// The page.
std::string htmlReport(const ReportInput& input, const WebLibraries& libraries);

}  // namespace loopdyn::reports
