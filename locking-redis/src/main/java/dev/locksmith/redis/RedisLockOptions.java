package dev.locksmith.redis;

import java.time.Duration;
import java.util.Objects;

/**
 * How the provider names its keys, what it accepts of the server, and how many replicas must
 * acknowledge a grant.
 *
 * @param prefix the start of every key and channel name, such as {@code locksmith}; the lock id
 *     follows in a Cluster hash tag: {@code PREFIX:{LOCK_ID}:lock}. It may not contain {@code {} or
 *     {@code }}, which would move the hash tag.
 * @param allowEviction whether to accept a server whose {@code maxmemory-policy} may evict lock
 *     keys (any policy but {@code noeviction}), with a warning. Off by default: the provider then
 *     refuses such a server at its first acquire, because an evicted lock lets a second holder in
 *     while the first still runs. The URL parameter {@code allow-eviction=true} sets it.
 * @param replicas how many replicas must acknowledge each grant and renewal (Redis {@code WAIT}
 *     after the script, on the same connection) within {@code replicaTimeout}; a grant fewer
 *     acknowledge is released and refused with a {@link dev.locksmith.core.LockProviderException}.
 *     0 (the default) waits for none. The URL parameter {@code replicas=N} sets it.
 * @param replicaTimeout how long a grant waits for its replicas' acknowledgements when {@code
 *     replicas} is above 0; positive, at most 1 minute. The URL parameter {@code
 *     replica-timeout=200ms} sets it.
 */
public record RedisLockOptions(
    String prefix, boolean allowEviction, int replicas, Duration replicaTimeout) {
  /** The prefix used when none is given. */
  public static final String DEFAULT_PREFIX = "locksmith";

  /** How long a grant waits for its replicas unless told otherwise: 200 ms. */
  public static final Duration DEFAULT_REPLICA_TIMEOUT = Duration.ofMillis(200);

  /** The longest {@link #replicaTimeout()}: 1 minute. */
  public static final Duration MAX_REPLICA_TIMEOUT = Duration.ofMinutes(1);

  /**
   * Validates the prefix and the replica settings.
   *
   * @param prefix see {@link #prefix()}
   * @param allowEviction see {@link #allowEviction()}
   * @param replicas see {@link #replicas()}
   * @param replicaTimeout see {@link #replicaTimeout()}
   * @throws IllegalArgumentException when a value is out of range, naming it
   */
  public RedisLockOptions {
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(replicaTimeout, "replicaTimeout");
    checkPrefix(prefix);
    if (replicas < 0) {
      throw new IllegalArgumentException("replicas is " + replicas + "; expected 0 or more");
    }
    if (replicaTimeout.isNegative()
        || replicaTimeout.toMillis() < 1
        || replicaTimeout.compareTo(MAX_REPLICA_TIMEOUT) > 0) {
      throw new IllegalArgumentException(
          "replica timeout is "
              + replicaTimeout
              + "; expected 1ms to "
              + MAX_REPLICA_TIMEOUT.toSeconds()
              + "s");
    }
  }

  /**
   * Options with {@code prefix} and {@code allowEviction} that wait for no replica.
   *
   * @param prefix see {@link #prefix()}
   * @param allowEviction see {@link #allowEviction()}
   */
  public RedisLockOptions(String prefix, boolean allowEviction) {
    this(prefix, allowEviction, 0, DEFAULT_REPLICA_TIMEOUT);
  }

  /**
   * Options with {@code prefix} that refuse a server which may evict lock keys.
   *
   * @param prefix see {@link #prefix()}
   */
  public RedisLockOptions(String prefix) {
    this(prefix, false);
  }

  /**
   * Refuses an empty prefix or one with {@code {} or {@code }}, with the message the URL's {@code
   * prefix} parameter reports.
   */
  static void checkPrefix(String prefix) {
    if (prefix.isEmpty()) {
      throw new IllegalArgumentException("prefix is empty");
    }
    if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
      throw new IllegalArgumentException(
          "prefix '" + prefix + "' contains '{' or '}', which would break the Cluster hash tag");
    }
  }

  /**
   * The options with the default prefix {@value #DEFAULT_PREFIX}, refusing a server which may evict
   * lock keys, waiting for no replica.
   *
   * @return the default options
   */
  public static RedisLockOptions defaults() {
    return new RedisLockOptions(DEFAULT_PREFIX, false);
  }

  /**
   * These options with another prefix.
   *
   * @param newPrefix the prefix
   * @return the new options
   */
  public RedisLockOptions withPrefix(String newPrefix) {
    return new RedisLockOptions(newPrefix, allowEviction, replicas, replicaTimeout);
  }

  /**
   * These options accepting ({@code true}) or refusing ({@code false}) a server whose {@code
   * maxmemory-policy} may evict lock keys; see {@link #allowEviction()}.
   *
   * @param allow whether to accept such a server
   * @return the new options
   */
  public RedisLockOptions withAllowEviction(boolean allow) {
    return new RedisLockOptions(prefix, allow, replicas, replicaTimeout);
  }

  /**
   * These options with grants and renewals acknowledged by {@code count} replicas within {@code
   * timeout}; see {@link #replicas()}.
   *
   * @param count how many replicas acknowledge, 0 for none
   * @param timeout how long a grant waits for them
   * @return the new options
   */
  public RedisLockOptions withReplicas(int count, Duration timeout) {
    return new RedisLockOptions(prefix, allowEviction, count, timeout);
  }
}
