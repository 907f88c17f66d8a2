package dev.locksmith.chaos;

import dev.locksmith.core.Locksmith;
import dev.locksmith.core.ProviderHealth;
import java.time.Instant;

/**
 * Whether an engine's default provider went down (its outage circuit opened) since this was
 * created: the circuit's state and the moment it entered it, read from {@link Locksmith#health()}
 * without calling the provider. A {@code WAIT} that rides through an outage leaves no error behind;
 * this is how a scenario tells that it met one.
 */
final class OutageSeen {
  private final Locksmith locksmith;
  private final Instant since;

  private OutageSeen(Locksmith locksmith, Instant since) {
    this.locksmith = locksmith;
    this.since = since;
  }

  /** Starts watching {@code locksmith}'s default provider, which must be up now. */
  static OutageSeen from(Locksmith locksmith) {
    ProviderHealth health = health(locksmith);
    if (!health.up()) {
      throw new IllegalStateException(
          "provider " + health.description() + " is already down: " + health.problem());
    }
    return new OutageSeen(locksmith, health.since());
  }

  /** Whether the provider is down now, or went down and came back, since {@link #from}. */
  boolean seen() {
    ProviderHealth health = health(locksmith);
    return !health.up() || !health.since().equals(since);
  }

  private static ProviderHealth health(Locksmith locksmith) {
    return locksmith.health().get(0); // the default provider comes first
  }
}
