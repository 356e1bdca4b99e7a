#include "loopdyn/common/errors.hpp"

namespace loopdyn {

std::string SourceLocation::str() const {
  const std::string name = file.empty() ? std::string("<model>") : file;
  if (line <= 0) return name;
  return detail::concat(name, ":", line, ":", column);
}

std::string printable(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (byte < 0x20 || byte == 0x7F) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    } else {
      out += c;
    }
  }
  return out;
}

std::string Diagnostic::str(const char* kind) const {
  return printable(where.str()) + ": " + kind + ": " + printable(message);
}

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
