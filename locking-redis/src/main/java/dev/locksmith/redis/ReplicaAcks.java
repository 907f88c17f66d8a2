package dev.locksmith.redis;

import dev.locksmith.core.Durations;
import dev.locksmith.core.LockProviderException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.redisson.api.RScript;

/**
 * Replica acknowledgement of grants and renewals ({@link RedisLockOptions#replicas()}): the scripts
 * that grant or extend leases run followed by {@code WAIT} when replicas must acknowledge them, and
 * what fewer replicas acknowledged is refused.
 */
final class ReplicaAcks {
  private final Scripts scripts;
  private final int replicas;
  private final Duration replicaTimeout;
  private final String description;

  ReplicaAcks(Scripts scripts, RedisLockOptions options, String description) {
    this.scripts = scripts;
    this.replicas = options.replicas();
    this.replicaTimeout = options.replicaTimeout();
    this.description = description;
  }

  /**
   * Runs a script that grants or extends leases: alone when no replica need acknowledge it, else
   * followed by {@code WAIT} on the same connection ({@link Scripts#runAcked}).
   */
  <T> CompletableFuture<Scripts.Acked<T>> granting(
      String key, String lua, RScript.ReturnType type, List<Object> scriptKeys, Object... args) {
    if (replicas == 0) {
      return scripts
          .<T>run(key, lua, type, scriptKeys, args)
          .thenApply(r -> new Scripts.Acked<>(r, 0));
    }
    return scripts.runAcked(key, lua, type, scriptKeys, replicas, replicaTimeout, args);
  }

  /**
   * Refuses a {@code what} ({@code grant}, {@code renewal}) that fewer replicas acknowledged than
   * the options ask for.
   */
  void checkAcknowledged(String what, String subject, Scripts.Acked<?> acked) {
    if (acked.replicas() >= replicas) {
      return;
    }
    throw new ReplicasMissing(
        "Redis "
            + description
            + " refused the "
            + what
            + " of "
            + subject
            + ": "
            + acked.replicas()
            + " of "
            + replicas
            + " replica(s) acknowledged it within "
            + Durations.format(replicaTimeout)
            + " (replicas="
            + replicas
            + ")");
  }

  /** A grant or renewal that fewer replicas acknowledged than the options ask for. */
  static final class ReplicasMissing extends LockProviderException {
    private static final long serialVersionUID = 1L;

    ReplicasMissing(String message) {
      super(message);
    }

    private ReplicasMissing(String message, ReplicasMissing cause) {
      super(message, cause);
    }

    /**
     * This refusal of a grant, saying whether the grant was then released: when its release failed
     * (or found it gone), it ends by its TTL at the latest.
     */
    ReplicasMissing afterRelease(boolean released) {
      return new ReplicasMissing(
          getMessage()
              + (released
                  ? "; released it"
                  : "; its release failed or found it gone, so it ends by its TTL at the latest"),
          this);
    }
  }
}
