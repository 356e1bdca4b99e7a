#pragma once
/// Exceptions thrown by loopdyn: bad arguments to the public API and bad model descriptions.
/// Numerical outcomes (rank loss, failed assembly) are returned as status values, not thrown.

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace loopdyn {

/// A public API precondition was violated (wrong vector size, unknown name, ...).
class InvalidArgument : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// An option of a request out of its range: which (named as in the library's request structs and
/// the Python module: t_end, rtol, samples, threshold, ...; each door spells it its own way) and
/// what is wrong. Every door checks the same ranges with the same functions.
struct OptionProblem {
  std::string option, message;
};

/// Where in a model file something was written; line and column are 1-based, 0 when unknown.
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;

  bool known() const { return line > 0; }
  /// "file:line:col" (or "file" or "<model>" when parts are unknown).
  std::string str() const;
};

/// `text` with its control characters written as escapes (a line break as backslash-n, a tab as
/// backslash-t, any other as backslash-x and two hex digits): a line of a diagnostic stays one line
/// whatever a model's names hold.
std::string printable(const std::string& text);

/// One problem found in a model: where it is and what is wrong.
struct Diagnostic {
  SourceLocation where;
  std::string message;

  /// "file:line:col: error: message", the form compilers use; one line (printable). `kind`
  /// "warning" for what the reader only warns of.
  std::string str(const char* kind = "error") const;
};

/// A model description is invalid. Carries every problem found, not just the first.
class ModelError : public std::runtime_error {
 public:
  explicit ModelError(std::vector<Diagnostic> diagnostics);
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

namespace detail {
template <typename... Args>
std::string concat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
}  // namespace detail

}  // namespace loopdyn
