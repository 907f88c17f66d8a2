package dev.locksmith.cli;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** The {@code locksmith} command. */
@Command(
    name = "locksmith",
    mixinStandardHelpOptions = true,
    version = "locksmith 0.1.0",
    description = "Distributed locks for shell scripts, a lock server, and a demo.",
    subcommands = {
      RunCommand.class,
      ServerCommand.class,
      StatusCommand.class,
      PruneCommand.class,
      DemoCommand.class
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:success (or, for run, the command's own exit code; 0 after --skip found the lock busy)",
      "64:usage error: unknown option, bad duration, file or provider URL",
      "69:the provider could not be reached within --connect-timeout or answered too slowly for"
          + " --ttl; the server could not start",
      "70:the lease was lost before or while the command ran (its process group was stopped), or an"
          + " internal error",
      "75:busy with --fail, or --wait ran out",
      "126:the command could not be started"
    },
    footer = {
      "",
      "Every error is one line on stderr starting with 'locksmith:'; -v adds the stack trace."
    })
public final class Main implements Callable<Integer> {
  @Option(
      names = {"-v", "--verbose"},
      scope = ScopeType.INHERIT,
      description = "On an error, print its stack trace after the message; log more.")
  boolean verbose;

  Main() {}

  /**
   * Runs the command line and exits with its code.
   *
   * @param args the command line
   */
  public static void main(String[] args) {
    Logging.configure(args);
    QuietSignals.exitThroughHooks();
    System.exit(execute(args));
  }

  /**
   * Runs the command line and returns its exit code.
   *
   * @param args the command line
   * @return the exit code
   */
  public static int execute(String... args) {
    return commandLine().execute(args);
  }

  /**
   * The command line, with every failure reported as one {@code locksmith:} line and a documented
   * exit code instead of usage text or a stack trace, and every duration option read by {@link
   * DurationConverter}. No argument is read as an {@code @file} of arguments, and everything from
   * {@code run}'s COMMAND on is COMMAND's own, options too, as with {@code flock} and {@code sudo}.
   */
  static CommandLine commandLine() {
    CommandLine line =
        new CommandLine(new Main()).registerConverter(Duration.class, new DurationConverter());
    line.setExpandAtFiles(false);
    // Each subcommand's -V (from its standard help options) prints the command's version.
    String[] version = line.getCommandSpec().version();
    line.getSubcommands().values().forEach(sub -> sub.getCommandSpec().version(version));
    Objects.requireNonNull(line.getSubcommands().get("run"), "run").setStopAtPositional(true);
    return Errors.install(line);
  }

  @Override
  public Integer call() {
    throw Failure.usage(
        "no command given; use run, server, status, prune or demo (see 'locksmith --help')");
  }
}
