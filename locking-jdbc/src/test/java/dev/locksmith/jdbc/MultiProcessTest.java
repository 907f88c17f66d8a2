package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.testkit.MultiProcessHarness;
import dev.locksmith.testkit.TransferHarness;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Separate JVMs contend for one lock through a {@code jdbc:} URL, each doing read-modify-write
 * sections on a shared counter file: no overlap, fencing tokens rising with start time, no lost
 * update. On PostgreSQL here; MariaDB in {@link MariaDbMultiProcessTest}.
 */
class MultiProcessTest {

  @Test
  void separateJvmsOnPostgresNeverOverlap(@TempDir Path dir) throws Exception {
    String url = TestDatabases.postgresUrl("table=" + TestDatabases.table("pg_processes"));
    MultiProcessHarness.Result result = MultiProcessHarness.run(url, 3, 20, dir);
    assertThat(result.violations()).isEmpty();
    assertThat(result.counter()).isEqualTo(60);
  }

  @Test
  void transfersOverTwoKeysInFourJvmsOnPostgresNeverDeadlockOrOverlap(@TempDir Path dir)
      throws Exception {
    String url = TestDatabases.postgresUrl("table=" + TestDatabases.table("pg_transfers"));
    TransferHarness.Result result = TransferHarness.run(url, dir);
    System.out.println("postgres: " + result.figures());
    assertThat(result.violations()).isEmpty();
    assertThat(result.transfers()).isEqualTo(120);
  }
}
