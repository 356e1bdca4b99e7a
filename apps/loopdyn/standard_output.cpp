#include "standard_output.hpp"

#include <cerrno>
#include <cstring>
#include <iostream>

namespace loopdyn::cli {

bool writeStandardOutput(const std::string& text) {
  errno = 0;
  std::cout << text << std::flush;
  if (std::cout) return true;
  std::cerr << "loopdyn: error: cannot write the standard output" << (errno != 0 ? std::string(": ") + std::strerror(errno) : "")
            << '\n';
  return false;
}

}  // namespace loopdyn::cli
