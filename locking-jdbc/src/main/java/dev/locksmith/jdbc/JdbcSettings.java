package dev.locksmith.jdbc;

import dev.locksmith.core.Durations;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * What a provider is configured with, checked.
 *
 * @param table the lock table, optionally schema-qualified
 * @param createTable whether the table is created on first use when missing
 * @param timeout how long one call may take: borrowing a connection plus the statement
 * @param maxPoll the longest pause between attempts of a waiter that polls
 * @param retention how long a row whose lease ended is kept before a sweep may delete it
 */
record JdbcSettings(
    String table, boolean createTable, Duration timeout, Duration maxPoll, Duration retention) {

  static final String DEFAULT_TABLE = "locksmith_locks";
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
  static final Duration DEFAULT_MAX_POLL = Duration.ofMillis(100);
  static final Duration DEFAULT_RETENTION = Duration.ofHours(1);

  private static final Pattern TABLE =
      Pattern.compile("([A-Za-z_][A-Za-z0-9_]{0,47}\\.)?[A-Za-z_][A-Za-z0-9_]{0,47}");

  static JdbcSettings defaults() {
    return new JdbcSettings(
        DEFAULT_TABLE, true, DEFAULT_TIMEOUT, DEFAULT_MAX_POLL, DEFAULT_RETENTION);
  }

  /** Checks the values; a wrong one fails with an {@link IllegalArgumentException} naming it. */
  JdbcSettings {
    if (!TABLE.matcher(table).matches()) {
      throw new IllegalArgumentException(
          "table '"
              + table
              + "' is not a plain SQL name: letters, digits and '_', at most 48 characters,"
              + " optionally after 'schema.'");
    }
    for (String part : table.split("\\.")) {
      if (ReservedWords.isReserved(part)) {
        throw new IllegalArgumentException(
            "table '"
                + table
                + "': '"
                + part
                + "' is a reserved word in SQL (in PostgreSQL, MySQL/MariaDB or H2), which the"
                + " provider's statements cannot use unquoted; choose another name, such as"
                + " locksmith_locks");
      }
    }
    // The upper bound first: toMillis() overflows on a huge duration.
    if (timeout.isNegative()
        || timeout.compareTo(Duration.ofMinutes(5)) > 0
        || timeout.toMillis() < 250) {
      throw new IllegalArgumentException("timeout must be between 250ms and 5m, was " + timeout);
    }
    if (maxPoll.isNegative()
        || maxPoll.compareTo(Duration.ofSeconds(10)) > 0
        || maxPoll.toMillis() < 1) {
      throw new IllegalArgumentException("maxPoll must be between 1ms and 10s, was " + maxPoll);
    }
    if (retention.compareTo(Duration.ofMinutes(1)) < 0 || retention.compareTo(Durations.MAX) > 0) {
      throw new IllegalArgumentException("retention must be between 1m and 365d, was " + retention);
    }
  }

  /**
   * The PostgreSQL notification channel of this table: named after the table without its schema, so
   * that {@code public.locksmith_locks} and {@code locksmith_locks} hear each other (tables of one
   * name in two schemas share it, which only wakes their waiters for nothing).
   */
  String channel() {
    String name = table.substring(table.lastIndexOf('.') + 1);
    String channel = "locksmith:" + name.toLowerCase(java.util.Locale.ROOT);
    return channel.length() > 63 ? channel.substring(0, 63) : channel;
  }
}
