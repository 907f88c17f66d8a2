package dev.locksmith.cli;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockException;
import dev.locksmith.core.LockProviderException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.PicocliException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Turns every failure into one line on stderr, starting {@code locksmith:}, that says what was
 * wrong and what to do, and a documented exit code; {@code -v}/{@code --verbose} adds the stack
 * trace after the line.
 */
final class Errors {
  /** The longest message part of a line; provider errors can carry whole scripts. */
  static final int MAX_MESSAGE = 320;

  /** Where a provider's message turns into a dump of the request (Redisson's Lua errors). */
  private static final List<String> DUMP_MARKERS =
      List.of(" script: ", " channel: [", ". channel: ", " command: (", ", params: [");

  /** A fully qualified exception class name, with the ": " that may follow it. */
  private static final Pattern QUALIFIED_EXCEPTION =
      Pattern.compile(
          "(?:[a-z_][a-z0-9_]*\\.)+(?:[A-Z][\\w]*\\$)*([A-Z][\\w]*(?:Exception|Error))(: )?");

  private Errors() {}

  /** Installs the handlers on a command line and its subcommands. */
  static CommandLine install(CommandLine line) {
    line.setParameterExceptionHandler(Errors::onBadParameters);
    line.setExecutionExceptionHandler(Errors::onFailure);
    return line;
  }

  /**
   * Bad options or arguments, on any command: one line pointing at the command's help, exit 64
   * (this handler decides the code, so the commands do not set {@code exitCodeOnInvalidInput}).
   */
  static int onBadParameters(ParameterException error, String[] args) {
    CommandLine command = error.getCommandLine();
    PrintWriter err = command.getErr();
    String message = String.valueOf(error.getMessage());
    if (message.startsWith("Error: ")) {
      message = message.substring("Error: ".length());
    }
    if (error instanceof UnmatchedArgumentException unmatched
        && command.getCommandSpec().parent() == null
        && !unmatched.getUnmatched().isEmpty()) {
      String first = unmatched.getUnmatched().get(0);
      message =
          (first.startsWith("-") ? "unknown option '" : "unknown command '")
              + first
              + "'; use run, server, status, prune or demo";
    }
    err.println(
        "locksmith: "
            + clean(message)
            + " (see '"
            + command.getCommandSpec().qualifiedName()
            + " --help')");
    if (verboseIn(args)) {
      error.printStackTrace(err);
    }
    err.flush();
    return ExitCodes.USAGE;
  }

  /** A failure while a command ran: one line and the exit code its type stands for. */
  static int onFailure(Exception error, CommandLine command, ParseResult parsed) {
    PrintWriter err = command.getErr();
    int code;
    String message;
    if (error instanceof Failure failure && failure.reported()) {
      return failure.exitCode();
    }
    if (error instanceof Failure failure) {
      code = failure.exitCode();
      message = String.valueOf(failure.getMessage());
    } else if (error instanceof LockConfigurationException
        || error instanceof IllegalArgumentException) {
      code = ExitCodes.USAGE;
      message = clean(error) + " (see '" + command.getCommandSpec().qualifiedName() + " --help')";
    } else if (error instanceof LockProviderException) {
      code = ExitCodes.UNAVAILABLE;
      message =
          "the provider failed: "
              + clean(error)
              + "; check --url and that the provider is up and healthy";
    } else if (error.getClass() == LockException.class) {
      // A provider that answered and refused the request: a server limit reached.
      code = ExitCodes.UNAVAILABLE;
      message = "the provider refused the request: " + clean(error);
    } else {
      code = ExitCodes.SOFTWARE;
      message =
          "internal error: "
              + clean(error)
              + "; rerun with --verbose for the stack trace and report it";
    }
    err.println("locksmith: " + message);
    if (verbose(parsed)) {
      error.printStackTrace(err);
    }
    err.flush();
    return code;
  }

  /** Whether {@code -v}/{@code --verbose} was given to the command or any subcommand. */
  static boolean verbose(@Nullable ParseResult parsed) {
    for (ParseResult p = parsed; p != null; p = p.subcommand()) {
      if (p.hasMatchedOption("--verbose")) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether {@code -v}/{@code --verbose} is given to {@code locksmith} or its subcommand, not to
   * {@code run}'s COMMAND: {@code run --key k grep -v x} is not verbose. Arguments that do not
   * parse are scanned up to {@code --}.
   */
  static boolean verboseIn(String[] args) {
    try {
      return verbose(Main.commandLine().parseArgs(args));
    } catch (PicocliException e) {
      return verboseBeforeDoubleDash(args);
    }
  }

  private static boolean verboseBeforeDoubleDash(String[] args) {
    for (String arg : args) {
      if (arg.equals("--")) {
        return false;
      }
      if (arg.equals("-v") || arg.equals("--verbose")) {
        return true;
      }
    }
    return false;
  }

  /** An exception's message cleaned to one bounded line; its type's name when it has none. */
  static String clean(Throwable error) {
    String message = error.getMessage();
    if (message == null || message.isBlank()) {
      return error.getClass().getSimpleName();
    }
    return clean(message);
  }

  /**
   * One bounded line: the first line of {@code message}, without a provider's dump of its request
   * (Lua source, channel, parameters) and without package names of exceptions.
   */
  static String clean(String message) {
    String line = message.strip().lines().findFirst().orElse("").strip();
    for (String marker : DUMP_MARKERS) {
      int at = line.indexOf(marker);
      if (at > 0) {
        line = line.substring(0, at);
      }
    }
    Matcher matcher = QUALIFIED_EXCEPTION.matcher(line);
    StringBuilder out = new StringBuilder();
    while (matcher.find()) {
      boolean followedByMessage = matcher.group(2) != null;
      matcher.appendReplacement(out, followedByMessage ? "" : matcher.group(1));
    }
    matcher.appendTail(out);
    line = out.toString().replaceAll("\\s+", " ").replaceAll("[.:;,\\s]+$", "").strip();
    if (line.length() > MAX_MESSAGE) {
      line = line.substring(0, MAX_MESSAGE - 3).stripTrailing() + "...";
    }
    return line;
  }

  /**
   * Why a file could not be read, in a few words: {@code no such file}, {@code permission denied}.
   */
  static String ioReason(IOException error) {
    if (error instanceof NoSuchFileException) {
      return "no such file";
    }
    if (error instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (error instanceof NotDirectoryException) {
      return "not a directory";
    }
    if (error instanceof FileSystemException fs && fs.getReason() != null) {
      return clean(fs.getReason());
    }
    return clean(error);
  }
}
