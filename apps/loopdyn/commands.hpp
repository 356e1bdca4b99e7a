#pragma once
/// The subcommands of the loopdyn tool; each adds itself to the CLI11 app.

#include <CLI/CLI.hpp>

namespace loopdyn::cli {

/// `loopdyn analyze MODEL [--json] ...`: constraint rank, redundancy, mobility, singularity.
/// Sets exit_code when it runs.
void addAnalyzeCommand(CLI::App& app, int& exit_code);

/// `loopdyn simulate MODEL --t-end T --out FILE.csv [...]`: forward dynamics with reactions.
void addSimulateCommand(CLI::App& app, int& exit_code);

/// `loopdyn inverse MODEL --out FILE.csv [--actuators A,B --trajectory T.csv]`: inverse dynamics.
void addInverseCommand(CLI::App& app, int& exit_code);

}  // namespace loopdyn::cli
