package dev.locksmith.core.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class LockIdTextTest {
  @Test
  void anIdOfUpTo200CharsIsQuotedWhole() {
    String id = "a".repeat(200);

    assertThat(LockIdText.quoted(id)).isEqualTo("'" + id + "'");
  }

  @Test
  void aLongerIdIsCutAfter120CharsAndGivesItsLength() {
    String id = "a".repeat(1_000);

    assertThat(LockIdText.quoted(id)).isEqualTo("'" + "a".repeat(120) + "...' (1000 chars)");
  }

  @Test
  void theCutNeverSplitsASurrogatePair() {
    String id = "a".repeat(119) + "\uD83D\uDD12" + "b".repeat(200);

    assertThat(LockIdText.quoted(id)).isEqualTo("'" + "a".repeat(119) + "...' (321 chars)");
  }

  @Test
  void severalIdsAreQuotedEachInBrackets() {
    assertThat(LockIdText.quoted(List.of("n:a", "n:" + "b".repeat(300))))
        .isEqualTo("['n:a', 'n:" + "b".repeat(118) + "...' (302 chars)]");
  }
}
