#pragma once
/// The command's summary to standard output, checked like a file.

#include <string>

namespace loopdyn::cli {

/// Writes text to standard output and flushes it; false (and a message on stderr) when it could not
/// be written (a full disk behind a redirection): the command then exits 4.
bool writeStandardOutput(const std::string& text);

}  // namespace loopdyn::cli
