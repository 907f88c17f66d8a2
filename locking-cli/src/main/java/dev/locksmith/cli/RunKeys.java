package dev.locksmith.cli;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.spi.LockIdText;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The locks of one {@code run}: one {@code --key} is the lock id itself (or {@code NAME:KEY} with
 * {@code --name}); several {@code --key} need {@code --name} and are taken as the engine's several
 * keys, each locked as {@code NAME:KEY}, sorted, all or nothing.
 *
 * @param name {@code --name}, or null
 * @param keys every {@code --key}, as given
 */
record RunKeys(@Nullable String name, List<String> keys) {
  RunKeys {
    keys = List.copyOf(keys);
  }

  /** Fails with a usage error naming the option when the keys cannot be locked. */
  void check() {
    if (name != null) {
      checkPart("--name", name);
    }
    keys.forEach(RunKeys::checkKey);
    if (name == null && keys.stream().distinct().count() > 1) {
      throw Failure.usage(
          "several --key need --name: each is locked as NAME:KEY (got --key "
              + String.join(" --key ", keys)
              + ")");
    }
  }

  /**
   * Fails with a usage error when a {@code --key} (of {@code run} or {@code status}) is empty or
   * holds a line break, which would split its line in {@code LOCKSMITH_LOCKS} and in listings.
   */
  static void checkKey(String key) {
    checkPart("--key", key);
  }

  /** Fails with a usage error when a part of a lock id, given by {@code option}, is unusable. */
  private static void checkPart(String option, String part) {
    if (part.isEmpty()) {
      throw Failure.usage(option + " must not be empty");
    }
    if (part.indexOf('\n') >= 0 || part.indexOf('\r') >= 0) {
      throw Failure.usage(
          option
              + " must not hold a line break, was '"
              + part.replace("\n", "\\n").replace("\r", "\\r")
              + "'");
    }
  }

  /** The lock options for these keys, with the engine's defaults otherwise. */
  LockOptions options() {
    if (name == null) {
      return LockOptions.named(keys.get(0));
    }
    return LockOptions.named(name).withKeys(keys);
  }

  /** The lock ids, in lock order (sorted, duplicates dropped). */
  List<String> lockIds() {
    return options().lockIds();
  }

  /** The lock ids as a message names them: {@code 'a'} or {@code 'n:a', 'n:b'}. */
  String describe() {
    return lockIds().stream().map(LockIdText::quoted).collect(Collectors.joining(", "));
  }

  /**
   * COMMAND's environment for the lease: {@code LOCKSMITH_LOCK}, {@code LOCKSMITH_FENCING_TOKEN}
   * and {@code LOCKSMITH_OWNER} of the first lock (in lock order), and {@code LOCKSMITH_LOCKS} with
   * one line {@code LOCKID=TOKEN} per lock, in lock order.
   */
  static void export(Lease lease, Map<String, String> env) {
    env.put("LOCKSMITH_LOCK", lease.lockId());
    env.put("LOCKSMITH_FENCING_TOKEN", Long.toString(lease.fencingToken()));
    env.put("LOCKSMITH_OWNER", lease.ownerToken());
    env.put(
        "LOCKSMITH_LOCKS",
        lease.leases().stream()
            .map(l -> l.lockId() + "=" + l.fencingToken())
            .collect(Collectors.joining("\n")));
  }
}
