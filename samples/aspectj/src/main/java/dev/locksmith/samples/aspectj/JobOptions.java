package dev.locksmith.samples.aspectj;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * The command line of {@link SettlementJob}: {@code DIR [--rounds=N] [--accounts=a,b,c]
 * [--worker=NAME] [--work-millis=MS] [--await-go]}.
 *
 * @param dir the work directory: the ledger lives in {@code DIR/ledger}, and the locks in {@code
 *     DIR/locks} unless {@code locksmith.url} says otherwise
 * @param rounds how many settlement rounds to run
 * @param accounts the accounts settled in each round, in this order
 * @param worker this worker's name in the ledger and the log
 * @param work how long settling one account takes (simulated)
 * @param awaitGo whether to wait for a line {@code go} on standard input before starting, so that
 *     several workers can be started at the same moment
 */
record JobOptions(
    Path dir, int rounds, List<String> accounts, String worker, Duration work, boolean awaitGo) {

  static final String USAGE =
      "usage: SettlementJob DIR [--rounds=N] [--accounts=a,b,c] [--worker=NAME]"
          + " [--work-millis=MS] [--await-go]";

  /**
   * Parses the arguments.
   *
   * @throws IllegalArgumentException naming the argument that is wrong
   */
  static JobOptions parse(String... args) {
    Path dir = null;
    int rounds = 3;
    List<String> accounts = List.of("acc-1", "acc-2", "acc-3", "acc-4");
    String worker = "pid-" + ProcessHandle.current().pid();
    Duration work = Duration.ofMillis(50);
    boolean awaitGo = false;
    for (String arg : args) {
      if (arg.startsWith("--rounds=")) {
        rounds = positive(arg, value(arg));
      } else if (arg.startsWith("--accounts=")) {
        accounts = Arrays.stream(value(arg).split(",")).map(String::strip).toList();
        if (accounts.stream().anyMatch(a -> !a.matches("[A-Za-z0-9_-]+"))) {
          throw new IllegalArgumentException(
              arg + ": account names may hold letters, digits, '-' and '_' only");
        }
      } else if (arg.startsWith("--worker=")) {
        worker = value(arg);
        if (!worker.matches("[A-Za-z0-9_-]+")) {
          throw new IllegalArgumentException(
              arg + ": a worker name may hold letters, digits, '-' and '_' only");
        }
      } else if (arg.startsWith("--work-millis=")) {
        work = Duration.ofMillis(positive(arg, value(arg)));
      } else if (arg.equals("--await-go")) {
        awaitGo = true;
      } else if (arg.startsWith("--") || dir != null) {
        throw new IllegalArgumentException("unknown argument '" + arg + "'");
      } else {
        dir = Path.of(arg).toAbsolutePath();
      }
    }
    if (dir == null) {
      throw new IllegalArgumentException("the work directory DIR is missing");
    }
    return new JobOptions(dir, rounds, accounts, worker, work, awaitGo);
  }

  private static String value(String arg) {
    return arg.substring(arg.indexOf('=') + 1);
  }

  private static int positive(String arg, String value) {
    try {
      int number = Integer.parseInt(value);
      if (number > 0) {
        return number;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(arg + ": expected a positive whole number");
  }
}
