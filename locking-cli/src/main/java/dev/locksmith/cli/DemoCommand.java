package dev.locksmith.cli;

import dev.locksmith.cli.demo.DemoRun;
import dev.locksmith.core.Durations;
import dev.locksmith.core.spi.ProviderUrl;
import java.io.Console;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code locksmith demo}: worker JVMs contending for one lock, drawn live, with a verdict. */
@Command(
    name = "demo",
    description = {
      "Starts worker JVMs whose @DistributedLock method (woven by AspectJ) does a read-modify-write",
      "on a shared ledger file guarded by the fencing token, draws who holds the lock, and ends with",
      "a verdict. Without --url it starts a TCP lock server in this process.",
      "Exits non-zero if any overlap, lost update or fencing-token violation is seen."
    },
    mixinStandardHelpOptions = true)
final class DemoCommand implements Callable<Integer> {
  /** How long reaching the provider given by {@code --url} may take before the demo starts. */
  private static final Duration REACH_TIMEOUT = Duration.ofSeconds(5);

  @Spec CommandSpec spec;

  @Option(
      names = "--url",
      description = "Provider URL (default: a TCP lock server started in this process).")
  @Nullable String url;

  @Option(
      names = "--workers",
      defaultValue = "4",
      description = "Worker JVMs (default: ${DEFAULT-VALUE}).")
  int workers;

  @Option(
      names = "--sections",
      defaultValue = "8",
      description = "Critical sections per worker (default: ${DEFAULT-VALUE}).")
  int sections;

  @Option(
      names = "--ttl",
      defaultValue = "2s",
      description = "Lease length (default: ${DEFAULT-VALUE}).")
  Duration ttl;

  @Option(
      names = "--work",
      defaultValue = "20ms",
      description =
          "Time spent between reading and writing the ledger (default: ${DEFAULT-VALUE}).")
  Duration work;

  @Option(
      names = "--chaos",
      description =
          "Pause a holder with SIGSTOP for twice the TTL and kill another with SIGKILL, to show the"
              + " lock recovering and the paused holder's late write refused.")
  boolean chaos;

  @Option(
      names = "--dir",
      description = "Where the ledger and event files go (default: a temporary directory).")
  @Nullable Path dir;

  @Option(names = "--plain", description = "Plain lines even on a terminal.")
  boolean plain;

  @Override
  public Integer call() throws Exception {
    if (workers < 1 || workers > 16) {
      throw Failure.usage("--workers must be 1 to 16, was " + workers);
    }
    if (sections < 1) {
      throw Failure.usage("--sections must be positive, was " + sections);
    }
    if (ttl.toMillis() < 1) {
      throw Failure.usage("--ttl must be at least 1ms, was " + Durations.format(ttl));
    }
    if (url != null) {
      checkReachable(url);
    }
    if (dir != null) {
      try {
        Files.createDirectories(dir);
      } catch (IOException e) {
        throw Failure.usage("cannot create --dir " + dir + ": " + Errors.ioReason(e), e);
      }
    }
    boolean ansi = !plain && onATerminal();
    DemoRun run =
        new DemoRun(
            url, workers, sections, ttl, work, chaos, dir, spec.commandLine().getOut(), ansi);
    return run.call();
  }

  /**
   * Whether standard input and output are a terminal. JDK 22 to 24 give a {@link Console} even when
   * output goes to a pipe or file; there, and on JDK 25, {@code Console.isTerminal()} tells.
   */
  static boolean onATerminal() {
    Console console = System.console();
    if (console == null) {
      return false;
    }
    try {
      return Boolean.TRUE.equals(Console.class.getMethod("isTerminal").invoke(console));
    } catch (NoSuchMethodException beforeJdk22) {
      return true; // up to JDK 21, a console is there only on a terminal
    } catch (ReflectiveOperationException | RuntimeException e) {
      return false;
    }
  }

  /**
   * Fails now, with the usual exit codes, when the workers could not share a lock through {@code
   * url}: a wrong URL (64), an in-memory store (64: each worker JVM would have its own) or a store
   * that cannot be reached (69), rather than after every worker has waited out its timeout.
   */
  private static void checkReachable(String url) {
    if (ProviderUrl.parse(url).scheme().equals("mem")) {
      throw Failure.usage(
          "--url mem: is not shared between the worker JVMs; give a file:, tcp:, redis:, jdbc: or"
              + " zk: URL, or none for a lock server in this process");
    }
    Connector.open(url, REACH_TIMEOUT, provider -> provider.status("demo-ledger"))
        .provider()
        .close();
  }
}
