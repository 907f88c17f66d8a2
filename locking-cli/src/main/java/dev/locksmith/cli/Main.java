package dev.locksmith.cli;

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
      "70:the lease was lost while the command ran; the command was terminated",
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
    return new CommandLine(new Main()).execute(args);
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.err);
  }
}
