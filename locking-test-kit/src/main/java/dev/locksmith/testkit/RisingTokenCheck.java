package dev.locksmith.testkit;

import dev.locksmith.core.Lease;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

/**
 * Checks each call of a two-account race from inside it: the call holds two leases, and each lock's
 * fencing token is higher than at the call before; collects what it finds wrong.
 */
final class RisingTokenCheck implements Consumer<Lease> {
  private final Map<String, Long> lastTokens = new ConcurrentHashMap<>();
  private final Queue<String> problems = new ConcurrentLinkedQueue<>();

  @Override
  public void accept(Lease lease) {
    if (lease.leases().size() != 2) {
      problems.add("leases: " + lease.leases());
    }
    for (Lease one : lease.leases()) {
      Long previous = lastTokens.put(one.lockId(), one.fencingToken());
      if (previous != null && one.fencingToken() <= previous) {
        problems.add(one.lockId() + ": token " + one.fencingToken() + " after " + previous);
      }
    }
  }

  /** What was wrong, one line per problem; empty when every call passed. */
  Queue<String> problems() {
    return problems;
  }
}
