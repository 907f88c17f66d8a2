package dev.locksmith.redis;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LockIdText;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;

/**
 * Checks the server's {@code maxmemory-policy} before the provider's first grant, the first contact
 * that matters; until a check passes (or finds the policy unreadable, which warns), every acquire
 * checks again, so a policy fixed on the server is seen without a restart. Threads that need the
 * check while one runs share its outcome. The check itself is {@link EvictionPolicy}'s.
 */
final class EvictionGate {
  private final RedissonClient client;
  private final RedisLockOptions options;
  private final String description;
  private final FirstContact firstContact;
  // The check in progress, shared by the threads that need it meanwhile.
  private final AtomicReference<@Nullable CompletableFuture<Void>> running =
      new AtomicReference<>();
  private volatile boolean checked;

  EvictionGate(
      RedissonClient client,
      RedisLockOptions options,
      String description,
      FirstContact firstContact) {
    this.client = client;
    this.options = options;
    this.description = description;
    this.firstContact = firstContact;
  }

  /**
   * Returns once the policy was checked; throws this acquire's failure when the check refuses the
   * server ({@link LockConfigurationException}) or cannot reach it ({@link LockProviderException}).
   */
  void ensureChecked(String lockId) {
    if (checked) {
      return;
    }
    CompletableFuture<Void> mine = new CompletableFuture<>();
    CompletableFuture<Void> other = running.compareAndExchange(null, mine);
    try {
      if (other != null) {
        // Another thread checks now: share its outcome rather than queue behind it, so that no
        // caller waits longer than one check while Redis is down. Not interruptible, as a call.
        other.join();
        return;
      }
      try {
        if (!checked) {
          firstContact.run(() -> EvictionPolicy.check(client, options, description));
          checked = true;
        }
        mine.complete(null);
      } catch (RuntimeException | Error e) {
        // An Error too, or the threads sharing this check would wait for it for ever.
        mine.completeExceptionally(e);
        throw e;
      } finally {
        running.set(null);
      }
    } catch (RuntimeException e) {
      throw checkFailed(lockId, e);
    }
  }

  /**
   * The failed check as this acquire's failure: the refusal as it is (a new exception when it was
   * another thread's), a server not reached as {@code failed to acquire lock 'ID': ...}.
   */
  private RuntimeException checkFailed(String lockId, RuntimeException e) {
    Throwable failure = RedisFailures.unwrap(e);
    if (failure instanceof LockConfigurationException refused) {
      return refused == e
          ? refused
          : new LockConfigurationException(String.valueOf(refused.getMessage()), refused);
    }
    Throwable cause =
        failure instanceof LockProviderException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    return new LockProviderException(
        "Redis "
            + description
            + " failed to acquire lock "
            + LockIdText.quoted(lockId)
            + ": "
            + RedisFailures.reason(cause)
            + " (reading maxmemory-policy before the first grant)",
        cause);
  }
}
