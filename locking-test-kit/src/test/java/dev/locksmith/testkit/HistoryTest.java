package dev.locksmith.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class HistoryTest {

  @Test
  void sequentialSectionsWithIncreasingTokensPass() {
    History history =
        History.check(
            List.of(
                new CriticalSection(2, 3, 300, 400),
                new CriticalSection(1, 1, 100, 200),
                new CriticalSection(1, 2, 200, 250)));
    assertThat(history.violations()).isEmpty();
    assertThat(history.sections())
        .extracting(CriticalSection::fencingToken)
        .containsExactly(1L, 2L, 3L);
    assertThat(history.processes()).isEqualTo(2);
  }

  @Test
  void overlapIsFound() {
    History history =
        History.check(
            List.of(new CriticalSection(1, 1, 100, 201), new CriticalSection(2, 2, 200, 300)));
    assertThat(history.violations()).singleElement().asString().startsWith("overlap: 1 1 100 201");
  }

  @Test
  void tokenGoingBackIsFound() {
    History history =
        History.check(
            List.of(new CriticalSection(1, 5, 100, 150), new CriticalSection(2, 4, 200, 300)));
    assertThat(history.violations())
        .singleElement()
        .asString()
        .startsWith("fencing token did not increase");
  }

  @Test
  void recordsRoundTripThroughLines() {
    CriticalSection section = new CriticalSection(42, 7, 1_000, 2_000);
    assertThat(CriticalSection.parse(section.toLine())).isEqualTo(section);
  }
}
