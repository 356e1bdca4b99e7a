#include "loopdyn/common/errors.hpp"

namespace loopdyn {

std::string SourceLocation::str() const {
  const std::string name = file.empty() ? std::string("<model>") : file;
  if (line <= 0) return name;
  return detail::concat(name, ":", line, ":", column);
}

std::string Diagnostic::str() const { return where.str() + ": error: " + message; }

namespace {
std::string joinDiagnostics(const std::vector<Diagnostic>& diagnostics) {
  std::string text;
  for (const Diagnostic& d : diagnostics) {
    if (!text.empty()) text += '\n';
    text += d.str();
  }
  return text;
}
}  // namespace

ModelError::ModelError(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(joinDiagnostics(diagnostics)), diagnostics_(std::move(diagnostics)) {}

}  // namespace loopdyn
