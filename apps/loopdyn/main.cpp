// loopdyn: dynamics of rigid multibody systems with closed loops and redundant constraints.

#include <CLI/CLI.hpp>

#include <iostream>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "loopdyn/common/spelling.hpp"
#include "loopdyn/io/csv_file.hpp"
#include "loopdyn/loopdyn.hpp"

int main(int argc, char** argv) {
  CLI::App app{"loopdyn: rigid multibody systems with closed loops and redundant constraints"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("loopdyn ") + loopdyn::version());
  int exit_code = loopdyn::cli::kExitOk;
  loopdyn::io::keepPartialOutputsOnSignal();
  loopdyn::cli::addAnalyzeCommand(app, exit_code);
  loopdyn::cli::addSimulateCommand(app, exit_code);
  loopdyn::cli::addInverseCommand(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError& e) {
    // unknown options: name the nearest known one of the command used
    const CLI::App* command = app.get_subcommands().empty() ? &app : app.get_subcommands().front();
    std::vector<std::string> known;
    for (const CLI::Option* option : command->get_options())
      for (const std::string& name : option->get_lnames()) known.push_back("--" + name);
    bool explained = false;
    for (const std::string& extra : command->remaining())
      if (extra.rfind("--", 0) == 0) {
        std::cerr << "loopdyn: error: unknown option '" << extra << "'" << loopdyn::didYouMean(extra, known) << '\n';
        explained = true;
      }
    if (explained)
      std::cerr << "Run with --help for more information.\n";
    else
      app.exit(e);
    return loopdyn::cli::kExitUsage;
  } catch (const CLI::ParseError& e) {
    // a misspelt command: name the nearest known one
    if (argc > 1 && argv[1][0] != '-' && app.get_subcommands().empty()) {
      std::vector<std::string> commands;
      for (const CLI::App* sub : app.get_subcommands({})) commands.push_back(sub->get_name());
      std::string list;
      for (const std::string& c : commands) list += (list.empty() ? "" : ", ") + c;
      std::cerr << "loopdyn: error: unknown command '" << argv[1] << "'" << loopdyn::didYouMean(argv[1], commands)
                << " (commands: " << list << ")\n";
      return loopdyn::cli::kExitUsage;
    }
    app.exit(e);
    return loopdyn::cli::kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "loopdyn: error: " << e.what() << '\n';
    return loopdyn::cli::kExitNumericalFailure;
  }
  return exit_code;
}
