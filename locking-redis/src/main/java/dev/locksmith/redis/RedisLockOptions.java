package dev.locksmith.redis;

import java.util.Objects;

/**
 * How the provider names its keys, and what it accepts of the server.
 *
 * @param prefix the start of every key and channel name, such as {@code locksmith}; the lock id
 *     follows in a Cluster hash tag: {@code PREFIX:{LOCK_ID}:lock}. It may not contain {@code {} or
 *     {@code }}, which would move the hash tag.
 * @param allowEviction whether to accept a server whose {@code maxmemory-policy} may evict lock
 *     keys (any policy but {@code noeviction}), with a warning. Off by default: the provider then
 *     refuses such a server at its first acquire, because an evicted lock lets a second holder in
 *     while the first still runs. The URL parameter {@code allow-eviction=true} sets it.
 */
public record RedisLockOptions(String prefix, boolean allowEviction) {
  /** The prefix used when none is given. */
  public static final String DEFAULT_PREFIX = "locksmith";

  /** Validates the prefix. */
  public RedisLockOptions {
    Objects.requireNonNull(prefix, "prefix");
    if (prefix.isEmpty()) {
      throw new IllegalArgumentException("prefix is empty");
    }
    if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
      throw new IllegalArgumentException(
          "prefix '" + prefix + "' contains '{' or '}', which would break the Cluster hash tag");
    }
  }

  /** Options with {@code prefix} that refuse a server which may evict lock keys. */
  public RedisLockOptions(String prefix) {
    this(prefix, false);
  }

  /**
   * The options with the default prefix {@value #DEFAULT_PREFIX}, refusing a server which may evict
   * lock keys.
   */
  public static RedisLockOptions defaults() {
    return new RedisLockOptions(DEFAULT_PREFIX, false);
  }

  /** These options with another prefix. */
  public RedisLockOptions withPrefix(String newPrefix) {
    return new RedisLockOptions(newPrefix, allowEviction);
  }

  /**
   * These options accepting ({@code true}) or refusing ({@code false}) a server whose {@code
   * maxmemory-policy} may evict lock keys; see {@link #allowEviction()}.
   */
  public RedisLockOptions withAllowEviction(boolean allow) {
    return new RedisLockOptions(prefix, allow);
  }
}
