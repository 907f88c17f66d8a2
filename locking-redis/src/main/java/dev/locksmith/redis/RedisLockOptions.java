package dev.locksmith.redis;

import java.util.Objects;

/**
 * How the provider names its keys.
 *
 * @param prefix the start of every key and channel name, such as {@code locksmith}; the lock id
 *     follows in a Cluster hash tag: {@code PREFIX:{LOCK_ID}:lock}. It may not contain {@code {} or
 *     {@code }}, which would move the hash tag.
 */
public record RedisLockOptions(String prefix) {
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

  /** The options with the default prefix {@value #DEFAULT_PREFIX}. */
  public static RedisLockOptions defaults() {
    return new RedisLockOptions(DEFAULT_PREFIX);
  }

  /** These options with another prefix. */
  public RedisLockOptions withPrefix(String newPrefix) {
    return new RedisLockOptions(newPrefix);
  }
}
