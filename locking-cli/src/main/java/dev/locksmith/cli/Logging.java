package dev.locksmith.cli;

import java.util.Set;

/**
 * Sets how much the libraries log (through slf4j-simple, on stderr) before anything logs. {@code
 * run} and {@code status} log nothing, so that stderr holds COMMAND's output and at most the {@code
 * locksmith:} line; {@code -v} turns logging on at {@code info}. A level given with {@code
 * -Dorg.slf4j.simpleLogger.defaultLogLevel} wins.
 */
final class Logging {
  static final String LEVEL_PROPERTY = "org.slf4j.simpleLogger.defaultLogLevel";
  private static final Set<String> QUIET_COMMANDS = Set.of("run", "status");

  private Logging() {}

  static void configure(String[] args) {
    if (System.getProperty(LEVEL_PROPERTY) != null) {
      return;
    }
    if (Errors.verboseIn(args)) {
      System.setProperty(LEVEL_PROPERTY, "info");
      return;
    }
    for (String arg : args) {
      if (!arg.startsWith("-")) {
        if (QUIET_COMMANDS.contains(arg)) {
          System.setProperty(LEVEL_PROPERTY, "off");
        }
        return;
      }
    }
  }
}
