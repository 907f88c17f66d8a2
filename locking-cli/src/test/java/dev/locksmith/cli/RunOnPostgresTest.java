package dev.locksmith.cli;

import dev.locksmith.testkit.jdbc.TestPostgres;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code locksmith run --url jdbc:postgresql://...} in JVMs of their own against a real PostgreSQL
 * (the test kit's, or {@code LOCKSMITH_TEST_POSTGRES_URL}'s): while one run's COMMAND holds the
 * lock, a second run on the same key with --fail exits 75 without starting its COMMAND; after the
 * first ends, it runs with a higher fencing token.
 */
class RunOnPostgresTest {
  private static final String URL = TestPostgres.url("table=cli_run_locks");

  @TempDir Path dir;

  @Test
  void secondRunIsRefusedWhileTheFirstHoldsAndRunsAfterIt() throws Exception {
    new TwoRunsOnOneKey(dir, URL, "cli-pg").assertSecondIsRefusedWhileTheFirstHoldsAndRunsAfterIt();
  }
}
