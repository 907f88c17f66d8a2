package dev.locksmith.cli;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockStatus;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code locksmith status}: who holds what. */
@Command(
    name = "status",
    description = "Shows who holds a lock (or every held lock), its fencing token and time left.",
    mixinStandardHelpOptions = true,
    exitCodeOnInvalidInput = ExitCodes.USAGE)
final class StatusCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--url", required = true, description = "Provider URL.")
  String url;

  @Option(
      names = "--key",
      description = "The lock; without it, every held lock the provider lists.")
  @Nullable String key;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try (LockProvider provider = LockProviders.create(url)) {
      List<LockStatus> statuses;
      if (key != null) {
        statuses = List.of(provider.status(key));
      } else {
        var listed = provider.listHeld();
        if (listed.isEmpty()) {
          err.println(
              "locksmith: " + provider.description() + " cannot list its locks; give --key");
          return ExitCodes.USAGE;
        }
        statuses = listed.get();
      }
      out.printf("%-40s %-12s %-10s %-8s %s%n", "LOCK", "TOKEN", "LEFT", "WAITERS", "HOLDER");
      for (LockStatus status : statuses) {
        String waiters = status.waiters() < 0 ? "?" : Integer.toString(status.waiters());
        LockStatus.Holder h = status.holder();
        if (h == null) {
          out.printf("%-40s %-12s %-10s %-8s %s%n", status.lockId(), "-", "-", waiters, "(free)");
        } else {
          out.printf(
              "%-40s %-12d %-10s %-8s %s%n",
              status.lockId(),
              h.fencingToken(),
              h.timeLeft().toMillis() + "ms",
              waiters,
              h.owner());
        }
      }
      out.flush();
      return 0;
    } catch (LockConfigurationException e) {
      err.println("locksmith: " + e.getMessage());
      return ExitCodes.USAGE;
    } catch (LockProviderException e) {
      err.println("locksmith: provider unreachable: " + e.getMessage());
      return ExitCodes.UNAVAILABLE;
    }
  }
}
