package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.testkit.MultiProcessHarness;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Separate JVMs contend for one lock on MariaDB ({@code LOCKSMITH_TEST_MARIADB_URL}). */
class MariaDbMultiProcessTest {

  @Test
  void separateJvmsOnMariaDbNeverOverlap(@TempDir Path dir) throws Exception {
    String url = TestDatabases.mariaDbUrl("table=" + TestDatabases.table("maria_processes"));
    MultiProcessHarness.Result result = MultiProcessHarness.run(url, 3, 20, dir);
    assertThat(result.violations()).isEmpty();
    assertThat(result.counter()).isEqualTo(60);
  }
}
