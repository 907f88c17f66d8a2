package dev.locksmith.core;

import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.spi.LockProvider;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * How to take one lock: the programmatic twin of {@code @DistributedLock}, with the same defaults.
 *
 * <pre>{@code
 * LockOptions options = LockOptions.named("nightly-report").withKey(tenant).withTtl(Duration.ofMinutes(5));
 * try (Lease lease = locksmith.acquire(options)) { ... }
 * }</pre>
 *
 * @param name the lock's name
 * @param key appended to the name as {@code name:key}, or {@code null} for none; with several keys,
 *     the first of them
 * @param ttl the lease length, renewed every third of it while held when {@code renew}
 * @param renew whether the lease is renewed while held
 * @param onBusy what to do when another owner holds the lock; {@link OnBusy#AUTO} means {@link
 *     OnBusy#WAIT} here, as no method tells whether a scheduler calls it
 * @param waitTimeout how long {@link OnBusy#WAIT} waits
 * @param minHold how long the lock stays held at least, counted from acquisition
 * @param provider the configured provider's name, or empty for the default provider
 * @param keys with several keys ({@link #withKeys}), every distinct key in lock order (sorted),
 *     each locked as {@code name:key}; empty for one key or none
 */
public record LockOptions(
    String name,
    @Nullable String key,
    Duration ttl,
    boolean renew,
    OnBusy onBusy,
    Duration waitTimeout,
    Duration minHold,
    String provider,
    List<String> keys) {

  /** The annotation's default lease length. */
  public static final Duration DEFAULT_TTL = Duration.ofSeconds(30);

  /** The annotation's default wait timeout. */
  public static final Duration DEFAULT_WAIT_TIMEOUT = Duration.ofSeconds(30);

  /**
   * Validates the options.
   *
   * @param name see {@link #name()}
   * @param key see {@link #key()}
   * @param ttl see {@link #ttl()}
   * @param renew see {@link #renew()}
   * @param onBusy see {@link #onBusy()}
   * @param waitTimeout see {@link #waitTimeout()}
   * @param minHold see {@link #minHold()}
   * @param provider see {@link #provider()}
   * @param keys see {@link #keys()}
   */
  public LockOptions {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(onBusy, "onBusy");
    if (onBusy == OnBusy.AUTO) {
      onBusy = OnBusy.WAIT; // no method to look at: the default for everything but scheduled jobs
    }
    Objects.requireNonNull(waitTimeout, "waitTimeout");
    Objects.requireNonNull(minHold, "minHold");
    Objects.requireNonNull(provider, "provider");
    Objects.requireNonNull(keys, "keys");
    keys = keys.isEmpty() ? List.of() : List.copyOf(new TreeSet<>(keys));
    if (keys.size() == 1) {
      key = keys.get(0);
      keys = List.of();
    } else if (!keys.isEmpty()) {
      if (keys.size() > LockProvider.MAX_KEYS_PER_CALL) {
        throw new IllegalArgumentException(
            "lock '"
                + name
                + "' names "
                + keys.size()
                + " distinct keys; one call may lock at most "
                + LockProvider.MAX_KEYS_PER_CALL
                + " (LockProvider.MAX_KEYS_PER_CALL)");
      }
      if (keys.contains("")) {
        throw new IllegalArgumentException("lock key is empty in " + keys);
      }
      key = keys.get(0);
    }
    if (name.isEmpty()) {
      throw new IllegalArgumentException("lock name is empty");
    }
    if (key != null && key.isEmpty()) {
      throw new IllegalArgumentException("lock key is empty; use null for no key");
    }
    if (ttl.isZero() || ttl.isNegative()) {
      throw new IllegalArgumentException("ttl must be positive, was " + ttl);
    }
    if (ttl.compareTo(Durations.MIN_TTL) < 0) {
      throw new IllegalArgumentException("ttl must be at least 1ms, was " + ttl);
    }
    Durations.check(ttl, "ttl");
    Durations.check(waitTimeout, "waitTimeout");
    Durations.check(minHold, "minHold");
    if (!renew && minHold.compareTo(ttl) > 0) {
      throw new IllegalArgumentException(
          "minHold (" + minHold + ") exceeds ttl (" + ttl + ") while renew is false");
    }
  }

  /**
   * Options with one key or none.
   *
   * @param name see {@link #name()}
   * @param key see {@link #key()}
   * @param ttl see {@link #ttl()}
   * @param renew see {@link #renew()}
   * @param onBusy see {@link #onBusy()}
   * @param waitTimeout see {@link #waitTimeout()}
   * @param minHold see {@link #minHold()}
   * @param provider see {@link #provider()}
   */
  public LockOptions(
      String name,
      @Nullable String key,
      Duration ttl,
      boolean renew,
      OnBusy onBusy,
      Duration waitTimeout,
      Duration minHold,
      String provider) {
    this(name, key, ttl, renew, onBusy, waitTimeout, minHold, provider, List.of());
  }

  /**
   * Options for a lock with the annotation's defaults: 30s ttl, renewed, WAIT up to 30s.
   *
   * @param name the lock's name
   * @return the options
   */
  public static LockOptions named(String name) {
    return new LockOptions(
        name, null, DEFAULT_TTL, true, OnBusy.WAIT, DEFAULT_WAIT_TIMEOUT, Duration.ZERO, "");
  }

  /**
   * The lock id: the name, or {@code name:key}.
   *
   * @return the lock id: the name, or {@code name:key}
   */
  public String lockId() {
    return key == null ? name : name + ":" + key;
  }

  /**
   * The lock ids this lock takes, in lock order: one for one key or none, one per distinct key with
   * several.
   *
   * @return the lock ids this lock takes, in lock order: one for one key or none, one per distinct
   *     key with several
   */
  public List<String> lockIds() {
    return keys.isEmpty() ? List.of(lockId()) : keys.stream().map(k -> name + ":" + k).toList();
  }

  /**
   * The same options with one key (or none), in place of any keys before.
   *
   * @param newKey the key, or null for none
   * @return the new options
   */
  public LockOptions withKey(@Nullable String newKey) {
    return new LockOptions(name, newKey, ttl, renew, onBusy, waitTimeout, minHold, provider);
  }

  /**
   * The same options with several keys, each locked as its own lock id {@code name:key}. Duplicates
   * collapse; the locks are taken in one global order (the keys sorted) so that two calls over the
   * same keys cannot deadlock, all or nothing; one distinct key is the same as {@link #withKey}.
   * Where the provider can, the whole set is taken in one round trip ({@link
   * LockProvider#tryAcquireAll}).
   *
   * <p>One call may name at most {@link LockProvider#MAX_KEYS_PER_CALL} (64) distinct keys.
   *
   * @param newKeys the keys
   * @return the new options
   * @throws IllegalArgumentException when there is no key, a key is null or empty, or there are
   *     more than {@link LockProvider#MAX_KEYS_PER_CALL} distinct keys
   */
  public LockOptions withKeys(Collection<String> newKeys) {
    Objects.requireNonNull(newKeys, "keys");
    if (newKeys.isEmpty()) {
      throw new IllegalArgumentException("no lock keys given for '" + name + "'");
    }
    for (String k : newKeys) {
      if (k == null || k.isEmpty()) {
        throw new IllegalArgumentException(
            "lock key is " + (k == null ? "null" : "empty") + " in the keys of '" + name + "'");
      }
    }
    return new LockOptions(
        name, null, ttl, renew, onBusy, waitTimeout, minHold, provider, List.copyOf(newKeys));
  }

  /**
   * The same options with several keys; see {@link #withKeys(Collection)}.
   *
   * @param newKeys the keys
   * @return the new options
   */
  public LockOptions withKeys(String... newKeys) {
    return withKeys(List.of(newKeys));
  }

  /**
   * The same options with a lease length.
   *
   * @param newTtl the lease length
   * @return the new options
   */
  public LockOptions withTtl(Duration newTtl) {
    return new LockOptions(name, key, newTtl, renew, onBusy, waitTimeout, minHold, provider, keys);
  }

  /**
   * The same options with renewal on or off.
   *
   * @param newRenew whether the lease is renewed
   * @return the new options
   */
  public LockOptions withRenew(boolean newRenew) {
    return new LockOptions(name, key, ttl, newRenew, onBusy, waitTimeout, minHold, provider, keys);
  }

  /**
   * The same options with a busy policy.
   *
   * @param newOnBusy the busy policy
   * @return the new options
   */
  public LockOptions withOnBusy(OnBusy newOnBusy) {
    return new LockOptions(name, key, ttl, renew, newOnBusy, waitTimeout, minHold, provider, keys);
  }

  /**
   * The same options with a wait timeout.
   *
   * @param newWaitTimeout the longest wait
   * @return the new options
   */
  public LockOptions withWaitTimeout(Duration newWaitTimeout) {
    return new LockOptions(name, key, ttl, renew, onBusy, newWaitTimeout, minHold, provider, keys);
  }

  /**
   * The same options with a minimum hold time.
   *
   * @param newMinHold the shortest hold
   * @return the new options
   */
  public LockOptions withMinHold(Duration newMinHold) {
    return new LockOptions(name, key, ttl, renew, onBusy, waitTimeout, newMinHold, provider, keys);
  }

  /**
   * The same options on a named provider.
   *
   * @param newProvider the provider's name
   * @return the new options
   */
  public LockOptions withProvider(String newProvider) {
    return new LockOptions(name, key, ttl, renew, onBusy, waitTimeout, minHold, newProvider, keys);
  }
}
