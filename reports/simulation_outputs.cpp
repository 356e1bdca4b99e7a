#include "simulation_outputs.hpp"

#include "simulation_summary.hpp"

namespace loopdyn::reports {

namespace {

/// The names one output may be written under: as asked, and as a failed run's.
std::vector<std::string> csvNames(const std::string& out) {
  if (out.empty()) return {};
  const std::string failed = io::failedPath(out);
  return {out, failed, io::partialPath(out), columnsSidecarPath(out), columnsSidecarPath(failed)};
}

std::vector<std::string> reportNames(const std::string& report) {
  if (report.empty()) return {};
  return {report, io::failedPath(report)};
}

}  // namespace

std::string outputConflict(const std::string& model_path, const std::string& out_path, const std::string& report_path,
                           const OutputNames& names) {
  const std::vector<std::string> csv = csvNames(out_path), page = reportNames(report_path);
  for (const auto& [option, paths] : {std::pair{&names.out, &csv}, std::pair{&names.report, &page}})
    for (const std::string& path : *paths)
      if (io::sameFile(path, model_path))
        return *option + " would write '" + path + "', the model file '" + model_path +
               "': an output never replaces its model";
  for (const std::string& a : csv)
    for (const std::string& b : page)
      if (io::sameFile(a, b)) return names.out + " and " + names.report + " would both write '" + b + "'";
  return {};
}

SimulationOutputs::SimulationOutputs(const std::string& out_path, const std::vector<std::string>& header,
                                     const std::string& report_path) {
  if (!out_path.empty()) {
    csv_.emplace(out_path, header);
    if (!csv_->direct()) sidecar_.emplace(columnsSidecarPath(out_path));  // (nothing beside a device or pipe)
  }
  if (!report_path.empty()) report_.emplace(report_path);
}

std::string SimulationOutputs::csvPath(bool ok) const {
  if (!csv_) return {};
  return ok || csv_->direct() ? csv_->path() : io::failedPath(csv_->path());
}

std::string SimulationOutputs::reportPath(bool ok) const {
  if (!report_) return {};
  return ok || report_->direct() ? report_->path() : io::failedPath(report_->path());
}

void SimulationOutputs::writeSidecar(const std::string& json) {
  if (sidecar_) sidecar_->write(json);
}

void SimulationOutputs::writeReport(const std::string& html) {
  if (report_) report_->write(html);
}

void SimulationOutputs::commit(bool ok) {
  if (ok) {
    if (csv_) csv_->commit();
    if (sidecar_) sidecar_->commit();
    if (report_) report_->commit();
    return;
  }
  if (csv_) csv_->commitFailed();
  if (sidecar_) sidecar_->commitTo(columnsSidecarPath(csvPath(false)));
  if (report_) report_->commitFailed();
}

}  // namespace loopdyn::reports
