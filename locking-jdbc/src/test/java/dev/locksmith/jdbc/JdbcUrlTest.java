package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import java.time.Duration;
import java.util.List;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/** {@code jdbc:} URLs: what goes to the driver, what the provider takes, and clear errors. */
class JdbcUrlTest {

  @Test
  void providerParametersAreTakenOutAndTheDriversKeptAsWritten() {
    assertThat(
            JdbcUrl.driverUrl(
                "jdbc:postgresql://127.0.0.1/db?user=a&table=t&ApplicationName=x%20y"
                    + "&poolSize=2&createTable=false&timeout=1s&maxPoll=50ms&retention=2h"))
        .isEqualTo("jdbc:postgresql://127.0.0.1/db?user=a&ApplicationName=x%20y");
    assertThat(JdbcUrl.driverUrl("jdbc:h2:mem:x;DB_CLOSE_DELAY=-1?table=t"))
        .isEqualTo("jdbc:h2:mem:x;DB_CLOSE_DELAY=-1");
  }

  @Test
  void theFactoryIsFoundByTheJdbcSchemeAndReadsItsParameters() {
    try (LockProvider provider =
        LockProviders.create(
            "jdbc:h2:mem:url-test;DB_CLOSE_DELAY=-1?table=app.my_locks&poolSize=2&timeout=1s&maxPoll=20ms")) {
      assertThat(provider).isInstanceOf(JdbcLockProvider.class);
      assertThat(((JdbcLockProvider) provider).table()).isEqualTo("app.my_locks");
    }
    JdbcUrl parsed =
        JdbcUrl.parse(
            dev.locksmith.core.spi.ProviderUrl.parse(
                "jdbc:postgresql://127.0.0.1/db?user=a&poolSize=7&timeout=3s&createTable=false"));
    assertThat(parsed.poolSize()).isEqualTo(7);
    assertThat(parsed.settings().timeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(parsed.settings().createTable()).isFalse();
    assertThat(parsed.settings().table()).isEqualTo("locksmith_locks");
    assertThat(parsed.dialect()).isInstanceOf(PostgresDialect.class);
  }

  @Test
  void theDescriptionHidesThePassword() {
    try (LockProvider provider =
        LockProviders.create("jdbc:postgresql://127.0.0.1:1/db?user=a&password=hush")) {
      assertThat(provider.description()).doesNotContain("hush").contains("password=****");
    }
  }

  @Test
  void wrongPartsAreNamed() {
    assertError("jdbc:oracle:thin:@127.0.0.1:1521/x", "'oracle'", "supported: postgresql");
    assertError("jdbc:h2:mem:x?table=locks;drop", "parameter 'table'", "plain SQL name");
    assertError("jdbc:h2:mem:x?poolSize=0", "parameter 'poolSize'", "between 1 and 64");
    assertError("jdbc:h2:mem:x?poolSize=many", "parameter 'poolSize'", "'many'");
    assertError("jdbc:h2:mem:x?timeout=soon", "parameter 'timeout'");
    assertError("jdbc:h2:mem:x?timeout=1ms", "parameter 'timeout'", "250ms");
    assertError("jdbc:h2:mem:x?maxPoll=1m", "parameter 'maxPoll'");
    assertError("jdbc:h2:mem:x?retention=1s", "parameter 'retention'");
    assertError("jdbc:h2:mem:x?createTable=perhaps", "parameter 'createTable'");
    assertError("jdbc:h2:mem:x?table=a&table=b", "parameter 'table' twice");
    assertError("jdbc:", "names no database");
    assertError("jdbc:h2:mem:x?Table=t", "parameter 'Table'", "'table'");
    assertError("jdbc:h2:mem:x?createtable=false", "parameter 'createtable'", "'createTable'");
  }

  @Test
  void aProviderParameterWrittenAnotherWayIsRefusedNotGivenToTheDriver() {
    // Given to the driver, which ignores what it does not know, while the provider used its
    // default: 'tabel' put two applications on one table.
    String server = "jdbc:postgresql://127.0.0.1:1/app?";
    assertError(server + "tabel=my_locks", "parameter 'tabel'", "'table'");
    assertError(server + "pool-size=32", "parameter 'pool-size'", "'poolSize'");
    assertError(server + "max_poll=1s", "parameter 'max_poll'", "'maxPoll'");
    assertError(server + "timout=5s", "parameter 'timout'", "'timeout'");
    assertError(server + "retentions=1h", "parameter 'retentions'", "'retention'");
    assertError("jdbc:mariadb://127.0.0.1:1/app?create-table=false", "'createTable'");
  }

  @Test
  void nearMissesAreOneEditAwayAndDriverNamesAreNot() {
    assertThat(JdbcUrl.nearMiss("tabel", "table")).isTrue();
    assertThat(JdbcUrl.nearMiss("tables", "table")).isTrue();
    assertThat(JdbcUrl.nearMiss("tble", "table")).isTrue();
    assertThat(JdbcUrl.nearMiss("tavle", "table")).isTrue();
    for (String driverSetting :
        List.of(
            "connectTimeout",
            "socketTimeout",
            "loginTimeout",
            "timezone",
            "maxPoolSize",
            "pool",
            "user",
            "ssl",
            "sslmode",
            "currentSchema",
            "ApplicationName")) {
      for (String known : JdbcUrl.PROVIDER_PARAMETERS) {
        assertThat(JdbcUrl.nearMiss(driverSetting, known)).as(driverSetting).isFalse();
      }
    }
  }

  @Test
  void anInMemoryH2DatabaseThatWouldBeDroppedWithItsLastConnectionIsRefused() {
    // H2 drops an in-memory database when its last connection closes: the pool retiring its one
    // idle connection dropped every lock held, and another owner took them at once.
    assertError("jdbc:h2:mem:locks", "DB_CLOSE_DELAY=-1", "jdbc:h2:mem:locks;DB_CLOSE_DELAY=-1");
    assertError(
        "jdbc:h2:mem:locks;MODE=PostgreSQL;DB_CLOSE_DELAY=0?table=t",
        "DB_CLOSE_DELAY=-1",
        "jdbc:h2:mem:locks;MODE=PostgreSQL;DB_CLOSE_DELAY=-1?table=t");
    // The same database served by an H2 server is dropped the same way.
    assertError(
        "jdbc:h2:tcp://127.0.0.1:9092/mem:locks",
        "DB_CLOSE_DELAY=-1",
        "jdbc:h2:tcp://127.0.0.1:9092/mem:locks;DB_CLOSE_DELAY=-1");
    assertError(
        "jdbc:h2:SSL://127.0.0.1/MEM:locks;MODE=MySQL",
        "DB_CLOSE_DELAY=-1",
        "jdbc:h2:SSL://127.0.0.1/MEM:locks;MODE=MySQL;DB_CLOSE_DELAY=-1");
    // Unnamed, each connection has a private database: no two would see one lock.
    assertError("jdbc:h2:mem:;DB_CLOSE_DELAY=-1", "names no in-memory database");
    assertError("jdbc:h2:tcp://127.0.0.1/mem:;DB_CLOSE_DELAY=-1", "names no in-memory database");
    try (LockProvider provider = LockProviders.create("jdbc:h2:mem:kept;db_close_delay=-1")) {
      assertThat(provider).isInstanceOf(JdbcLockProvider.class);
    }
  }

  @Test
  void aTableNamedByAnSqlKeywordIsRefusedAtCreation() {
    // Each passed the name check and then failed every call with a syntax error, as an outage.
    assertError("jdbc:h2:mem:x?table=order", "parameter 'table'", "'order'", "reserved word");
    assertError("jdbc:h2:mem:x?table=app.user", "parameter 'table'", "'user'", "reserved word");
    assertError("jdbc:h2:mem:x?table=Key", "parameter 'table'", "'Key'", "reserved word");
    assertError("jdbc:h2:mem:x?table=group.locks", "parameter 'table'", "'group'");
    // Reserved in PostgreSQL or MySQL only: refused too, so that a name works on every database.
    assertError("jdbc:h2:mem:x?table=lock", "parameter 'table'", "'lock'");
    assertError("jdbc:h2:mem:x?table=analyse", "parameter 'table'", "'analyse'");
    // Reserved by MariaDB 10.x or MySQL 8 beyond the SQL standard's list (window functions,
    // replication and table options): CREATE TABLE failed on MariaDB with a syntax error.
    for (String word :
        List.of("row_number", "portion", "position", "stats_persistent", "rank", "json_table")) {
      assertError("jdbc:h2:mem:x?table=" + word, "parameter 'table'", "'" + word + "'");
    }
    assertThat(
            JdbcUrl.parse(
                    dev.locksmith.core.spi.ProviderUrl.parse(
                        "jdbc:h2:mem:x;DB_CLOSE_DELAY=-1?table=orders.user_locks"))
                .settings()
                .table())
        .isEqualTo("orders.user_locks");
  }

  @Test
  void h2SettingsAfterTheQuestionMarkAreRefusedSinceH2ReadsThemAsPartOfTheDatabaseName() {
    // H2 took "locks?user=sa&password=secret" as the database's name: another database, and the
    // password in its file name.
    assertError(
        "jdbc:h2:./target/locks?user=sa&password=secret&table=t",
        "parameter 'user'",
        "H2",
        "jdbc:h2:./target/locks;user=sa");
    try (LockProvider provider =
        LockProviders.create("jdbc:h2:mem:h2-settings;DB_CLOSE_DELAY=-1?table=t&poolSize=1")) {
      assertThat(provider.description()).contains("h2-settings");
    }
  }

  @Test
  void aMissingDriverIsNamedAtCreation() {
    // The MariaDB driver is on the test class path; it does not take jdbc:mysql: by default.
    assertError(
        "jdbc:mysql://127.0.0.1/x?timeout=5s&user=root",
        "no JDBC driver for mysql",
        "the MariaDB driver on the class path also serves MySQL:"
            + " write the URL as jdbc:mariadb://127.0.0.1/x?timeout=5s&user=root");
  }

  @Test
  void theBuilderNamesWrongSettings() {
    org.h2.jdbcx.JdbcDataSource dataSource = new org.h2.jdbcx.JdbcDataSource();
    assertThatThrownBy(() -> JdbcLockProvider.builder(dataSource).table("1x").build())
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("table '1x'");
    assertThatThrownBy(() -> JdbcLockProvider.builder(dataSource).database("db2").build())
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("database 'db2' is not supported");
    // Its nanoseconds overflowed at every release, which then failed though the row was freed.
    assertThatThrownBy(
            () -> JdbcLockProvider.builder(dataSource).retention(Duration.ofDays(365_000)).build())
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("retention")
        .hasMessageContaining("365d");
  }

  @Test
  void aUrlTheDriverOnTheClassPathRefusesIsNotReportedAsAMissingDriver() {
    // pgjdbc accepts no URL without '/DB' after the host: it was "no JDBC driver for postgresql".
    assertError(
        "jdbc:postgresql://127.0.0.1:5432?user=app",
        "is refused by the postgresql driver on the class path (org.postgresql.Driver)",
        "jdbc:postgresql://HOST[:PORT]/DB");
  }

  @Test
  void aHugeOrHugelyNegativeDurationGivenToTheBuilderIsAConfigurationError() {
    JdbcDataSource source = new JdbcDataSource();
    source.setURL("jdbc:h2:mem:builder-durations;DB_CLOSE_DELAY=-1");
    Duration huge = Duration.ofSeconds(Long.MAX_VALUE);
    Duration hugelyNegative = Duration.ofSeconds(Long.MIN_VALUE);
    assertThatThrownBy(() -> JdbcLockProvider.builder(source).timeout(huge).build())
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("timeout must be between 250ms and 5m");
    assertThatThrownBy(() -> JdbcLockProvider.builder(source).maxPoll(huge).build())
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("maxPoll must be between 1ms and 10s");
    assertThatThrownBy(() -> JdbcLockProvider.builder(source).maxPoll(hugelyNegative).build())
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("maxPoll must be between 1ms and 10s");
  }

  private static void assertError(String url, String... parts) {
    assertThatThrownBy(() -> LockProviders.create(url).close())
        .isInstanceOf(LockConfigurationException.class)
        .satisfies(e -> assertThat(e.getMessage()).contains(parts));
  }
}
