/** A PostgreSQL server for tests of the JDBC provider and the integrations that use it. */
@NullMarked
package dev.locksmith.testkit.jdbc;

import org.jspecify.annotations.NullMarked;
