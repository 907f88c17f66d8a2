package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import dev.locksmith.core.spi.OwnerTokens;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Lock ids and owners on each database: ids that differ only in case or trailing spaces are
 * different locks (MySQL/MariaDB's default collations would merge them), ids longer than the column
 * are stored by digest, long owner descriptions are cut, and held locks are listed.
 */
class LockIdsTest {

  private static String url(String database, String table) {
    return switch (database) {
      case "postgresql" -> TestDatabases.postgresUrl("table=" + table);
      case "mariadb" -> TestDatabases.mariaDbUrl("table=" + table);
      // Text columns made under IGNORECASE=TRUE compare without case, the ids' column too.
      case "h2-ignorecase" -> "jdbc:h2:mem:ids_ic;DB_CLOSE_DELAY=-1;IGNORECASE=TRUE?table=" + table;
      default -> "jdbc:h2:mem:ids;DB_CLOSE_DELAY=-1?table=" + table;
    };
  }

  @ParameterizedTest
  @ValueSource(strings = {"postgresql", "mariadb", "h2", "h2-ignorecase"})
  void idsDifferingInCaseOrTrailingSpacesAreDifferentLocks(String database) throws Exception {
    String table = TestDatabases.table("ids_case");
    try (JdbcLockProvider provider = JdbcLockProvider.create(url(database, table))) {
      List<LeaseGrant> grants = new java.util.ArrayList<>();
      for (String id : List.of("Job", "job", "job ", "jöb", "\u0130", "i")) {
        grants.add(
            provider
                .tryAcquire(LockRequest.of(id, Duration.ofSeconds(30)))
                .orElseThrow(() -> new AssertionError("lock '" + id + "' was refused")));
      }
      assertThat(provider.listHeld().orElseThrow())
          .extracting(LockStatus::lockId)
          .containsExactlyInAnyOrder("Job", "job", "job ", "jöb", "\u0130", "i");
      assertThat(provider.renew(grants.get(1), Duration.ofSeconds(30))).isPresent();
      assertThat(provider.release(grants.get(1))).isTrue();
      assertThat(provider.listHeld().orElseThrow())
          .extracting(LockStatus::lockId)
          .containsExactlyInAnyOrder("Job", "job ", "jöb", "\u0130", "i");
    } finally {
      TestDatabases.dropTable(url(database, table), table);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"postgresql", "mariadb", "h2"})
  void anIdWrittenLikeALongIdsDigestIsALockOfItsOwn(String database) throws Exception {
    String table = TestDatabases.table("ids_alias");
    String longId = "long:" + "x".repeat(300);
    try (JdbcLockProvider provider = JdbcLockProvider.create(url(database, table))) {
      LeaseGrant held =
          provider.tryAcquire(LockRequest.of(longId, Duration.ofSeconds(30))).orElseThrow();
      String alias = LockIds.stored(longId);
      assertThat(alias).startsWith("sha256:");
      // Stored under its own digest: whoever can choose a key cannot block another's long key.
      String aliasOfTheAlias = LockIds.stored(alias);
      assertThat(aliasOfTheAlias).isNotEqualTo(alias);
      assertThat(provider.tryAcquire(LockRequest.of(alias, Duration.ofSeconds(30))))
          .as("the id '%s', which names the long id's row as it is", alias)
          .isPresent();
      assertThat(provider.release(held)).isTrue();
    } finally {
      TestDatabases.dropTable(url(database, table), table);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"postgresql", "mariadb", "h2"})
  void idsWithANulOrALoneSurrogateAreLocksOfTheirOwn(String database) throws Exception {
    String table = TestDatabases.table("ids_odd");
    // PostgreSQL's text refuses NUL; UTF-8 turns each lone surrogate into the same '?'.
    List<String> ids = List.of("a\u0000b", "a\uD800", "a\uD801", "a?");
    try (JdbcLockProvider provider = JdbcLockProvider.create(url(database, table));
        JdbcLockProvider other = JdbcLockProvider.create(url(database, table))) {
      for (String id : ids) {
        LeaseGrant grant =
            provider.tryAcquire(LockRequest.of(id, Duration.ofSeconds(30))).orElseThrow();
        assertThat(other.tryAcquire(LockRequest.of(id, Duration.ofSeconds(30))))
            .as("lock '%s' taken elsewhere", id)
            .isEmpty();
        assertThat(other.status(id).holder()).isNotNull();
      }
      assertThat(provider.listHeld().orElseThrow()).hasSize(ids.size());
    } finally {
      TestDatabases.dropTable(url(database, table), table);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"postgresql", "mariadb", "h2"})
  void longIdsAndOwnersFitTheColumns(String database) throws Exception {
    String table = TestDatabases.table("ids_long");
    String longId = "report:" + "ü".repeat(200); // 407 bytes in UTF-8
    String longOwner = "host/1/" + "t".repeat(400);
    try (JdbcLockProvider provider = JdbcLockProvider.create(url(database, table));
        JdbcLockProvider other = JdbcLockProvider.create(url(database, table))) {
      LeaseGrant grant =
          provider
              .tryAcquire(
                  new LockRequest(
                      longId, OwnerTokens.newToken(), Duration.ofSeconds(30), longOwner))
              .orElseThrow();
      assertThat(other.tryAcquire(LockRequest.of(longId, Duration.ofSeconds(30)))).isEmpty();
      assertThat(other.tryAcquire(LockRequest.of(longId + "x", Duration.ofSeconds(30))))
          .as("another long id is another lock")
          .isPresent();
      LockStatus.Holder holder = other.status(longId).holder();
      assertThat(holder.owner()).hasSize(255).startsWith("host/1/ttt");
      assertThat(holder.fencingToken()).isEqualTo(grant.fencingToken());
      assertThat(holder.timeLeft()).isBetween(Duration.ofSeconds(20), Duration.ofSeconds(30));
      assertThat(provider.release(grant)).isTrue();
      assertThat(other.status(longId).holder()).isNull();
    } finally {
      TestDatabases.dropTable(url(database, table), table);
    }
  }
}
