/**
 * The JDBC provider on PostgreSQL against ShedLock's {@code JdbcTemplateLockProvider} and a raw
 * JDBC baseline, and its lock+unlock and hand-off latency on PostgreSQL, MariaDB and H2.
 */
@NullMarked
package dev.locksmith.benchmarks.jdbc;

import org.jspecify.annotations.NullMarked;
