package dev.locksmith.jdbc;

import dev.locksmith.testkit.FullContract;
import dev.locksmith.testkit.LockProviderContract;
import java.time.Duration;

/** The test kit's full conformance suite on one database, with the TTL JDBC renewals need. */
abstract class JdbcConformance extends LockProviderContract implements FullContract {

  /**
   * Every renewal is a committed write: 500 ms (the kit's default) leaves a loaded two-core build
   * machine too little room for three of them in a row, so the suite uses the TTL the README
   * advises as the shortest.
   */
  @Override
  protected Duration shortTtl() {
    return TestDatabases.SHORT_TTL;
  }
}
