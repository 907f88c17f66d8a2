package dev.locksmith.cli;

import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockStatus;
import dev.locksmith.tcp.TcpServerStats;
import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code locksmith status}: who holds what. */
@Command(
    name = "status",
    description = {
      "Shows who holds a lock (or every held lock), its fencing token and time left.",
      "Without --key, a tcp:// lock server shows its counters instead (connections, locks,"
          + " waiters, grants, hand-off latency)."
    },
    mixinStandardHelpOptions = true)
final class StatusCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ProviderOptions providerOptions;

  @Option(
      names = "--key",
      description = "The lock; without it, every held lock the provider lists.")
  @Nullable String key;

  @Override
  public Integer call() {
    if (key != null) {
      RunKeys.checkKey(key);
    }
    PrintWriter out = spec.commandLine().getOut();
    Connector.Connected<Shown> connected = providerOptions.open(this::read);
    try (LockProvider provider = connected.provider()) {
      Shown shown = connected.first();
      if (shown.counters().isPresent()) {
        out.print(shown.counters().get().summary());
        out.flush();
        return 0;
      }
      List<LockStatus> statuses =
          shown
              .statuses()
              .orElseThrow(
                  () ->
                      Failure.usage(
                          provider.description() + " cannot list its locks; name one with --key"));
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
    }
  }

  /**
   * What status shows: the named lock, or every held lock, or for a lock server that cannot list
   * its locks its counters, all read within {@code --connect-timeout}.
   */
  private record Shown(Optional<List<LockStatus>> statuses, Optional<TcpServerStats> counters) {}

  private Shown read(LockProvider provider) {
    String lockId = key;
    if (lockId != null) {
      return new Shown(Optional.of(List.of(provider.status(lockId))), Optional.empty());
    }
    Optional<List<LockStatus>> held = provider.listHeld();
    return new Shown(held, held.isEmpty() ? TcpServerStats.fetch(provider) : Optional.empty());
  }
}
