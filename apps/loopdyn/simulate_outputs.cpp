#include "simulate_outputs.hpp"

#include <cerrno>
#include <cstring>
#include <iostream>

#include "simulate_report.hpp"

namespace loopdyn::cli {

namespace {

/// The names one output may be written under: as asked, and as a failed run's.
std::vector<std::string> csvNames(const std::string& out) {
  const std::string failed = io::failedPath(out);
  return {out, failed, io::partialPath(out), columnsSidecarPath(out), columnsSidecarPath(failed)};
}

std::vector<std::string> reportNames(const std::string& report) {
  if (report.empty()) return {};
  return {report, io::failedPath(report)};
}

}  // namespace

std::string outputConflict(const std::string& model_path, const std::string& out_path, const std::string& report_path) {
  const std::vector<std::string> csv = csvNames(out_path), page = reportNames(report_path);
  for (const auto& [option, names] : {std::pair{"--out", &csv}, std::pair{"--report", &page}})
    for (const std::string& name : *names)
      if (io::sameFile(name, model_path))
        return std::string(option) + " would write '" + name + "', the model file '" + model_path +
               "': an output never replaces its model";
  for (const std::string& a : csv)
    for (const std::string& b : page)
      if (io::sameFile(a, b)) return "--out and --report would both write '" + b + "'";
  return {};
}

SimulateOutputs::SimulateOutputs(const std::string& out_path, const std::vector<std::string>& header,
                                 const std::string& report_path)
    : csv_(out_path, header) {
  if (!csv_.direct()) sidecar_.emplace(columnsSidecarPath(out_path));  // (nothing beside a device or pipe)
  if (!report_path.empty()) report_.emplace(report_path);
}

std::string SimulateOutputs::csvPath(bool ok) const {
  return ok || csv_.direct() ? csv_.path() : io::failedPath(csv_.path());
}

std::string SimulateOutputs::reportPath(bool ok) const {
  if (!report_) return {};
  return ok || report_->direct() ? report_->path() : io::failedPath(report_->path());
}

void SimulateOutputs::writeSidecar(const std::string& json) {
  if (sidecar_) sidecar_->write(json);
}

void SimulateOutputs::writeReport(const std::string& html) {
  if (report_) report_->write(html);
}

void SimulateOutputs::commit(bool ok) {
  if (ok) {
    csv_.commit();
    if (sidecar_) sidecar_->commit();
    if (report_) report_->commit();
    return;
  }
  csv_.commitFailed();
  if (sidecar_) sidecar_->commitTo(columnsSidecarPath(csvPath(false)));
  if (report_) report_->commitFailed();
}

bool writeStandardOutput(const std::string& text) {
  errno = 0;
  std::cout << text << std::flush;
  if (std::cout) return true;
  std::cerr << "loopdyn: error: cannot write the standard output" << (errno != 0 ? std::string(": ") + std::strerror(errno) : "")
            << '\n';
  return false;
}

}  // namespace loopdyn::cli
