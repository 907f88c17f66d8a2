package dev.locksmith.cli;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockProviderException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code locksmith} command. */
@Command(
    name = "locksmith",
    mixinStandardHelpOptions = true,
    version = "locksmith 0.1.0",
    description = "Distributed locks for shell scripts, a lock server, and a demo.",
    subcommands = {RunCommand.class, ServerCommand.class, StatusCommand.class, DemoCommand.class},
    exitCodeOnInvalidInput = ExitCodes.USAGE,
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:success (or, for run, the command's own exit code; 0 after --skip found the lock busy)",
      "64:usage error: unknown option, bad duration or provider URL",
      "69:the provider could not be reached",
      "70:the lease was lost while the command ran (the command was terminated), or an internal"
          + " error",
      "75:busy with --fail, or --wait ran out",
      "126:the command could not be started"
    })
public final class Main implements Runnable {
  Main() {}

  /** Runs the command line and exits with its code. */
  public static void main(String[] args) {
    System.exit(execute(args));
  }

  /** Runs the command line and returns its exit code. */
  public static int execute(String... args) {
    return commandLine().execute(args);
  }

  /**
   * The command line, with failures that escape a subcommand mapped to the documented exit codes
   * and a one-line message instead of a stack trace.
   */
  static CommandLine commandLine() {
    CommandLine line = new CommandLine(new Main());
    line.setExecutionExceptionHandler(
        (error, command, parsed) -> {
          command.getErr().println("locksmith: " + error.getMessage());
          if (error instanceof IllegalArgumentException
              || error instanceof LockConfigurationException) {
            return ExitCodes.USAGE;
          }
          if (error instanceof LockProviderException) {
            return ExitCodes.UNAVAILABLE;
          }
          return ExitCodes.SOFTWARE;
        });
    return line;
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.err);
  }
}
