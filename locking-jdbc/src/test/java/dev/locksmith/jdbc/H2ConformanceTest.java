package dev.locksmith.jdbc;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.testkit.StoreLifecycle;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;

/**
 * The test kit's conformance suite on an in-process H2 file database. H2 in-process has no network
 * to fault: the fault cases stall a client's answers (the kit's default). A restart is H2's {@code
 * SHUTDOWN} (the next connection opens the files again); losing the state also deletes the files.
 */
class H2ConformanceTest extends JdbcConformance {
  private static Path dir;
  private static String driverUrl;
  private static final String TABLE = TestDatabases.table("h2_conformance");

  @BeforeAll
  static void createDirectory() throws IOException {
    dir = Files.createTempDirectory("locksmith-h2");
    driverUrl = "jdbc:h2:file:" + dir.resolve("locks");
  }

  @Override
  protected LockProvider newProvider() {
    return LockProviders.create(driverUrl + "?table=" + TABLE);
  }

  @Override
  public StoreLifecycle storeLifecycle() {
    return new StoreLifecycle() {
      @Override
      public void restart() throws SQLException {
        try (Connection connection = DriverManager.getConnection(driverUrl);
            Statement statement = connection.createStatement()) {
          statement.execute("SHUTDOWN");
        }
      }

      @Override
      public void restartLosingState() throws SQLException, IOException {
        restart();
        try (Stream<Path> files = Files.list(dir)) {
          for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
            Files.delete(file);
          }
        }
      }

      @Override
      public void restartWithPersistenceAdded() throws SQLException {
        restart(); // a file database always persists
      }
    };
  }
}
