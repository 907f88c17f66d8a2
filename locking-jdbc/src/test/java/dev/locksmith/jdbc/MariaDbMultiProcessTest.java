package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.testkit.MultiProcessHarness;
import dev.locksmith.testkit.TransferHarness;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Separate JVMs contend for one lock on MariaDB ({@code LOCKSMITH_TEST_MARIADB_URL}). */
class MariaDbMultiProcessTest {

  @Test
  void separateJvmsOnMariaDbNeverOverlap(@TempDir Path dir) throws Exception {
    String table = TestDatabases.table("maria_processes");
    String url = TestDatabases.mariaDbUrl("table=" + table);
    MultiProcessHarness.Result result;
    try {
      result = MultiProcessHarness.run(url, 3, 20, dir);
    } finally {
      TestDatabases.dropTable(url, table);
    }
    assertThat(result.violations()).isEmpty();
    assertThat(result.counter()).isEqualTo(60);
  }

  @Test
  void transfersOverTwoKeysInFourJvmsOnMariaDbNeverDeadlockOrOverlap(@TempDir Path dir)
      throws Exception {
    String table = TestDatabases.table("maria_transfers");
    String url = TestDatabases.mariaDbUrl("table=" + table);
    TransferHarness.Result result;
    try {
      result = TransferHarness.run(url, dir);
    } finally {
      TestDatabases.dropTable(url, table);
    }
    System.out.println("mariadb: " + result.figures());
    assertThat(result.violations()).isEmpty();
    assertThat(result.transfers()).isEqualTo(120);
  }
}
