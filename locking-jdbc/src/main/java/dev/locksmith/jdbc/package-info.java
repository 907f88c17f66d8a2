/**
 * A lock provider on plain JDBC: leases in one table of PostgreSQL, MySQL/MariaDB or H2, timed by
 * the database's clock.
 */
@NullMarked
package dev.locksmith.jdbc;

import org.jspecify.annotations.NullMarked;
