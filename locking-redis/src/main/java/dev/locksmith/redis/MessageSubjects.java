package dev.locksmith.redis;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockIdText;
import dev.locksmith.core.spi.LockRequest;
import java.util.List;

/**
 * How messages name what a command was about: {@code lock 'ID'}, {@code locks 'A', 'B'}, {@code
 * leases of locks 'A', 'B'}.
 */
final class MessageSubjects {
  /** How many lock ids a message about several locks names before it counts the rest. */
  static final int NAMED_IN_MESSAGES = 5;

  private MessageSubjects() {}

  /** {@code lock 'ID'} for messages. */
  static String lock(String lockId) {
    return "lock " + LockIdText.quoted(lockId);
  }

  /**
   * {@code locks 'A', 'B', 'C'} for messages, naming at most {@link #NAMED_IN_MESSAGES} ids and
   * counting the rest ({@code and 60 more}).
   */
  static String locksNamed(List<LockRequest> requests) {
    return named("locks ", requests.stream().map(LockRequest::lockId).toList());
  }

  /** {@code leases of locks 'A', 'B'} for messages, as {@link #locksNamed} names locks. */
  static String leasesNamed(List<LeaseGrant> leases) {
    return named(
        leases.size() == 1 ? "the lease of lock " : "leases of locks ",
        leases.stream().map(LeaseGrant::lockId).toList());
  }

  private static String named(String prefix, List<String> lockIds) {
    StringBuilder out = new StringBuilder(prefix);
    int named = Math.min(lockIds.size(), NAMED_IN_MESSAGES);
    for (int i = 0; i < named; i++) {
      out.append(i == 0 ? "" : ", ").append(LockIdText.quoted(lockIds.get(i)));
    }
    if (lockIds.size() > named) {
      out.append(" and ").append(lockIds.size() - named).append(" more");
    }
    return out.toString();
  }
}
